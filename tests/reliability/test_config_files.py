"""Issue 40 item 7: configuration is read only from regular files. A FIFO nobody writes (or a device) where
Yoke reads configuration never holds start-up: it is skipped with a one-line warning where a broken file
would be, and the run goes on. Real FIFOs, a real `yoke -p` against the scripted server."""

from __future__ import annotations

import os

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer


def test_fifos_and_devices_among_the_configuration_never_hang_start_up(yoke, project, home):
    claude = project / ".claude"
    for folder in ("commands", "agents", "skills/tidy", "rules", "output-styles"):
        (claude / folder).mkdir(parents=True)
    fifos = [
        claude / "settings.json",
        project / ".mcp.json",
        project / "CLAUDE.md",
        claude / "commands" / "deploy.md",
        claude / "agents" / "helper.md",
        claude / "skills" / "tidy" / "SKILL.md",
        claude / "rules" / "style.md",
        claude / "output-styles" / "terse.md",
        home / ".claude" / "settings.json",
    ]
    (home / ".claude").mkdir(exist_ok=True)
    for path in fifos:
        os.mkfifo(path)
    (claude / "settings.local.json").symlink_to("/dev/zero")  # a device: reading it never ends
    (claude / "commands" / "fine.md").write_text("---\ndescription: still loaded\n---\nsay hi\n")
    with ScriptedServer([{"content": "started"}]) as srv:
        run = yoke("-p", "hello", "--output-format", "json", env=anthropic_env(srv), timeout=60)
    assert run.code == 0, run.stderr
    assert "Traceback" not in run.stderr
    assert '"result": "started"' in run.stdout or '"result":"started"' in run.stdout
    for name in ("settings.json", "settings.local.json", ".mcp.json"):
        warned = [line for line in run.stderr.splitlines() if name in line and "not a regular file" in line]
        assert warned, (name, run.stderr)


CONFIG_READERS = [
    "config/settings.py",
    "config/settings_write.py",
    "config/trust.py",
    "mcp/config.py",
    "plugins/plugin.py",
    "plugins/store.py",
    "hooks/sources.py",
    "memory/files.py",
    "skills/frontmatter.py",
    "skills/workflows.py",
    "ui/notify.py",
    "cli/config_command.py",
]


def test_configuration_is_read_through_the_one_helper():
    """Every module that reads configuration reads it with `fsutil.read_regular(_text)`: a new direct
    `read_text` there would bring the FIFO hang back."""
    from pathlib import Path

    import yoke

    root = Path(yoke.__file__).parent
    for name in CONFIG_READERS:
        source = (root / name).read_text()
        assert ".read_text(" not in source and ".read_bytes(" not in source, name
        assert "read_regular" in source, name

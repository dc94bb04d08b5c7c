"""`yoke --bg -n NAME`: the name Claude Code's `-n/--name` gives a session is the name `yoke agents` lists."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import anthropic_env
from tests.host.conftest import agents, yoke_cmd

from yoke.testing import ScriptedServer


def test_name_with_bg_names_the_session(host_env, project):
    with ScriptedServer([{"content": [{"type": "text", "text": "ok"}]}]) as srv:
        env = dict(host_env, **anthropic_env(srv))
        run = yoke_cmd(env, project, "--bg", "-n", "nightly-fix", "fix the flaky test")
        assert run.returncode == 0, run.stderr
        ident = run.stdout.splitlines()[0].split("· ")[1]
        rows = agents(env, project)
        assert [(r["id"], r["name"]) for r in rows] == [(ident, "nightly-fix")]
        assert yoke_cmd(env, project, "logs", "nightly").returncode == 0  # part of the name finds it


def test_bg_refuses_an_untrusted_folder_in_one_line(host_env, tmp_path):
    """As 2.1.332: a background session cannot ask the trust question, so --bg says to trust the folder first
    (and starts nothing)."""
    elsewhere = tmp_path / "cloned"
    elsewhere.mkdir()
    with ScriptedServer([{"content": [{"type": "text", "text": "never"}]}]) as srv:
        run = yoke_cmd(dict(host_env, **anthropic_env(srv)), elsewhere, "--bg", "fix it")
        assert run.returncode == 1 and run.stdout == "" and not srv.requests
    assert run.stderr.strip() == (
        f"yoke --bg: {elsewhere} is not trusted; run `yoke trust` (or `yoke` once and accept) there, then retry"
    )
    assert not (Path(host_env["XDG_RUNTIME_DIR"]) / "yoke" / "host.sock").exists()  # no host was started

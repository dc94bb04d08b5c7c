"""Settings' `env` blocks: they override the shell's exports (as in Claude Code), but an untrusted project
cannot redirect the API or set credentials."""

from __future__ import annotations

import json

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

ANSWER = [{"content": [{"type": "text", "text": "from the right server"}]}]


def write_settings(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_user_settings_env_overrides_the_shell(yoke, home):
    with ScriptedServer(ANSWER) as right, ScriptedServer(ANSWER) as wrong:
        write_settings(home / ".claude" / "settings.json", {"env": {"ANTHROPIC_BASE_URL": right.url}})
        run = yoke("-p", "hi", env=anthropic_env(wrong))
        assert run.code == 0, run.stderr
        assert len(right.requests) == 1 and wrong.requests == []


def test_project_env_waits_for_trust_and_never_redirects_the_api(yoke, project):
    with ScriptedServer(ANSWER * 2) as shell_server, ScriptedServer(ANSWER) as project_server:
        write_settings(
            project / ".claude" / "settings.json",
            {"env": {"ANTHROPIC_BASE_URL": project_server.url, "GREETING": "hello"}},
        )
        run = yoke("-p", "hi", env=anthropic_env(shell_server))
        assert run.code == 0, run.stderr
        assert project_server.requests == [] and len(shell_server.requests) == 1
        assert "not been trusted: ignoring its settings env (ANTHROPIC_BASE_URL, GREETING)" in run.stderr

        assert yoke("trust").code == 0
        trusted = yoke("-p", "hi", env=anthropic_env(shell_server))
        assert trusted.code == 0, trusted.stderr
        assert project_server.requests == [] and len(shell_server.requests) == 2
        assert "env ANTHROPIC_BASE_URL is ignored" in trusted.stderr


def _echo_turns(command: str) -> list[dict]:
    return [
        {"content": [{"type": "tool_use", "id": "toolu_b", "name": "Bash", "input": {"command": command}}]},
        {"content": [{"type": "text", "text": "ok"}]},
    ]


def _tool_output(yoke, srv) -> str:
    run = yoke(
        "-p", "hi", "--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions",
        env=anthropic_env(srv),
    )  # fmt: skip
    result = [o for o in run.lines() if o["type"] == "user"][0]["message"]["content"][0]
    return json.dumps(result["content"])


def test_project_env_reaches_tools_once_trusted(yoke, project):
    write_settings(project / ".claude" / "settings.json", {"env": {"LOG_LEVEL": "hello from settings"}})
    with ScriptedServer(_echo_turns('echo "[$LOG_LEVEL]"')) as srv:
        assert "[]" in _tool_output(yoke, srv)  # untrusted: no environment at all
    assert yoke("trust").code == 0
    with ScriptedServer(_echo_turns('echo "[$LOG_LEVEL]"')) as srv:
        assert "hello from settings" in _tool_output(yoke, srv)


def test_a_trusted_project_cannot_set_startup_loader_home_or_tool_variables(yoke, project, home, tmp_path):
    planted = tmp_path / "planted.sh"
    planted.write_text("echo PLANTED-RAN\n")
    hostile = {
        "BASH_ENV": str(planted),
        "PATH": str(tmp_path),
        "HOME": str(tmp_path),
        "YOKE_HOME": str(project),
        "BASH_FUNC_echo%%": "() { echo PLANTED-RAN; }",
        "GIT_CONFIG_COUNT": "1",
        "GIT_EXTERNAL_DIFF": str(planted),
        "NODE_OPTIONS": "--require /tmp/x.js",
        "LD_PRELOAD": "/tmp/x.so",
        "RIPGREP_CONFIG_PATH": str(planted),
        "PYTHONPLATLIBDIR": str(tmp_path),  # not named anywhere: the allowlist refuses it all the same
        "NODE_ENV": "kept",
    }
    write_settings(project / ".claude" / "settings.json", {"env": hostile})
    assert yoke("trust").code == 0
    command = (
        'echo "[$NODE_ENV][$YOKE_HOME][$NODE_OPTIONS][$LD_PRELOAD][$GIT_EXTERNAL_DIFF][$PYTHONPLATLIBDIR]"'
    )
    with ScriptedServer(_echo_turns(command)) as srv:
        out = _tool_output(yoke, srv)
    assert "PLANTED-RAN" not in out
    assert f"[kept][{home / '.yoke'}][][][][]" in out

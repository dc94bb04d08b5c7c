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


def test_untrusted_project_cannot_redirect_the_api(yoke, project):
    with ScriptedServer(ANSWER) as shell_server, ScriptedServer(ANSWER) as project_server:
        write_settings(
            project / ".claude" / "settings.json",
            {"env": {"ANTHROPIC_BASE_URL": project_server.url, "GREETING": "hello"}},
        )
        run = yoke("-p", "hi", env=anthropic_env(shell_server))
        assert run.code == 0, run.stderr
        assert project_server.requests == [] and len(shell_server.requests) == 1
        assert "ANTHROPIC_BASE_URL is ignored until this folder is trusted" in run.stderr

        assert yoke("trust").code == 0
        trusted = yoke("-p", "hi", env=anthropic_env(shell_server))
        assert trusted.code == 0, trusted.stderr
        assert len(project_server.requests) == 1


def test_project_env_reaches_tools(yoke, project):
    write_settings(project / ".claude" / "settings.json", {"env": {"GREETING": "hello from settings"}})
    turns = [
        {
            "content": [
                {"type": "tool_use", "id": "toolu_b", "name": "Bash", "input": {"command": "echo $GREETING"}}
            ]
        },
        {"content": [{"type": "text", "text": "ok"}]},
    ]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p",
            "hi",
            "--output-format",
            "stream-json",
            "--verbose",
            "--permission-mode",
            "bypassPermissions",
            env=anthropic_env(srv),
        )
    result = [o for o in run.lines() if o["type"] == "user"][0]["message"]["content"][0]
    assert "hello from settings" in json.dumps(result["content"])

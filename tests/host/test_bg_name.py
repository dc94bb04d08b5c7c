"""`yoke --bg -n NAME`: the name Claude Code's `-n/--name` gives a session is the name `yoke agents` lists."""

from __future__ import annotations

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

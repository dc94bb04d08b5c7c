"""Issue 46's headline use: `yoke --bg "/goal …"`, as processes against the scripted server and a real host.
The session works turn after turn in the host until its check passes, and `yoke logs` says it was verified;
another goal stops at its budget and `yoke logs` says why. The check runs under the session's permissions
(here the user allowed exactly it), with nobody attached."""

from __future__ import annotations

from tests.conftest import anthropic_env
from tests.host.conftest import wait_for, yoke_cmd
from tests.scheduling.test_loop_headless import text

from yoke.testing import ScriptedServer


def _bg(env, project, *args) -> str:
    run = yoke_cmd(env, project, "--bg", *args)
    assert run.returncode == 0, run.stderr
    return run.stdout.splitlines()[0].split("· ")[1]


def test_a_background_goal_ends_verified_and_another_at_its_budget(host_env, project):
    (project / "count.sh").write_text(
        'n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n; [ "$n" -ge 3 ]\n'
    )
    turns = [text(a) for a in ("one", "two", "three", "a", "b", "c")]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        allowed = ("--allowedTools=Bash(sh count.sh)",)
        goal = _bg(env, project, *allowed, "/goal --check 'sh count.sh' --max-turns 5 the tests pass")
        shown = wait_for(
            lambda: "Goal verified" in (out := yoke_cmd(env, project, "logs", goal).stdout) and out
        )
        assert "`sh count.sh` exited 0" in shown and "three" in shown
        assert (project / "n").read_text().strip() == "3" and len(srv.requests) == 3
        assert "exited 1" in str(srv.requests[1].body["messages"][-1])  # the failed check, told to the model

        spent = _bg(env, project, "/goal --check false --max-turns 2 never")
        shown = wait_for(
            lambda: "Goal stopped" in (out := yoke_cmd(env, project, "logs", spent).stdout) and out
        )
        assert "budget spent: 2 turns" in shown and len(srv.requests) == 5

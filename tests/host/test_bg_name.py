"""`yoke --bg -n NAME`: the name Claude Code's `-n/--name` gives a session is the name `yoke agents` lists."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import anthropic_env
from tests.host.conftest import agents, wait_for, yoke_cmd

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


def test_logs_shows_tool_output_without_per_turn_tallies_and_the_end_once(host_env, project):
    (project / "calc.py").write_text("print(6 * 7)\n")
    read = {
        "type": "tool_use",
        "id": "toolu_r",
        "name": "Read",
        "input": {"file_path": str(project / "calc.py")},
    }
    turns = [{"content": [read]}, {"content": [{"type": "text", "text": "it prints 42"}]}]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        run = yoke_cmd(env, project, "--bg", "what does calc.py print")
        ident = run.stdout.splitlines()[0].split("· ")[1]
        wait_for(lambda: "it prints 42" in yoke_cmd(env, project, "logs", ident).stdout)
        assert yoke_cmd(env, project, "stop", ident).returncode == 0
        wait_for(lambda: "(session ended)" in yoke_cmd(env, project, "logs", ident).stdout)
        shown = yoke_cmd(env, project, "logs", ident).stdout
    assert "⎿" in shown and "print(6 * 7)" in shown  # the tool's output
    assert "[success]" not in shown and "turns, $" not in shown
    assert shown.count("(session ended)") == 1

"""`yoke attach` in a terminal: the terminal UI drives a hosted session; leaving keeps the session running."""

from __future__ import annotations

from tests.conftest import anthropic_env
from tests.host.conftest import Raw, agents, socket_of, wait_for, yoke_cmd
from tests.ui.tmux import Pane, needs_tmux, trusted_home_env

from yoke.testing import ScriptedServer


@needs_tmux
def test_attach_opens_the_ui_on_the_hosted_session_and_shares_its_permission_prompt(host_env, project):
    target = project / "notes.txt"
    write = {
        "type": "tool_use",
        "id": "toolu_w",
        "name": "Write",
        "input": {"file_path": str(target), "content": "ui\n"},
    }
    turns = [
        {"content": [{"type": "text", "text": "hello from the background"}]},
        {"content": [write]},
        {"content": [{"type": "text", "text": "notes written"}]},
    ]
    with ScriptedServer(turns) as srv:
        env = trusted_home_env(dict(host_env, **anthropic_env(srv)), project)
        run = yoke_cmd(env, project, "--bg", "say hello")
        ident = run.stdout.split("· ")[1].split()[0]
        wait_for(lambda: "hello from the background" in yoke_cmd(env, project, "logs", ident).stdout)
        pane = Pane(["attach", ident], env, project)
        try:
            pane.wait_for("shift+tab to cycle")
            assert "hello from the background" in pane.screen()  # what it said before, shown first
            pane.type("write the notes")
            pane.keys("Enter")
            pane.wait_for("Yes, allow for this session")  # the permission prompt, in the UI
            watcher = Raw(socket_of(env))
            pending = watcher.call("attach", {"session": ident, "role": "watcher"})["payload"]["pending"]
            assert pending and pending[0]["request"]["tool_name"] == "Write"
            watcher.call(
                "answer",
                {"session": ident, "request_id": pending[0]["request_id"], "response": {"behavior": "allow"}},
            )
            pane.wait_for(
                "notes written"
            )  # answered elsewhere: the UI's prompt went away and the turn went on
            assert target.read_text() == "ui\n"
            pane.keys("C-d")
            pane.wait_exit()
        finally:
            pane.close()
        row = agents(env, project)[0]
        assert row["id"] == ident and row["state"] == "idle"  # the session outlived its terminal


@needs_tmux
def test_a_second_terminal_watches_and_is_told_it_does_not_drive(host_env, project):
    with ScriptedServer([{"content": [{"type": "text", "text": "first"}]}]) as srv:
        env = trusted_home_env(dict(host_env, **anthropic_env(srv)), project)
        run = yoke_cmd(env, project, "--bg", "say hello")
        ident = run.stdout.split("· ")[1].split()[0]
        driver = Raw(socket_of(env))
        assert driver.call("attach", {"session": ident})["payload"]["driver"]
        pane = Pane(["attach", ident], env, project)
        try:
            pane.wait_for("another client drives this session")
            pane.type("hello?")
            pane.keys("Enter")
            pane.wait_for("watchers may answer and interrupt")  # one line; the UI stays
            pane.wait_for("shift+tab to cycle")
            pane.keys("C-d")
            pane.wait_exit()
            assert pane.exit_status() == 0
        finally:
            pane.close()


@needs_tmux
def test_attach_shows_the_profile_the_hosted_session_runs_with(host_env, project):
    with ScriptedServer([{"content": [{"type": "text", "text": "profiled hello"}]}]) as srv:
        env = trusted_home_env(dict(host_env, WORK_KEY="sk-work"), project)
        add = ["profile", "add", "work", "--provider", "anthropic", "--model", "claude-haiku-4-5"]
        assert yoke_cmd(env, project, *add, "--base-url", srv.url, "--key-env", "WORK_KEY").returncode == 0
        run = yoke_cmd(env, project, "--bg", "--profile", "work", "say hello")
        ident = run.stdout.split("· ")[1].split()[0]
        wait_for(lambda: "profiled hello" in yoke_cmd(env, project, "logs", ident).stdout)
        wait_for(lambda: agents(env, project)[0].get("profile") == "work")
        pane = Pane(["attach", ident], env, project)
        try:
            pane.wait_for("profile work (claude-haiku-4-5)")
            pane.keys("C-d")
            pane.wait_exit()
        finally:
            pane.close()

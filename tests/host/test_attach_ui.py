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


def _line_client(env, project, ident, sink):
    import subprocess
    import sys

    return subprocess.Popen(
        [sys.executable, "-m", "yoke", "attach", ident, "--lines"],
        env=env, cwd=project, stdin=subprocess.PIPE, stdout=sink, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip


@needs_tmux
def test_two_clients_see_each_others_turns_and_answers(host_env, project, tmp_path):
    """The terminal UI in tmux and line clients on one session: the UI renders a line client's turn live,
    a line client prints the UI's turn live, and a permission prompt answered in the line client shows as
    answered in the UI."""
    target = project / "notes.txt"
    write = {"type": "tool_use", "id": "toolu_w", "name": "Write",
             "input": {"file_path": str(target), "content": "two\n"}}  # fmt: skip
    turns = [
        {"content": "started"},
        {"content": "the line client's answer"},
        {"content": [write]},
        {"content": "notes written"},
    ]
    with ScriptedServer(turns) as srv:
        env = trusted_home_env(dict(host_env, **anthropic_env(srv)), project)
        run = yoke_cmd(env, project, "--bg", "start")
        ident = run.stdout.split("· ")[1].split()[0]
        wait_for(lambda: agents(env, project)[0]["state"] == "idle")
        first_out = tmp_path / "first.out"
        with first_out.open("w") as sink:
            first = _line_client(env, project, ident, sink)  # attached first: it drives
            wait_for(lambda: "driving" in first_out.read_text())
            pane = Pane(["attach", ident], env, project)
            try:
                pane.wait_for("shift+tab to cycle")
                first.stdin.write("a question from the line client\n")
                first.stdin.flush()
                pane.wait_for("a question from the line client")  # its turn, live in the UI
                pane.wait_for("the line client's answer")
                first.stdin.write("/detach\n")
                first.stdin.flush()
                assert first.wait(timeout=20) == 0
                second_out = tmp_path / "second.out"
                with second_out.open("w") as sink2:
                    second = _line_client(env, project, ident, sink2)
                    try:
                        wait_for(lambda: "attached to" in second_out.read_text())
                        pane.type("write the notes")
                        pane.keys("Enter")
                        pane.wait_for("Yes, allow for this session")
                        wait_for(lambda: "write the notes" in second_out.read_text())  # the UI's turn, live
                        wait_for(lambda: "? allow Write" in second_out.read_text())
                        second.stdin.write("y\n")  # answered in the line client
                        second.stdin.flush()
                        pane.wait_for("answered in another client")
                        pane.wait_for("notes written")
                        wait_for(lambda: "notes written" in second_out.read_text())
                        assert target.read_text() == "two\n"
                        second.stdin.write("/detach\n")
                        second.stdin.flush()
                        assert second.wait(timeout=20) == 0
                    finally:
                        if second.poll() is None:
                            second.kill()
                pane.keys("C-d")
                pane.wait_exit()
            finally:
                pane.close()
                if first.poll() is None:
                    first.kill()
    assert "Traceback" not in first_out.read_text() + second_out.read_text()


@needs_tmux
def test_panel_commands_work_in_the_attached_ui(host_env, project):
    """/mcp, /agents, /permissions, /hooks, /model and /compact through the session port, in the host."""
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(
        '{"permissions": {"allow": ["Bash(ls:*)"]}, '
        '"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}'
    )
    turns = [
        {"content": "started"},
        {"content": "the summary of it all"},  # /compact's summary
    ]
    with ScriptedServer(turns) as srv:
        env = trusted_home_env(dict(host_env, **anthropic_env(srv)), project)
        run = yoke_cmd(env, project, "--bg", "start")
        ident = run.stdout.split("· ")[1].split()[0]
        wait_for(lambda: agents(env, project)[0]["state"] == "idle")
        pane = Pane(["attach", ident], env, project)
        try:
            pane.wait_for("shift+tab to cycle")
            for command, shown in (
                ("/permissions", "Bash(ls:*)"),
                ("/hooks", "Stop"),
                ("/agents", "general-purpose"),
                ("/mcp", "No MCP servers"),
                ("/model haiku", "Model set to"),
            ):
                pane.type(command)
                pane.keys("Enter")
                pane.wait_for(shown)
            pane.type("/compact")
            pane.keys("Enter")
            wait_for(lambda: len(srv.requests) == 2)  # the summary, asked in the host
            wait_for(lambda: agents(env, project)[0]["state"] == "idle")
            screen = pane.screen()
            assert "failed" not in screen and "AttributeError" not in screen, screen
            pane.keys("C-d")
            pane.wait_exit()
        finally:
            pane.close()
    assert "<summary>" in str(srv.requests[1].body["messages"][-1])
    assert "haiku" in srv.requests[1].body["model"]  # /model changed the hosted session's model


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

"""Tool calls, diffs and permission prompts in the terminal UI (real `yoke` in tmux)."""

from __future__ import annotations

import json

import pytest
from tests.ui.tmux import needs_tmux, pick, wait_prompt

from yoke.testing import ScriptedServer

pytestmark = needs_tmux


def edit_turns(project):
    path = str(project / "app.py")
    return [
        {"content": [{"type": "tool_use", "id": "toolu_r", "name": "Read", "input": {"file_path": path}}]},
        {
            "content": [
                {"type": "text", "text": "Changing it."},
                {
                    "type": "tool_use",
                    "id": "toolu_e",
                    "name": "Edit",
                    "input": {"file_path": path, "old_string": "return 1", "new_string": "return 2"},
                },
            ]
        },
        {"content": "All done."},
    ]


def test_edit_shown_with_its_diff_after_allowing(pane_factory, project):
    (project / "app.py").write_text("def f():\n    return 1\n")
    with ScriptedServer(edit_turns(project)) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("change f")
        pane.keys("Enter")
        screen = pane.wait_for("Do you want to proceed?")
        assert "- " in screen and "return 1" in screen and "return 2" in screen
        pick(pane, "Yes")
        screen = pane.wait_for("All done.")
        assert "● Read(app.py)" in screen
        assert "● Edit(app.py)" in screen
        assert "Updated app.py with 1 addition and 1 removal" in screen
        assert "2 +     return 2" in screen
        assert (project / "app.py").read_text() == "def f():\n    return 2\n"


def bash_turns(commands):
    turns = []
    for i, command in enumerate(commands):
        call = {"type": "tool_use", "id": f"toolu_b{i}", "name": "Bash", "input": {"command": command}}
        turns.append({"content": [call]})
        turns.append({"content": f"finished {i}."})
    return turns


@pytest.mark.parametrize(
    ("key", "ran", "expect"),
    [
        ("1", True, "finished 0."),
        ("2", True, "finished 0."),
    ],
)
def test_bash_permission_allowed(pane_factory, project, key, ran, expect):
    with ScriptedServer(bash_turns(["touch made.txt"])) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("make a file")
        pane.keys("Enter")
        screen = pane.wait_for("Do you want to proceed?")
        assert "Bash command" in screen and "touch made.txt" in screen
        pane.keys(key)
        pane.wait_for(expect)
        assert (project / "made.txt").exists() == ran


def test_always_allow_writes_the_narrowest_rule(pane_factory, project):
    with ScriptedServer(bash_turns(["touch one.txt", "touch two.txt"])) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("make a file")
        pane.keys("Enter")
        screen = pane.wait_for("Do you want to proceed?")
        assert "settings.local.json" in screen
        pick(pane, "settings.local.json")
        pane.wait_for("finished 0.")
        settings = json.loads((project / ".claude" / "settings.local.json").read_text())
        rules = settings["permissions"]["allow"]
        assert rules and all(r.startswith("Bash(touch") for r in rules), rules
        assert (project / "one.txt").exists()


def test_deny_with_a_message_reaches_the_model(pane_factory, project):
    with ScriptedServer(bash_turns(["touch nope.txt"])) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("make a file")
        pane.keys("Enter")
        pane.wait_for("Do you want to proceed?")
        pick(pane, "No, and tell Yoke")
        pane.wait_for("tell Yoke what to do instead")
        pane.type("use echo instead")
        pane.keys("Enter")
        pane.wait_for("finished 0.")
        assert not (project / "nope.txt").exists()
        sent = json.dumps(srv.requests[-1].body)
        assert "use echo instead" in sent


def test_escape_on_a_permission_prompt_denies_and_interrupts(pane_factory, project):
    with ScriptedServer(bash_turns(["touch nope.txt"])) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("make a file")
        pane.keys("Enter")
        pane.wait_for("Do you want to proceed?")
        pane.keys("Escape")
        pane.wait_for("Interrupted")
        assert not (project / "nope.txt").exists()


def test_exit_plan_mode_shows_the_plan_and_asks(pane_factory, project):
    plan = "## Plan\n\n1. Read **app.py**\n2. Fix it"
    turns = [
        {"content": [{"type": "tool_use", "id": "toolu_p", "name": "ExitPlanMode", "input": {"plan": plan}}]},
        {"content": "Starting now."},
    ]
    with ScriptedServer(turns) as srv:
        pane = pane_factory(srv, "--permission-mode", "plan")
        pane.wait_for("plan mode on")
        pane.type("plan the fix")
        pane.keys("Enter")
        pane.wait_for("Would you like to proceed with this plan?")
        screen = pane.wait_for("Read app.py")  # the dialog may be drawn a frame before the plan above it
        assert "**" not in screen
        pick(pane, "auto-accept edits")
        screen = pane.wait_for("Starting now.")
        pane.wait_for("accept edits on")
        assert "approved your plan" in json.dumps(srv.requests[-1].body)
    # the line under the call is for the user, not the instructions the model got (issue 48)
    assert "⎿  User approved the plan" in screen and "You can now start implementing" not in screen


def test_background_task_listed_in_the_footer(pane_factory, project):
    call = {"command": "sleep 30", "run_in_background": True, "description": "wait a while"}
    turns = [
        {"content": [{"type": "tool_use", "id": "toolu_bg", "name": "Bash", "input": call}]},
        {"content": "Started it."},
    ]
    with ScriptedServer(turns) as srv:
        pane = pane_factory(srv, "--allowedTools", "Bash")
        wait_prompt(pane)
        pane.type("start a background job")
        pane.keys("Enter")
        pane.wait_for("Started it.")
        pane.wait_for("1 background task")
        pane.type("/tasks")
        pane.keys("Enter")
        pane.wait_for("wait a while")


def test_always_allow_in_all_projects_writes_user_settings(pane_factory, project, base_env):
    from pathlib import Path

    with ScriptedServer(bash_turns(["touch three.txt"])) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("make a file")
        pane.keys("Enter")
        pick(pane, "all projects")
        pane.wait_for("finished 0.")
    user = json.loads((Path(base_env["CLAUDE_CONFIG_DIR"]) / "settings.json").read_text())
    assert any(r.startswith("Bash(touch") for r in user["permissions"]["allow"])
    assert not (project / ".claude" / "settings.local.json").exists()


def test_sub_agent_progress_is_nested_under_its_agent_call(pane_factory, project):
    (project / "notes.md").write_text("hello\n")

    def route(body):
        first = body["messages"][0]["content"]
        first = first if isinstance(first, str) else " ".join(b.get("text", "") for b in first)
        step = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if "CHILD job" in first:
            read = {
                "type": "tool_use",
                "id": "toolu_cr",
                "name": "Read",
                "input": {"file_path": str(project / "notes.md")},
            }
            return {"content": [read]} if step == 0 else {"content": "child done"}
        agent = {
            "type": "tool_use",
            "id": "toolu_ag",
            "name": "Agent",
            "input": {"description": "look at notes", "prompt": "CHILD job", "run_in_background": False},
        }
        return {"content": [agent]} if step == 0 else {"content": "All delegated."}

    with ScriptedServer(default_turn=route) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("delegate it")
        pane.keys("Enter")
        screen = pane.wait_for("All delegated.")
        assert "⎿  Read(notes.md)" in screen, screen
        agent_line = screen.index("● Agent(look at notes)")
        nested = screen.index("⎿  Read(notes.md)")
        assert agent_line < nested < screen.index("All delegated.")


def test_a_background_agent_s_notice_starts_the_next_turn_while_idle(pane_factory, project):
    """The agent runs in the background (the default); once the turn that launched it has ended, its
    completion notice starts a turn of its own, with nothing typed."""

    def route(body):
        first = body["messages"][0]["content"]
        first = first if isinstance(first, str) else " ".join(b.get("text", "") for b in first)
        step = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if "CHILD job" in first:
            return {"content": "child found 42"}
        if step == 0:
            agent = {"type": "tool_use", "id": "toolu_ag", "name": "Agent"}
            agent["input"] = {"description": "count things", "prompt": "CHILD job"}
            return {"content": [agent]}
        if "child found 42" in json.dumps(body["messages"][-1]):
            return {"content": "The agent says 42."}
        return {"content": "Launched it."}

    with ScriptedServer(default_turn=route) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("count in the background")
        pane.keys("Enter")
        screen = pane.wait_for("The agent says 42.")
        assert screen.index("Launched it.") < screen.index("The agent says 42.")

"""`@` mentions and `/model` in the terminal UI: attachments as in `-p` (tests/skills/test_mentions.py), model
switch hooks as over `set_model` (tests/hooks/test_model_switch_hooks.py)."""

from __future__ import annotations

from tests.ui.tmux import needs_tmux, wait_prompt

from yoke.testing import ScriptedServer


def texts(message: dict) -> list[str]:
    content = message["content"]
    return [content] if isinstance(content, str) else [b["text"] for b in content if b["type"] == "text"]


@needs_tmux
def test_the_terminal_ui_attaches_mentions_too(pane_factory, project):
    (project / "notes.txt").write_text("alpha\nbeta\n")
    with ScriptedServer([{"content": "seen it"}]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("what is in @notes.txt")
        pane.keys("Enter")
        pane.wait_for("seen it")
        messages = srv.requests[0].body["messages"]
    assert "notes.txt" in texts(messages[0])[0]
    assert "1\talpha" in texts(messages[1])[0] and texts(messages[1])[-1] == "what is in @notes.txt"


@needs_tmux
def test_model_command_runs_the_model_switch_hooks(pane_factory, project):
    """`/model NAME` in the terminal: PreModelSwitch (source "command") may keep the model, and says why."""
    import json
    import sys

    hook = project / "deny.py"
    hook.write_text(
        "import json, sys\n"
        "data = json.load(sys.stdin)\n"
        "open('pre.json', 'w').write(json.dumps(data))\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreModelSwitch',"
        " 'permissionDecision': 'deny', 'permissionDecisionReason': 'stay put'}}))\n"
    )
    settings = {
        "hooks": {
            "PreModelSwitch": [{"hooks": [{"type": "command", "command": f"{sys.executable} deny.py"}]}]
        }
    }
    with ScriptedServer([]) as srv:
        pane = pane_factory(srv, "--model", "claude-haiku-4-5", "--settings", json.dumps(settings))
        wait_prompt(pane)
        pane.type("/model opus")
        pane.keys("Enter")
        pane.wait_for("stay put")
    data = json.loads((project / "pre.json").read_text())
    assert (
        data["source"] == "command"
        and data["from_model"] == "claude-haiku-4-5"
        and "opus" in data["to_model"]
    )

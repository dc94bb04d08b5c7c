"""`@` mentions in the terminal UI attach what they name, as in `-p` (tests/skills/test_mentions.py)."""

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

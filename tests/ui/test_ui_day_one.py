"""Issue 27's terminal items as a user meets them (real `yoke` in tmux, against the scripted server)."""

from __future__ import annotations

from tests.ui.tmux import needs_tmux, pick, wait_prompt

from yoke.testing import ScriptedServer

pytestmark = needs_tmux


def test_doctor_in_the_terminal_says_the_model_is_not_served(pane_factory):
    with ScriptedServer([], models=["claude-haiku-5-5"]) as srv:
        pane = pane_factory(srv, width=200)
        wait_prompt(pane)
        pane.type("/doctor")
        pane.keys("Enter")
        screen = pane.wait_for("problem")
        assert (
            "claude-opus-5-5: the default model is not served by anthropic; it serves: claude-haiku-5-5"
            in screen
        )
        assert "bubblewrap" in screen and "Python" in screen


def test_a_resumed_shell_command_shows_as_a_command_not_tags(pane_factory):
    with ScriptedServer([{"content": "It printed a greeting."}]) as srv:
        pane = pane_factory(srv, width=160)
        wait_prompt(pane)
        pane.type("!echo hello-shell")
        pane.keys("Enter")
        pane.wait_for("⎿  hello-shell")
        pane.type("what did it print")
        pane.keys("Enter")
        pane.wait_for("It printed a greeting.")
        pane.type("/clear")
        pane.keys("Enter")
        pane.wait_for("conversation cleared")
        pane.type("/resume")
        pane.keys("Enter")
        screen = pane.wait_for("what did it print")
        assert "bash-input" not in screen
        pick(pane, "what did it print")
        screen = pane.wait_for("Resumed session")
        tail = screen.rsplit("/resume", 1)[1]
        assert "bash-input" not in tail and "bash-stdout" not in tail
        assert "! echo hello-shell" in tail and "> what did it print" in tail

"""Issue 27's terminal items as a user meets them (real `yoke` in tmux, against the scripted server)."""

from __future__ import annotations

from tests.ui.tmux import needs_tmux, wait_prompt

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

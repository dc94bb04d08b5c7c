# ruff: noqa: F811 - pytest fixtures imported by name
"""A plain `yoke` terminal session registered with the host is told like a hosted one (docs/notifications.md,
host/registered.py `_told`): the host sends its blocked and finished to the user's webhook, and the model's
PushNotification, which the terminal's own tool posts, reaches the webhook once, not also through the host."""

from __future__ import annotations

import json
import time

from tests.host.conftest import wait_for
from tests.host.test_notify import _call, _settings, service  # noqa: F401 - a fixture
from tests.host.test_terminal_registered import registered_terminal, write_call
from tests.ui.tmux import needs_tmux, pick

from yoke.testing import ScriptedServer


@needs_tmux
def test_a_terminal_session_in_the_host_is_told_once_each_and_its_push_notification_once(
    host_env, project, service
):
    # every event told (no coalescing window): a second sending of anything would show
    _settings(host_env, {"webhook": f"{service.base}/hook/json", "format": "json", "coalesceSeconds": 0})
    target = project / "notes.txt"
    turns = [
        {"content": [write_call(target)]},
        {"content": [{"type": "text", "text": "notes written"}]},
        _call("p1", "PushNotification", message="The notes are written"),
        {"content": [{"type": "text", "text": "told you"}]},
    ]

    def events() -> list[str]:
        return [json.loads(m["body"])["event"] for m in service.webhook]

    with ScriptedServer(turns) as srv:
        _, pane, ident = registered_terminal(host_env, project, srv)
        try:
            pane.type("write the notes")
            pane.keys("Enter")
            pane.wait_for("Yes, allow for this session")
            wait_for(lambda: service.webhook, timeout=30, interval=0.02)
            pick(pane, "Yes")  # answered in the terminal
            pane.wait_for("notes written")
            wait_for(lambda: len(service.webhook) >= 2, timeout=30)
            time.sleep(1)  # nothing more comes for this turn
            assert events() == ["blocked", "finished"]
            pane.type("tell me when done")
            pane.keys("Enter")
            pane.wait_for("told you")
            wait_for(lambda: len(service.webhook) >= 4, timeout=30)
            time.sleep(1)  # and nothing more for this one
            pane.keys("C-d")
            pane.wait_exit()
        finally:
            pane.close()
    told = [json.loads(m["body"]) for m in service.webhook]
    assert [m["event"] for m in told] == ["blocked", "finished", "message", "finished"]
    blocked, finished, message = told[0], told[1], told[2]
    assert blocked["tool"] == "Write" and "Write" in blocked["body"] and blocked["session"] == ident
    assert finished["session"] == ident
    assert message["body"] == "The notes are written"  # posted by the terminal's own tool, and only by it

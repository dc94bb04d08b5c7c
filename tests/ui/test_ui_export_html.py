"""`/export --html [FILE]` in the terminal (real `yoke` in tmux, against the scripted server): one self-contained
page, the session's text in it, a secret from a tool's output not."""

from __future__ import annotations

import json
import re

from tests.ui.tmux import needs_tmux, wait_prompt

from yoke.testing import ScriptedServer

pytestmark = needs_tmux

SECRET = "AKIAIOSFODNN7EXAMPLE"


def test_export_html_writes_one_page_without_the_secret(pane_factory, project):
    call = {
        "type": "tool_use",
        "id": "toolu_h",
        "name": "Bash",
        "input": {"command": "echo key-is-" + SECRET},
    }
    turns = [
        {"content": [{"type": "text", "text": "Printing the **key**."}, call]},
        {"content": "It printed."},
    ]
    with ScriptedServer(turns) as srv:
        pane = pane_factory(srv, "--allowedTools", "Bash(echo:*)")
        wait_prompt(pane)
        pane.type("show the key")
        pane.keys("Enter")
        pane.wait_for("It printed.")
        pane.type("/export --html page.html")
        pane.keys("Enter")
        pane.wait_for("Conversation exported")
    page = (project / "page.html").read_text()
    assert SECRET not in page and "key-is-[REDACTED]" in page
    assert "default-src 'none'" in page and "<script src" not in page and "<link" not in page
    data = re.search(r'<script type="application/json" id="yoke-export">(.*?)</script>', page, re.S)
    assert data is not None
    messages = json.loads(data.group(1))
    assert messages[0]["type"] == "user" and "show the key" in json.dumps(messages[0])
    assert "Printing the **key**." in json.dumps(messages) and "It printed." in json.dumps(messages)

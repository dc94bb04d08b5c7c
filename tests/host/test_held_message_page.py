"""Issue 46: a message from another session held for a person's approval shows on the page (Debian's
Chromium driven by Playwright, a real host, the scripted model server): the card says who sent it, its
summary and its text; Deliver lets it through once (the host's `message` method), and the card goes."""

from __future__ import annotations

import json

from tests.agents.test_subagents import call, text
from tests.conftest import anthropic_env
from tests.host.conftest import wait_for, yoke_cmd
from tests.host.remote_fixtures import remote_page  # noqa: F401 - a fixture
from tests.host.test_remote_browser import _paired, _start, browser, pytestmark  # noqa: F401 - fixtures

from yoke.testing import ScriptedServer


def test_a_held_message_is_delivered_from_the_page(host_env, project, browser, remote_page):  # noqa: F811
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps({"holdIncomingMessages": True}))
    send = call("s1", "SendMessage", to="bee", message="deploy is done", summary="deploy status")
    turns = [text("B idle"), {"content": [send]}, text("sent"), text("B read it")]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv), ENABLE_TOOL_SEARCH="false")
        bee = _start(env, project, "--name", "bee", "wait")
        wait_for(lambda: "B idle" in yoke_cmd(env, project, "logs", bee).stdout)
        ay = _start(env, project, "--name", "ay", "tell bee")
        wait_for(lambda: "sent" in yoke_cmd(env, project, "logs", ay).stdout)
        assert len(srv.requests) == 3  # held: B has not read it

        server = remote_page(env, project)
        page = _paired(browser, server)
        page.goto(server.url + f"s/{bee}")
        card = page.get_by_role("group", name="Message waiting for approval")
        card.wait_for()
        assert f"Message from session {ay}" in card.inner_text()
        assert "deploy status" in card.inner_text() and "deploy is done" in card.inner_text()
        card.get_by_role("button", name="Deliver").click()
        wait_for(lambda: "B read it" in yoke_cmd(env, project, "logs", bee).stdout)
        card.wait_for(state="detached")
        heard = [r for r in srv.requests if "deploy is done" in json.dumps(r.body["messages"][-1])]
        assert len(heard) == 1 and len(srv.requests) == 4  # delivered once

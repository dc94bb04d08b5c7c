"""The remote page's list and controls in a real browser (Debian's Chromium) against a real host and the
scripted model server: each session's state, cost and last activity; switching the permission mode; a prompt
queued while a turn runs; Deny with feedback that reaches the model."""

from __future__ import annotations

import json
import re

from tests.conftest import anthropic_env
from tests.host.conftest import Raw, socket_of, wait_for, yoke_cmd
from tests.host.remote_fixtures import remote_page  # noqa: F401 - a fixture
from tests.host.test_remote_browser import _paired, _start, browser, pytestmark  # noqa: F401

from yoke.testing import ScriptedServer


def _write(path, name="toolu_w"):
    return {
        "type": "tool_use",
        "id": name,
        "name": "Write",
        "input": {"file_path": str(path), "content": "x\n"},
    }


def test_the_list_shows_each_sessions_state_cost_and_last_activity(host_env, project, browser, remote_page):  # noqa: F811
    turns = [
        {
            "content": [{"type": "text", "text": "done"}],
            "usage": {"input_tokens": 20000, "output_tokens": 1000},
        },
        {"content": [{"type": "text", "text": "wait"}, _write(project / "w.txt")]},
        {"content": [{"type": "text", "text": "old one"}]},
    ]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        idle = _start(env, project, "finished one")
        wait_for(lambda: srv.requests)
        raw = Raw(socket_of(env))
        raw.call("attach", {"session": idle, "role": "watcher", "since": 0})
        raw.until(lambda m: m["type"] == "stream" and m["payload"]["message"]["type"] == "result")
        blocked = _start(env, project, "blocked one")
        raw.call("attach", {"session": blocked, "role": "watcher", "since": 0})
        raw.until(lambda m: m["type"] == "stream" and m["payload"]["message"]["type"] == "control_request")
        stopped = _start(env, project, "stopped one")
        raw.call("attach", {"session": stopped, "role": "watcher", "since": 0})
        raw.until(lambda m: m["type"] == "stream" and m["payload"]["message"].get("result") == "old one")
        assert yoke_cmd(env, project, "stop", stopped).returncode == 0
        rows = {r["id"]: r for r in raw.call("list")["payload"]["sessions"]}
        assert rows[idle]["costUsd"] > 0 and rows[idle]["lastActivityAt"] > 0, rows[idle]
        assert (rows[idle]["state"], rows[blocked]["state"], rows[stopped]["state"]) == (
            "idle",
            "blocked",
            "stopped",
        )
        raw.close()
        server = remote_page(env, project)
        page = _paired(browser, server)
        page.wait_for_function("window.yokeListed >= 1")  # the live list replaced the server's rendering
        for ident, name, state in ((idle, "finished one", "idle"), (blocked, "blocked one", "blocked"),
                                   (stopped, "stopped one", "stopped")):  # fmt: skip
            item = page.locator(f'li[data-session="{ident}"]')
            assert item.get_by_role("link", name=name).count() == 1
            assert item.locator(".state").inner_text() == state
            assert re.fullmatch(r"<?\$\d[\d,]*\.\d+", item.locator(".cost").inner_text())
            # a no-break space: "21 s ago" never wraps on a phone
            assert re.fullmatch(r"\d+\u00a0(s|min) ago", item.locator(".activity").inner_text()), (
                item.inner_text()
            )
        cost = rows[idle]["costUsd"]  # under a dollar: three significant digits, never $0.00 nor $0.0000
        assert (
            0 < cost < 1 and page.locator(f'li[data-session="{idle}"] .cost').inner_text() == f"${cost:#.3g}"
        )
        assert page.evaluate("[yokeMoney(0.004), yokeMoney(0.00001), yokeMoney(0), yokeMoney(1234.5)]") == [
            "$0.00400", "<$0.0001", "$0.00", "$1,234.50"]  # fmt: skip
        # a state change reaches the list without a reload: the blocked session answered runs, then idles
        Raw(socket_of(env)).call("stop", {"session": blocked})
        page.locator(f'li[data-session="{blocked}"] .state').get_by_text("stopped").wait_for()


def test_switch_the_permission_mode_from_the_page(host_env, project, browser, remote_page):  # noqa: F811
    target = project / "m.txt"
    turns = [
        {"content": [{"type": "text", "text": "ready"}]},
        {"content": [{"type": "text", "text": "writing"}, _write(target)]},
        {"content": [{"type": "text", "text": "wrote it"}]},
    ]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "modes")
        server = remote_page(env, project, ident)
        page = _paired(browser, server)
        page.goto(server.url)  # the URL names the session
        page.get_by_text("ready").wait_for()
        select = page.get_by_label("Permission mode")
        assert select.input_value() == "default"
        select.select_option("acceptEdits")
        wait_for(lambda: _row(env, ident).get("permissionMode") == "acceptEdits", timeout=30)
        page.get_by_label("Prompt").fill("write m")
        page.get_by_role("button", name="Send").click()
        page.get_by_text("wrote it").wait_for()
        assert target.read_text() == "x\n"  # no permission prompt: edits are accepted now
        assert page.get_by_role("button", name="Allow", exact=True).count() == 0
        page.reload()  # the mode shown is the session's, not the page's memory
        page.get_by_text("wrote it").wait_for()
        page.wait_for_function("document.getElementById('mode').value === 'acceptEdits'")
        # a mode the session refuses: the page says so and shows the mode still in force
        page.get_by_label("Permission mode").select_option("bypassPermissions")
        page.locator(".error").get_by_text("permission mode not changed").wait_for()
        assert page.get_by_label("Permission mode").input_value() == "acceptEdits"


def _row(env, ident) -> dict:
    raw = Raw(socket_of(env))
    try:
        return next(r for r in raw.call("list")["payload"]["sessions"] if r["id"] == ident)
    finally:
        raw.close()


def test_queue_a_prompt_while_a_turn_runs(host_env, project, browser, remote_page):  # noqa: F811
    slow = {"content": [{"type": "text", "text": "slow " * 200}], "delay": 0.05}
    turns = [{"content": [{"type": "text", "text": "ready"}]}, slow,
             {"content": [{"type": "text", "text": "the queued one ran"}]}]  # fmt: skip
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "first prompt", "--include-partial-messages")
        server = remote_page(env, project)
        page = _paired(browser, server)
        page.goto(server.url + f"s/{ident}")
        page.get_by_text("ready").wait_for()
        page.get_by_label("Prompt").fill("talk slowly")
        page.get_by_role("button", name="Send").click()
        page.locator(".live").get_by_text("slow slow").wait_for()  # that turn is running
        page.get_by_label("Prompt").fill("then this")
        page.get_by_role("button", name="Send").click()
        queued = page.get_by_role("list", name="Queued").get_by_text("then this")
        queued.wait_for()  # shown as queued while the first turn runs
        assert len(srv.requests) == 2
        page.get_by_text("the queued one ran").wait_for()  # it ran after
        assert queued.count() == 0
        assert "then this" in json.dumps(srv.requests[2].body["messages"][-1])
        first = page.get_by_text("slow slow").last.bounding_box()
        answer = page.get_by_text("the queued one ran").bounding_box()
        assert first and answer and first["y"] < answer["y"]
        assert page.locator(".user").get_by_text("then this").count() == 1  # the prompt, in the stream


def test_deny_with_feedback_reaches_the_model(host_env, project, browser, remote_page):  # noqa: F811
    target = project / "d.txt"
    turns = [
        {"content": [{"type": "text", "text": "may I"}, _write(target)]},
        {"content": [{"type": "text", "text": "understood"}]},
    ]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "deny me")
        server = remote_page(env, project)
        page = _paired(browser, server)
        page.goto(server.url + f"s/{ident}")
        page.get_by_role("button", name="Deny").wait_for()
        page.get_by_role("textbox", name="Feedback", exact=True).fill("write notes.md instead")
        page.get_by_role("button", name="Deny").click()
        page.get_by_text("understood").wait_for()
        assert not target.exists()
        results = [
            b for b in srv.requests[1].body["messages"][-1]["content"] if b.get("type") == "tool_result"
        ]
        assert results and "write notes.md instead" in json.dumps(results[0]), results
        assert results[0].get("is_error") is True

"""`yoke remote-control` in a real browser (Debian's Chromium, driven by Playwright) against a real host and
the scripted model server: pair, watch, answer, prompt, interrupt, reload, phone size."""

from __future__ import annotations

import os

import pytest
from tests.conftest import anthropic_env
from tests.host.conftest import yoke_cmd
from tests.host.remote_fixtures import remote_page  # noqa: F401 - a fixture

from yoke.testing import ScriptedServer

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="needs Debian's chromium")


@pytest.fixture
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


def _start(env, project, *args) -> str:
    run = yoke_cmd(env, project, "--bg", *args)
    assert run.returncode == 0, run.stderr
    return run.stdout.split("· ")[1].split()[0]


def _paired(browser, page_server, viewport=None):
    # the self-signed certificate beyond loopback: the user checks its fingerprint; the test trusts it
    context = browser.new_context(
        viewport=viewport or {"width": 1200, "height": 900},
        ignore_https_errors=page_server.url.startswith("https"),
        bypass_csp=True,  # wait_for_function evaluates a string; the page under its CSP: test_remote_attacks
    )
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(page_server.url)
    page.get_by_label("Pairing code").fill(page_server.code)
    page.get_by_role("button", name="Pair").click()
    page.wait_for_function("!!localStorage.getItem('yoke_key')")  # the landing page kept the page key
    return page


def test_pair_watch_answer_a_permission_prompt_and_send_a_prompt(host_env, project, browser, remote_page):  # noqa: F811
    target = project / "notes.txt"
    write = {
        "type": "tool_use",
        "id": "toolu_w",
        "name": "Write",
        "input": {"file_path": str(target), "content": "hi\n"},
    }
    turns = [
        {"content": [{"type": "text", "text": "I will write the notes"}, write]},
        {"content": [{"type": "text", "text": "written them"}]},
        {"content": [{"type": "text", "text": "second answer"}]},
    ]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        _start(env, project, "write notes")
        server = remote_page(env, project)
        page = _paired(browser, server)
        page.get_by_role("link", name="write notes").click()
        page.get_by_text("I will write the notes").wait_for()
        page.get_by_role("button", name="Allow", exact=True).click()
        page.get_by_text("written them").wait_for()
        assert target.read_text() == "hi\n"
        assert (
            page.get_by_role("button", name="Allow", exact=True).count() == 0
        )  # the answered prompt is withdrawn
        page.get_by_label("Prompt").fill("and again")
        page.get_by_role("button", name="Send").click()
        page.get_by_text("second answer").wait_for()
        assert "and again" in str(srv.requests[-1].body["messages"])
        # reload: the whole stream again from the host, each message once
        page.reload()
        page.get_by_text("second answer").wait_for()
        assert page.get_by_text("I will write the notes").count() == 1
        assert page.get_by_text("written them").count() == 1
        # the WebSocket drops (the host's relay closes): the page reconnects with its last seq, no repeats
        seq = page.evaluate("window.yokeLastSeq()")
        assert seq > 0
        page.evaluate("window.yokeSocket().close()")
        page.wait_for_function("window.yokeSocket().readyState === 1 && window.yokeAttached", timeout=30_000)
        assert page.get_by_text("second answer").count() == 1


def test_interrupt_from_the_page(host_env, project, browser, remote_page):  # noqa: F811
    slow = {"content": [{"type": "text", "text": "word " * 400}], "delay": 0.05}
    with ScriptedServer([slow, {"content": [{"type": "text", "text": "next"}]}]) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "talk slowly", "--include-partial-messages")
        server = remote_page(env, project)
        page = _paired(browser, server)
        page.goto(server.url + f"s/{ident}")
        page.get_by_role("button", name="Interrupt").wait_for()
        page.wait_for_function("window.yokeAttached")
        page.locator(".live").get_by_text("word word").wait_for()  # text arrives while the model still sends
        page.get_by_role("button", name="Interrupt").click()
        page.get_by_text("turn ended").wait_for()
        shown = " ".join(page.locator(".text").all_inner_texts())
        assert shown.count("word") < 400  # the long answer never completed
        assert shown.count("word") >= 2  # and what streamed in before the interrupt is still shown
        assert page.locator(".text.live").count() == 0


def test_a_phone_viewport_shows_the_same_controls(host_env, project, browser, remote_page):  # noqa: F811
    with ScriptedServer([{"content": [{"type": "text", "text": "small screen"}]}]) as srv:
        env = dict(host_env, **anthropic_env(srv))
        _start(env, project, "phone")
        server = remote_page(env, project)
        page = _paired(browser, server, viewport={"width": 390, "height": 844})
        page.get_by_role("link", name="phone").click()
        page.get_by_text("small screen").wait_for()
        for control in (page.get_by_label("Prompt"), page.get_by_role("button", name="Send"),
                        page.get_by_role("button", name="Interrupt")):  # fmt: skip
            box = control.bounding_box()
            assert control.is_visible() and box is not None
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390 and box["y"] + box["height"] <= 844
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scrolling


def test_over_https_beyond_loopback(host_env, project, browser, remote_page):  # noqa: F811
    with ScriptedServer([{"content": [{"type": "text", "text": "over tls"}]}]) as srv:
        env = dict(host_env, **anthropic_env(srv))
        _start(env, project, "secure")
        server = remote_page(env, project, "--host", "0.0.0.0")
        assert server.url.startswith("https://")
        page = _paired(browser, server)
        page.get_by_role("link", name="secure").click()
        page.get_by_text("over tls").wait_for()  # the page's WebSocket is wss:// with the same certificate


def test_a_share_link_shows_the_session_without_controls(host_env, project, browser, remote_page):  # noqa: F811
    with ScriptedServer([{"content": [{"type": "text", "text": "for your eyes"}]}]) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "shown")
        server = remote_page(env, project, ident, "--share")
        page = browser.new_context().new_page()
        page.set_default_timeout(30_000)
        page.goto(server.share)
        page.get_by_text("for your eyes").wait_for()
        assert page.url.endswith(f"/s/{ident}")
        assert page.get_by_role("button", name="Send").count() == 0
        assert page.get_by_role("button", name="Interrupt").count() == 0
        assert page.get_by_label("Prompt").count() == 0

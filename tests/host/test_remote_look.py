"""The remote page looks finished (issue 47), in a real browser (Debian's Chromium through Playwright) against
a real host and the scripted model server: the pairing page styled before pairing; the list, a permission
card, a question and a plan at a phone's and a desktop's size (screenshots saved as test artefacts, printed),
nothing scrolling sideways at 390 px, the waiting card in view, buttons a finger can hit, and axe-core's
accessibility check with no serious violation. The permission card shows the call once; "Allow for this
session" stops the second identical ask; Deny with feedback reaches the model and labels the call Denied;
Enter sends and Shift+Enter adds a line."""

from __future__ import annotations

import json

from tests.conftest import anthropic_env
from tests.host.conftest import wait_for
from tests.host.page_look import (
    PHONE,
    accessible,
    artefacts,
    in_view,
    no_sideways_scroll,
    shoot,
    tall_enough,
)
from tests.host.remote_fixtures import remote_page  # noqa: F401 - a fixture
from tests.host.test_remote_browser import _paired, _start, browser, pytestmark  # noqa: F401
from tests.host.test_remote_questions import QUESTIONS, _ask, _tool_result

from yoke.testing import ScriptedServer


def _write(target, content="hi\n", ident="toolu_w") -> dict:
    return {
        "type": "tool_use",
        "id": ident,
        "name": "Write",
        "input": {"file_path": str(target), "content": content},
    }


def _user_texts(request) -> str:
    return json.dumps(request.body["messages"][-1]["content"])


def test_the_pairing_page_is_styled_before_pairing(host_env, project, browser, remote_page):  # noqa: F811
    server = remote_page(host_env, project)
    page = browser.new_context(viewport=PHONE, bypass_csp=True).new_page()
    page.set_default_timeout(30_000)
    page.goto(server.url)
    page.get_by_label("Pairing code").wait_for()
    # the one stylesheet came (it answers before pairing): system fonts, no serif anywhere
    assert page.evaluate("document.styleSheets[0].cssRules.length") > 10
    fonts = page.evaluate(
        "[...document.querySelectorAll('body, h1, label, input, button')].map(e => getComputedStyle(e).fontFamily)"
    )
    assert all(
        f.endswith(("sans-serif", "monospace")) and "serif" not in f.replace("sans-serif", "") for f in fonts
    ), fonts
    tall_enough(page.get_by_role("button", name="Pair"))
    tall_enough(page.get_by_label("Pairing code"))
    shoot(page, "pairing")
    accessible(page, "pairing")
    # the dark scheme follows the system
    dark = browser.new_context(viewport=PHONE, color_scheme="dark").new_page()
    dark.goto(server.url)
    assert dark.evaluate("getComputedStyle(document.body).backgroundColor") != page.evaluate(
        "getComputedStyle(document.body).backgroundColor"
    )
    dark.screenshot(path=str(artefacts() / "pairing-dark-390x844.png"))


def test_a_permission_card_allowed_for_the_session_asks_once(host_env, project, browser, remote_page):  # noqa: F811
    target = project / "notes.txt"
    turns = [
        {"content": [{"type": "text", "text": "I will write the notes"}, _write(target)],
         "usage": {"input_tokens": 30, "output_tokens": 10}},
        {"content": [{"type": "text", "text": "and once more"}, _write(target, ident="toolu_w2")]},
        {"content": [{"type": "text", "text": "both written"}]},
        {"content": [{"type": "text", "text": "got the one-liner"}]},
        {"content": [{"type": "text", "text": "got two lines"}]},
    ]  # fmt: skip
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "write notes")
        server = remote_page(env, project)
        page = _paired(browser, server, viewport=PHONE)
        page.wait_for_function("window.yokeListed >= 1")
        shoot(page, "list")
        accessible(page, "list")
        page.goto(server.url + f"s/{ident}")
        card = page.locator(".ask")
        card.get_by_role("button", name="Allow for this session").wait_for()
        # the call shown once: the new content as a diff, inside the call's block; no raw JSON of it
        assert page.get_by_role("group", name=f"New content of {target}").count() == 1
        assert page.get_by_text('"file_path"').count() == 0 and page.locator(".ask-input").count() == 0
        assert page.locator(".tool .ask").count() == 1
        buttons = [
            card.get_by_role("button", name=n, exact=True)
            for n in ("Allow", "Allow for this session", "Deny")
        ]
        looks = [b.evaluate("(e) => { const s = getComputedStyle(e); return [s.backgroundColor, s.borderColor, s.color].join() }")
                 for b in buttons]  # fmt: skip
        assert len(set(looks)) == 3, looks  # three buttons a glance tells apart
        tall_enough(card.get_by_role("button"))
        tall_enough(card.get_by_role("textbox", name="Feedback", exact=True))
        tall_enough(page.get_by_role("button", name="Send"))
        in_view(page, buttons[0])
        assert page.locator("header strong").inner_text() == "write notes"  # its name, not its id
        status = page.locator("#status")  # the sticky header says the session waits, and its mode
        assert status.inner_text() == "blocked" and page.get_by_label("Permission mode").is_visible()
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        assert page.locator("header").bounding_box()["y"] == 0
        no_sideways_scroll(page)
        shoot(page, "permission")
        accessible(page, "permission card")
        page.emulate_media(color_scheme="dark")  # the dark scheme meets the same contrast
        accessible(page, "permission card, dark")
        page.screenshot(path=str(artefacts() / "permission-dark-390x844.png"))
        page.emulate_media(color_scheme="light")
        buttons[1].click()
        # the second, identical Write is not asked about: the session added a rule for it
        page.get_by_text("both written").wait_for()
        assert target.read_text() == "hi\n" and page.locator(".ask").count() == 0
        assert len(srv.requests) == 3
        # Enter sends; Shift+Enter adds a line
        box = page.get_by_label("Prompt")
        box.fill("one line")
        box.press("Enter")
        page.get_by_text("got the one-liner").wait_for()
        assert "one line" in _user_texts(srv.requests[3]) and box.input_value() == ""
        box.type("first")
        box.press("Shift+Enter")
        box.type("second")
        assert box.input_value() == "first\nsecond"
        box.press("Enter")
        page.get_by_text("got two lines").wait_for()
        assert "first\\nsecond" in _user_texts(srv.requests[4])


def test_deny_with_feedback_labels_the_call_denied(host_env, project, browser, remote_page):  # noqa: F811
    command = {
        "type": "tool_use",
        "id": "toolu_b",
        "name": "Bash",
        "input": {"command": "rm -rf build && make"},
    }
    turns = [
        {"content": [{"type": "text", "text": "may I"}, command]},
        {"content": [{"type": "text", "text": "understood, no rm"}]},
    ]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "clean build")
        server = remote_page(env, project)
        page = _paired(browser, server, viewport=PHONE)
        page.goto(server.url + f"s/{ident}")
        page.get_by_role("button", name="Deny").wait_for()
        assert page.get_by_text("rm -rf build && make").count() == 1  # the command, once
        feedback = page.get_by_role("textbox", name="Feedback", exact=True)
        feedback.fill("keep the build folder")
        feedback.press("Enter")  # Enter in the feedback field denies with it
        page.get_by_text("understood, no rm").wait_for()
        result = _tool_result(srv.requests[1])
        assert result.get("is_error") is True and "keep the build folder" in json.dumps(result), result
        label = page.locator('.tool[data-tool="Bash"] .badge')
        assert label.inner_text() == "Denied" and label.is_visible()
        assert page.locator(".result.error").count() == 0  # a refusal, not a failure in red
        # a reload replays the stream: the label stays
        page.reload()
        page.get_by_text("understood, no rm").wait_for()
        assert page.locator('.tool[data-tool="Bash"] .badge').inner_text() == "Denied"


def test_a_question_and_a_plan_look_finished(host_env, project, browser, remote_page):  # noqa: F811
    plan = "# Plan to ship\n\n1. Write `notes.md`\n2. Run the tests"
    plan_turn = {
        "content": [{"type": "tool_use", "id": "toolu_p", "name": "ExitPlanMode", "input": {"plan": plan}}]
    }
    with ScriptedServer([_ask(QUESTIONS), plan_turn]) as srv:  # the turns in order: one session each
        env = dict(host_env, **anthropic_env(srv))
        asked = _start(env, project, "ask me")
        wait_for(lambda: len(srv.requests) == 1)
        planned = _start(env, project, "--permission-mode", "plan", "plan it")
        wait_for(lambda: len(srv.requests) == 2)
        server = remote_page(env, project)
        page = _paired(browser, server, viewport=PHONE)
        page.goto(server.url + f"s/{asked}")
        page.get_by_role("button", name="Send answers").wait_for()
        tall_enough(page.locator(".ask button"))
        assert page.locator(".tool-input:visible").count() == 0  # the questions shown once: in the card
        in_view(page, page.get_by_role("button", name="Send answers"))
        shoot(page, "question")
        accessible(page, "question")
        page.goto(server.url + f"s/{planned}")
        page.locator(".ask").get_by_role("heading", name="Plan to ship").wait_for()
        tall_enough(page.locator(".ask button, .ask select"))
        assert page.locator(".tool-input:visible").count() == 0  # the plan shown once: in the card
        in_view(page, page.get_by_role("button", name="Allow", exact=True))
        shoot(page, "plan")
        accessible(page, "plan")

"""The model's questions on the remote page, in a real browser (Debian's Chromium) against a real host and the
scripted model server: AskUserQuestion answered by clicking options, whose labels reach the model in the
tool's result, an answer of one's own and a refusal; a plan (ExitPlanMode) shown as Markdown, approved for
the mode chosen, or denied with feedback; a share link shows a question and no controls."""

from __future__ import annotations

import json

from tests.conftest import anthropic_env
from tests.host.conftest import wait_for
from tests.host.remote_fixtures import remote_page  # noqa: F401 - a fixture
from tests.host.test_remote_browser import _paired, _start, browser, pytestmark  # noqa: F401

from yoke.testing import ScriptedServer

QUESTIONS = [
    {
        "question": "Which database?",
        "header": "Database",
        "multiSelect": False,
        "options": [
            {"label": "SQLite", "description": "One file"},
            {"label": "Postgres", "description": "A server"},
        ],
    },
    {
        "question": "Which platforms?",
        "header": "Platforms",
        "multiSelect": True,
        "options": [
            {"label": "Linux", "description": ""},
            {"label": "macOS", "description": ""},
            {"label": "Windows", "description": ""},
        ],
    },
]


def _ask(questions=QUESTIONS) -> dict:
    return {
        "content": [
            {"type": "text", "text": "a question first"},
            {
                "type": "tool_use",
                "id": "toolu_q",
                "name": "AskUserQuestion",
                "input": {"questions": questions},
            },
        ]
    }


def _tool_result(request) -> dict:
    results = [b for b in request.body["messages"][-1]["content"] if b.get("type") == "tool_result"]
    assert results, request.body["messages"][-1]
    return results[0]


def test_answer_the_models_questions_from_the_page(host_env, project, browser, remote_page):  # noqa: F811
    turns = [_ask(), {"content": [{"type": "text", "text": "noted your answers"}]}]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "ask me")
        server = remote_page(env, project)
        page = _paired(browser, server)
        page.goto(server.url + f"s/{ident}")
        page.get_by_role("button", name="Send answers").wait_for()
        database = page.get_by_role("group", name="Database: Which database?")
        assert database.get_by_role("radio").count() == 2
        platforms = page.get_by_role("group", name="Platforms: Which platforms?")
        assert platforms.get_by_role("checkbox").count() == 3
        assert page.get_by_role("button", name="Deny").count() == 1
        # an unanswered question holds the answers back
        page.get_by_role("radio", name="Postgres").check()
        page.get_by_role("button", name="Send answers").click()
        page.get_by_text("Answer every question").wait_for()
        assert len(srv.requests) == 1
        platforms.get_by_role("checkbox", name="Linux").check()
        platforms.get_by_role("checkbox", name="Windows").check()
        page.get_by_role("button", name="Send answers").click()
        page.get_by_text("noted your answers").wait_for()
        assert page.get_by_role("button", name="Send answers").count() == 0  # withdrawn once answered
        result = _tool_result(srv.requests[1])
        text = json.dumps(result)
        assert not result.get("is_error")
        assert '\\"Which database?\\"=\\"Postgres\\"' in text, text
        assert '\\"Which platforms?\\"=\\"Linux, Windows\\"' in text, text


def test_an_answer_of_ones_own_and_a_refusal(host_env, project, browser, remote_page):  # noqa: F811
    turns = [
        _ask(QUESTIONS[:1]),
        _ask(QUESTIONS[:1]),
        {"content": [{"type": "text", "text": "all done"}]},
    ]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "ask twice")
        server = remote_page(env, project)
        page = _paired(browser, server)
        page.goto(server.url + f"s/{ident}")
        page.get_by_role("radio", name="SQLite").check()
        page.get_by_role("textbox", name="Other").fill("DuckDB")  # replaces the option chosen
        assert not page.get_by_role("radio", name="SQLite").is_checked()
        page.get_by_role("button", name="Send answers").click()
        # the second time: Deny with feedback, which the model gets as the tool's error
        wait_for(lambda: len(srv.requests) >= 2)
        page.wait_for_function(  # the first box withdrawn, the second shown
            "document.querySelectorAll('.ask').length === 1 && document.querySelector('.ask .other').value === ''"
        )
        page.get_by_role("textbox", name="Feedback", exact=True).fill("ask me tomorrow")
        page.get_by_role("button", name="Deny").click()
        page.get_by_text("all done").wait_for()
        assert '\\"Which database?\\"=\\"DuckDB\\"' in json.dumps(_tool_result(srv.requests[1]))
        refused = _tool_result(srv.requests[2])
        assert refused.get("is_error") is True and "ask me tomorrow" in json.dumps(refused), refused


def test_approve_a_plan_from_the_page(host_env, project, browser, remote_page):  # noqa: F811
    plan = "# Plan to ship\n\n1. Write `notes.md`\n2. Run the tests"
    turns = [
        {"content": [{"type": "tool_use", "id": "toolu_p", "name": "ExitPlanMode", "input": {"plan": plan}}]},
        {"content": [{"type": "text", "text": "implementing now"}]},
    ]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "--permission-mode", "plan", "plan it")
        server = remote_page(env, project)
        page = _paired(browser, server)
        page.goto(server.url + f"s/{ident}")
        box = page.locator(".ask")
        box.get_by_role("heading", name="Plan to ship").wait_for()  # the plan as Markdown
        assert box.get_by_role("listitem").count() == 2
        assert box.locator("code").get_by_text("notes.md").count() == 1
        assert page.get_by_role("button", name="Deny").count() == 1
        assert page.get_by_label("Mode after the plan").input_value() == "default"
        page.get_by_label("Mode after the plan").select_option("acceptEdits")
        page.get_by_role("button", name="Allow", exact=True).click()
        page.get_by_text("implementing now").wait_for()
        result = _tool_result(srv.requests[1])
        assert not result.get("is_error") and "Plan to ship" in json.dumps(result), result
        # approved: the session left plan mode for the mode chosen
        page.wait_for_function("document.getElementById('mode').value === 'acceptEdits'")


def test_a_plan_denied_with_feedback_keeps_planning(host_env, project, browser, remote_page):  # noqa: F811
    turns = [
        {
            "content": [
                {"type": "tool_use", "id": "toolu_p", "name": "ExitPlanMode", "input": {"plan": "1. all"}}
            ]
        },
        {"content": [{"type": "text", "text": "revising"}]},
    ]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "--permission-mode", "plan", "plan again")
        server = remote_page(env, project)
        page = _paired(browser, server)
        page.goto(server.url + f"s/{ident}")
        page.get_by_role("textbox", name="Feedback", exact=True).fill("split step one")
        page.get_by_role("button", name="Deny").click()
        page.get_by_text("revising").wait_for()
        result = _tool_result(srv.requests[1])
        assert result.get("is_error") is True and "split step one" in json.dumps(result), result
        assert page.get_by_label("Permission mode").input_value() == "plan"


def test_a_share_link_shows_a_question_without_controls(host_env, project, browser, remote_page):  # noqa: F811
    with ScriptedServer([_ask()]) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "shared question")
        server = remote_page(env, project, ident, "--share")
        page = browser.new_context().new_page()
        page.set_default_timeout(30_000)
        page.goto(server.share)
        page.get_by_role("group", name="Database: Which database?").wait_for()
        assert page.get_by_text("Postgres — A server").count() == 1
        assert page.locator(".ask input, .ask button").count() == 0
        for name in ("Send answers", "Allow", "Deny", "Send", "Interrupt"):
            assert page.get_by_role("button", name=name).count() == 0, name
        assert len(srv.requests) == 1

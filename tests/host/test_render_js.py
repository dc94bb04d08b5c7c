"""render.js alone in Chromium: the rendering rules docs/remote.md states, message by message (the live
page and the export are tested end to end in test_remote_render.py and test_export_html.py)."""

from __future__ import annotations

from importlib import resources

import pytest
from tests.host.test_remote_browser import browser, pytestmark  # noqa: F401 - the fixture, the skip


@pytest.fixture
def show(browser):  # noqa: F811
    page = browser.new_context().new_page()
    page.set_content('<!doctype html><main><div id="stream"></div></main>')
    page.add_script_tag(content=resources.files("yoke.host").joinpath("static", "render.js").read_text())
    page.evaluate("window.view = YokeRender.stream(document.getElementById('stream'))")

    def render(*messages):
        for message in messages:
            page.evaluate("m => window.view.render(m)", message)
        return page

    yield render
    page.context.close()


def said(text: str) -> dict:
    return {"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}}


def used(ident: str, name: str, parent=None, **given) -> dict:
    block = {"type": "tool_use", "id": ident, "name": name, "input": given}
    return {"type": "assistant", "message": {"content": [block]}, "parent_tool_use_id": parent}


def answered(ident: str, content, parent=None, error=False) -> dict:
    block = {"type": "tool_result", "tool_use_id": ident, "content": content, "is_error": error}
    return {"type": "user", "message": {"content": [block]}, "parent_tool_use_id": parent}


def test_links_only_to_the_web_and_images_as_links(show):
    page = show(
        said(
            "[a](javascript:alert(1)) [b](https://ok.example/) ![pic](https://img.example/p.png) <https://c.example>"
        )
    )
    assert page.locator("a").evaluate_all("nodes => nodes.map(n => n.getAttribute('href'))") == [
        "https://ok.example/",
        "https://img.example/p.png",
        "https://c.example",
    ]
    assert page.locator("p").inner_text() == "a b pic https://c.example"  # the javascript: link is text
    assert page.locator("img").count() == 0
    assert page.locator("a").first.get_attribute("rel") == "noopener noreferrer nofollow"


def test_nested_lists_quotes_and_snake_case(show):
    page = show(said("1. one\n   - inner\n2. two\n\n> quoted *words*\n\nkeep snake_case_names plain"))
    assert page.locator("ol > li").count() == 2 and page.locator("ol li ul li").inner_text() == "inner"
    assert page.locator("blockquote em").inner_text() == "words"
    assert page.locator("em").count() == 1  # not the underscores of snake_case_names


def test_multiedit_write_long_output_and_error(show):
    many = "\n".join(f"line {i}" for i in range(30))
    page = show(
        used("m", "MultiEdit", file_path="/f.py", edits=[{"old_string": "a", "new_string": "b"},
                                                         {"old_string": "c\nd", "new_string": "d"}]),
        used("w", "Write", file_path="/n.txt", content="new one\nnew two\n"),
        used("b", "Bash", command="seq 30"),
        answered("b", many),
        used("x", "Bash", command="false"),
        answered("x", "<tool_use_error>it failed</tool_use_error>", error=True),
    )  # fmt: skip
    multi = page.locator(".tool[data-tool=MultiEdit]")
    assert multi.locator("del").all_inner_texts() == ["- a", "- c"]
    assert multi.locator("ins").all_inner_texts() == ["+ b"]
    write = page.get_by_role("group", name="New content of /n.txt")
    assert write.locator("ins").all_inner_texts() == ["+ new one", "+ new two"]
    assert page.locator(".tool[data-tool=Bash]").first.locator(".tool-summary").inner_text() == "seq 30"
    output = page.locator(".tool[data-tool=Bash]").first.locator("details")
    assert (
        output.locator("summary").inner_text() == "Output (30 lines)" and output.get_attribute("open") is None
    )
    assert not page.get_by_text("line 29").is_visible()
    error = page.locator(".tool[data-tool=Bash]").nth(1).locator("pre.result.error")
    assert error.inner_text() == "it failed"


def test_a_sub_agents_calls_nest_inside_its_agent_call(show):
    page = show(
        used("a", "Agent", description="dig", prompt="look"),
        {**said("from inside"), "parent_tool_use_id": "a"},
        used("g", "Grep", parent="a", pattern="needle"),
        answered("g", "found it", parent="a"),
        answered("a", "agent report"),
    )
    agent = page.locator("#stream > .tool[data-tool=Agent]")
    inner = agent.get_by_role("group", name="Sub-agent")
    assert inner.get_by_text("from inside").is_visible()
    assert inner.locator(".tool[data-tool=Grep] pre.result").inner_text() == "found it"
    assert agent.locator(":scope > .tool-output").inner_text() == "agent report"
    assert page.locator("#stream > .tool").count() == 1


def test_a_phone_scrolls_wide_content_inside_its_box_not_sideways(show):
    wide = "x" * 300
    table = (
        "| a | b | c | d | e | f |\n|---|---|---|---|---|---|\n| " + " | ".join(["a long cell"] * 6) + " |"
    )
    page = show(
        said(f"```\n{wide}\n```\n\n{table}\n\nhttps://example.org/{'y' * 200}"),
        used("e", "Edit", file_path="/a/" + "d" * 200, old_string=wide, new_string=wide + "z"),
        answered("e", wide),
    )
    page.add_style_tag(content=resources.files("yoke.host").joinpath("static", "style.css").read_text())
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_the_summary_line_is_not_repeated_as_input(show):
    page = show(
        used("r", "Read", file_path="/p/app.py"),
        used("g", "Grep", pattern="needle", path="/p", output_mode="content"),
    )
    assert page.locator(".tool[data-tool=Read] .tool-summary").inner_text() == "/p/app.py"
    assert page.locator(".tool[data-tool=Read] .tool-input").count() == 0
    assert page.locator(".tool[data-tool=Grep] .tool-summary").inner_text() == "needle in /p"
    assert (
        page.locator(".tool[data-tool=Grep] .tool-input").inner_text() == '{\n  "output_mode": "content"\n}'
    )


def test_turn_ends_and_compaction_are_marked(show):
    page = show(
        {"type": "system", "subtype": "compact_boundary", "compact_metadata": {"trigger": "manual"}},
        {"type": "result", "subtype": "error_max_turns", "is_error": True},
        {"type": "result", "subtype": "success", "is_error": False, "result": "ok"},
    )
    assert page.locator(".turn-end").all_inner_texts() == [
        "conversation compacted",
        "turn ended: error_max_turns",
        "turn done",
    ]


def test_an_approved_plan_shows_as_its_text_not_json(show):
    page = show(used("toolu_p", "ExitPlanMode", plan="# Plan\n1. add tests"))
    shown = page.locator("#stream").inner_text()
    assert "1. add tests" in shown and '"plan"' not in shown


def test_an_interrupt_keeps_the_text_shown_and_marks_it(show):
    """Hosted sessions stream partial messages: text shows as it arrives; an interrupted turn (a result with
    no assistant line) keeps it, marked, instead of erasing it."""

    def delta(text):
        return {"type": "stream_event", "event": {"type": "content_block_delta", "index": 0,
                                                  "delta": {"type": "text_delta", "text": text}}}  # fmt: skip

    page = show(delta("half an "), delta("answer"))
    assert page.locator(".text.live").inner_text() == "half an answer"
    show({"type": "result", "subtype": "error_during_execution", "is_error": True})
    assert page.locator(".text.interrupted").inner_text() == "half an answer"
    assert page.locator(".text.live").count() == 0
    assert page.locator(".turn-end").inner_text() == "turn ended: error_during_execution"
    # a message cut short without its text (only a tool call, or empty) leaves what streamed shown
    empty = {"type": "assistant", "message": {"content": []}}
    page = show(delta("kept "), delta("words"), empty)
    assert page.locator(".text.interrupted").all_inner_texts()[-1] == "kept words"
    page = show(delta("next"), said("next"))  # a finished answer replaces its streamed text, once
    assert page.locator(".text.md").all_inner_texts() == ["next"]

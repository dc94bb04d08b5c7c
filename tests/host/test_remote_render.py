"""The remote-control page's rendering of a live session (render.js) in Debian's Chromium, against a real host
and the scripted model server: Markdown, thinking collapsed, an Edit's diff, a sub-agent nested inside its
Agent call, and the model's HTML kept inert."""

from __future__ import annotations

from tests.conftest import anthropic_env
from tests.host.remote_fixtures import remote_page  # noqa: F401 - a fixture
from tests.host.test_remote_browser import _paired, _start, browser, pytestmark  # noqa: F401 - fixtures, skip

from yoke.testing import ScriptedServer

MARKDOWN = (
    "# Release notes\n\nThis is **bold**, `inline code` and a [link](https://example.org/docs).\n\n"
    "- first point\n- second point\n\n```python\nprint('fenced')\n```\n\n| name | value |\n|---|---|\n| alpha | 1 |"
)
HOSTILE = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'


def call(ident: str, name: str, **given) -> dict:
    return {"type": "tool_use", "id": ident, "name": name, "input": given}


def test_the_stream_renders_markdown_thinking_diffs_and_sub_agents(host_env, project, browser, remote_page):  # noqa: F811
    source = project / "app.py"
    source.write_text("x = 1\ny = 2\nz = 3\n")
    turns = [
        {"content": [{"type": "thinking", "thinking": "private musing", "signature": "sig"},
                     {"type": "text", "text": MARKDOWN}, call("r1", "Read", file_path=str(source))]},
        {"content": [call("e1", "Edit", file_path=str(source), old_string="y = 2", new_string="y = 20\ny2 = 4")]},
        {"content": [call("a1", "Agent", description="survey", prompt="CHILD job")]},
        {"content": [{"type": "text", "text": "words from the child"}]},  # the sub-agent's answer
        {"content": [{"type": "text", "text": "Done. " + HOSTILE}]},
    ]  # fmt: skip
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "render it", "--permission-mode", "bypassPermissions")
        server = remote_page(env, project)
        page = _paired(browser, server)
        page.goto(server.url + f"s/{ident}")
        page.get_by_text("Done.").wait_for()
        assert source.read_text() == "x = 1\ny = 20\ny2 = 4\nz = 3\n"
        # Markdown as elements
        assert page.get_by_role("heading", name="Release notes", level=1).is_visible()
        assert page.locator(".text strong").first.inner_text() == "bold"
        assert page.locator(".text code", has_text="inline code").is_visible()
        link = page.get_by_role("link", name="link")
        assert link.get_attribute("href") == "https://example.org/docs"
        assert page.get_by_role("list").first.get_by_role("listitem").all_inner_texts() == [
            "first point",
            "second point",
        ]
        code = page.locator("pre code.language-python")
        assert code.inner_text() == "print('fenced')" and code.is_visible()
        assert page.get_by_role("table").get_by_role("cell", name="alpha").is_visible()
        # thinking: collapsed, its text hidden until opened
        thinking = page.locator("details.thinking")
        assert thinking.get_attribute("open") is None
        assert not page.get_by_text("private musing").is_visible()
        thinking.locator("summary").click()
        assert page.get_by_text("private musing").is_visible()
        # the Edit as a line diff
        diff = page.get_by_role("group", name=f"Diff of {source}")
        assert diff.locator("del").all_inner_texts() == ["- y = 2"]
        assert diff.locator("ins").all_inner_texts() == ["+ y = 20", "+ y2 = 4"]
        # the sub-agent's text inside its Agent call, not at the top level
        agent = page.locator(".tool[data-tool=Agent]")
        assert agent.locator(".tool-summary").inner_text() == "survey"
        assert agent.get_by_role("group", name="Sub-agent").get_by_text("words from the child").is_visible()
        assert page.locator("#stream > .text", has_text="words from the child").count() == 0
        # the model's HTML is shown as text: no element made, nothing run
        assert page.get_by_text(HOSTILE).is_visible()
        assert page.locator("#stream img, #stream script").count() == 0
        assert page.evaluate("window.pwned") is None


def test_streamed_text_becomes_markdown_when_its_message_ends(host_env, project, browser, remote_page):  # noqa: F811
    streamed = {
        "content": [{"type": "text", "text": "# Streamed title\n\n" + "word " * 30 + "`done`"}],
        "delay": 0.02,
    }
    with ScriptedServer([streamed]) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "stream it", "--include-partial-messages")
        server = remote_page(env, project)
        page = _paired(browser, server)
        page.goto(server.url + f"s/{ident}")
        page.get_by_role("heading", name="Streamed title").wait_for()
        assert page.locator(".live").count() == 0  # the deltas were replaced by the whole message
        assert page.locator(".text code").inner_text() == "done"
        assert page.get_by_text("# Streamed title").count() == 0

"""`yoke export --html` (and `/export --html`, the same page): one self-contained file of a session, opened in
Debian's Chromium with every request recorded: none is made, the planted secrets are gone, the text is there."""

from __future__ import annotations

import json
import os

import pytest
from tests.conftest import anthropic_env
from tests.host.test_remote_browser import CHROMIUM, browser  # noqa: F401 - a fixture

from yoke.testing import ScriptedServer

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
KEY_BODY = "MIIEowIBAAKCAQEAplantedPrivateKeyBody"
PLANT = (
    f"printf 'aws_access_key_id = {AWS_KEY}\\n-----BEGIN RSA PRIVATE KEY-----\\n{KEY_BODY}\\n"
    "-----END RSA PRIVATE KEY-----\\nplain line\\n'"
)
HOSTILE = '<img src="https://example.invalid/x.png" onerror="window.pwned=1"><script>window.pwned=2</script>'


def call(ident: str, name: str, **given) -> dict:
    return {"type": "tool_use", "id": ident, "name": name, "input": given}


def _session(yoke, project) -> str:
    """A finished `-p` session: a Bash output holding secrets, an Edit, a sub-agent, hostile model HTML."""
    (project / "app.py").write_text("a = 1\nb = 2\n")
    turns = [
        {"content": [{"type": "text", "text": "## Plan of work\n\n```python\nprint('hi')\n```"},
                     call("b1", "Bash", command=PLANT), call("r1", "Read", file_path=str(project / "app.py"))]},
        {"content": [call("e1", "Edit", file_path=str(project / "app.py"), old_string="b = 2", new_string="b = 3")]},
        {"content": [call("a1", "Agent", description="look", prompt="CHILD job")]},
        {"content": [{"type": "text", "text": "nested child words"}]},  # the sub-agent's answer
        {"content": [{"type": "text", "text": "All finished. " + HOSTILE}]},
    ]  # fmt: skip
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "go", "--output-format", "json", "--permission-mode", "bypassPermissions",
                   env=anthropic_env(srv))  # fmt: skip
    assert run.code == 0, run.stderr
    assert (project / "app.py").read_text() == "a = 1\nb = 3\n"
    return json.loads(run.stdout)["session_id"]


def _open_recorded(browser, path):  # noqa: F811
    """The file in a fresh page; every request it tries is recorded and refused."""
    page = browser.new_context().new_page()
    page.set_default_timeout(30_000)
    tried: list[str] = []
    page.on("request", lambda request: tried.append(request.url))
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.route(
        "**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort()
    )
    page.goto(path.as_uri())
    return page, tried, errors


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="needs Debian's chromium")
def test_the_exported_file_makes_no_request_and_holds_no_secret(yoke, project, tmp_path, browser):  # noqa: F811
    ident = _session(yoke, project)
    out = tmp_path / "session.html"
    run = yoke("export", "--html", ident, "-o", str(out))
    assert run.code == 0, run.stderr
    text = out.read_text()
    assert AWS_KEY not in text and KEY_BODY not in text
    assert "[REDACTED]" in text and "plain line" in text
    assert "Content-Security-Policy" in text and "default-src 'none'" in text

    page, tried, errors = _open_recorded(browser, out)
    page.get_by_role("heading", name="Plan of work").wait_for()
    assert page.locator("pre code").first.inner_text() == "print('hi')"
    assert page.get_by_text("All finished.").is_visible()
    shown = page.locator("body").inner_text()
    assert AWS_KEY not in shown and KEY_BODY not in shown
    assert "aws_access_key_id = [REDACTED]" in shown and "plain line" in shown
    # the Edit as a line diff; the sub-agent's words inside its Agent call
    edit = page.locator(".tool[data-tool=Edit]")
    assert edit.locator("del").inner_text() == "- b = 2" and edit.locator("ins").inner_text() == "+ b = 3"
    agent = page.locator(".tool[data-tool=Agent]")
    assert agent.get_by_role("group", name="Sub-agent").get_by_text("nested child words").is_visible()
    # the model's HTML stays text, and nothing ran or loaded
    assert HOSTILE in shown
    assert page.locator("img").count() == 0 and page.evaluate("window.pwned") is None
    page.wait_for_timeout(500)  # anything late (a lazy image, a font) would be tried by now
    assert [url for url in tried if not url.startswith("file:")] == []
    assert tried == [out.as_uri()]
    assert not [e for e in errors if "Content Security Policy" in e], (
        errors
    )  # the inline script and style ran


def test_export_needs_a_known_session(yoke, project):
    run = yoke("export", "--html", "nosuchsession")
    assert run.code == 1 and "nosuchsession" in run.stderr and "Traceback" not in run.stderr
    assert yoke("export").code == 2


def test_export_as_text_to_stdout(yoke, project):
    with ScriptedServer([{"content": [{"type": "text", "text": "plain answer"}]}]) as srv:
        run = yoke("-p", "say it", "--output-format", "json", env=anthropic_env(srv))
    ident = json.loads(run.stdout)["session_id"]
    shown = yoke("export", ident[:8])
    assert shown.code == 0, shown.stderr
    assert shown.stdout == "> say it\n\n● plain answer\n"


def test_shell_commands_before_a_prompt_show_as_typed():
    from yoke.ui.export_html import session_stream

    text = "<bash-input>ls</bash-input><bash-stdout>a.txt</bash-stdout>what is in a.txt?"
    stream = session_stream([{"role": "user", "content": [{"type": "text", "text": text}]}])
    assert stream[0]["message"]["content"] == [{"type": "text", "text": "! ls\na.txt\n\nwhat is in a.txt?"}]


def test_images_are_kept_out_of_the_file():
    from yoke.ui.export_html import session_stream

    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    result = {
        "type": "tool_result",
        "tool_use_id": "r",
        "content": [image, {"type": "text", "text": "a chart"}],
    }
    stream = session_stream([{"role": "user", "content": [image, {"type": "text", "text": "see"}]},
                             {"role": "user", "content": [result]}])  # fmt: skip
    assert stream[0]["message"]["content"][0] == {"type": "image"}
    assert stream[1]["message"]["content"][0]["content"] == [
        {"type": "image"},
        {"type": "text", "text": "a chart"},
    ]

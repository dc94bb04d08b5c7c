"""WebFetch against a local HTTP server: Markdown conversion, redirects, cache, limits, small model."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from yoke.tools.base import SessionState, ToolContext, ToolError
from yoke.tools.builtin import web_fetch
from yoke.tools.builtin.web_fetch import WebFetchInput, WebFetchTool
from yoke.tools.web import fetch as fetch_module
from yoke.tools.web.fetch import normalize_url, same_site
from yoke.tools.web.markdown import html_to_markdown

PAGE = b"""<!doctype html><html><head><title>Docs</title><script>var hidden = 1;</script></head>
<body><h1>Install guide</h1>
<p>Run <code>pip install yoke</code> then read <a href="/next">the next page</a>.</p>
<ul><li>fast</li><li>small</li></ul></body></html>"""


class Handler(BaseHTTPRequestHandler):
    hits: dict[str, int] = {}

    def log_message(self, format, *args):  # keep test output quiet
        pass

    def do_GET(self):
        Handler.hits[self.path] = Handler.hits.get(self.path, 0) + 1
        port = self.server.server_address[1]
        if self.path in ("/page", "/counted"):
            self._send(200, "text/html; charset=utf-8", PAGE)
        elif self.path == "/same-redirect":
            self._redirect(302, "/page")
        elif self.path == "/cross-redirect":
            self._redirect(301, f"http://localhost:{port}/page")
        elif self.path == "/text":
            self._send(200, "text/plain", b"plain words\nsecond line\n")
        elif self.path == "/binary":
            self._send(200, "application/octet-stream", bytes(range(256)))
        elif self.path == "/long":
            self._send(200, "text/plain", b"x" * 5000)
        elif self.path == "/long-unsized":  # no Content-Length: the limit must hold while streaming
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"y" * 5000)
        else:
            self._send(404, "text/plain", b"nope")

    def _send(self, code: int, content_type: str, body: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, code: int, location: str) -> None:
        self.send_response(code)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, session=SessionState("web", tmp_path / "session"))


async def fetch(ctx: ToolContext, url: str, prompt: str = "Summarize", **kwargs):
    return await WebFetchTool().run(WebFetchInput(url=url, prompt=prompt, **kwargs), ctx)


async def test_html_page_becomes_markdown(server, ctx):
    result = await fetch(ctx, f"{server}/page", prompt="How do I install it?")
    assert "# Install guide" in result.content
    assert f"[the next page]({server}/next)" in result.content
    assert "`pip install yoke`" in result.content and "- fast\n- small" in result.content
    assert "hidden" not in result.content
    assert "How do I install it?" in result.content  # echoed: no small model to apply it
    assert result.data["code"] == 200 and result.data["codeText"] == "OK"
    assert result.data["bytes"] == len(PAGE)
    assert result.data["url"] == f"{server}/page"
    assert result.data["result"] == result.content


async def test_same_host_redirect_is_followed(server, ctx):
    result = await fetch(ctx, f"{server}/same-redirect")
    assert "# Install guide" in result.content
    assert result.data["code"] == 200


async def test_cross_host_redirect_is_reported_not_followed(server, ctx):
    Handler.hits.pop("/page", None)
    result = await fetch(ctx, f"{server}/cross-redirect")
    port = server.rsplit(":", 1)[1]
    assert f"Redirect URL: http://localhost:{port}/page" in result.content
    assert result.data["code"] == 301
    assert "/page" not in Handler.hits
    assert not result.is_error


async def test_repeat_fetch_comes_from_cache(server, ctx):
    Handler.hits.pop("/counted", None)
    first = await fetch(ctx, f"{server}/counted")
    second = await fetch(ctx, f"{server}/counted", prompt="Another question")
    assert Handler.hits["/counted"] == 1
    assert "# Install guide" in second.content and first.data["bytes"] == second.data["bytes"]


async def test_small_model_processes_page_with_prompt(server, ctx):
    seen = {}

    async def summarize(prompt: str, text: str) -> str:
        seen["prompt"], seen["text"] = prompt, text
        return "It installs with pip."

    ctx.session.services.small_model = summarize
    result = await fetch(ctx, f"{server}/page", prompt="How to install?")
    assert result.content == "It installs with pip."
    assert seen["prompt"] == "How to install?" and "# Install guide" in seen["text"]


async def test_plain_text_and_binary(server, ctx):
    text = await fetch(ctx, f"{server}/text")
    assert "plain words\nsecond line" in text.content
    binary = await fetch(ctx, f"{server}/binary")
    assert "Binary content of type application/octet-stream, 256 bytes" in binary.content


async def test_http_error_is_a_tool_error(server, ctx):
    with pytest.raises(ToolError, match="404"):
        await fetch(ctx, f"{server}/missing")


async def test_size_limit(server, ctx, monkeypatch):
    monkeypatch.setattr(fetch_module, "MAX_BYTES", 1000)
    with pytest.raises(ToolError, match="over the 1000 bytes limit"):
        await fetch(ctx, f"{server}/long")
    with pytest.raises(ToolError, match="larger than the 1000 bytes limit"):
        await fetch(ctx, f"{server}/long-unsized")


async def test_long_page_is_truncated_with_offset_to_continue(server, ctx, monkeypatch):
    monkeypatch.setattr(web_fetch, "MAX_MARKDOWN_CHARS", 2000)
    first = await fetch(ctx, f"{server}/long")
    assert "offset=2000" in first.content and first.content.count("x") == 2000
    rest = await fetch(ctx, f"{server}/long", offset=4000)
    assert rest.content.count("x") == 1000 and "truncated" not in rest.content


async def test_unreachable_host_is_a_tool_error(ctx):
    with pytest.raises(ToolError, match="Could not fetch"):
        await fetch(ctx, "http://127.0.0.1:9/nothing-listens-here")


def test_url_rules():
    assert normalize_url("http://example.com/a") == "https://example.com/a"
    assert normalize_url("http://127.0.0.1:8080/a") == "http://127.0.0.1:8080/a"
    assert normalize_url("http://localhost/a") == "http://localhost/a"
    for bad in ("ftp://example.com", "example.com", "https://user:pw@example.com/"):
        with pytest.raises(ToolError):
            normalize_url(bad)
    assert same_site("https://example.com/a", "https://www.example.com/b")
    assert same_site("http://example.com/a", "https://example.com/a")
    assert not same_site("https://example.com/a", "http://example.com/a")
    assert not same_site("https://example.com/a", "https://evil.com/a")
    assert not same_site("http://127.0.0.1:1/a", "http://127.0.0.1:2/a")


def test_markdown_structures():
    html = """<h2>T</h2><ol><li>a</li><li>b</li></ol><pre>x  =  1\n  y</pre>
    <blockquote><p>q</p></blockquote><table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>
    <p>a&amp;b <strong>s</strong> <em>e</em> <img src="/i.png" alt="pic"></p>"""
    md = html_to_markdown(html, "https://h/")
    assert "## T" in md and "1. a\n2. b" in md
    assert "```\nx  =  1\n  y\n```" in md
    assert "> q" in md
    assert "| A | B |\n|---|---|\n| 1 | 2 |" in md
    assert "a&b **s** *e* ![pic](https://h/i.png)" in md

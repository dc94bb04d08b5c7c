"""WebSearch against local fakes of the Brave, Tavily and SearXNG APIs."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from yoke.tools.base import SessionState, ToolContext, ToolError
from yoke.tools.builtin.web_search import WebSearchInput, WebSearchTool

RESULTS = [
    ("Python docs", "https://docs.python.org/3/library/asyncio.html", "asyncio is a library"),
    ("Blog post", "https://blog.example.com/asyncio", "A post about asyncio"),
    ("Spam", "https://spam.test/asyncio", "buy things"),
]


class FakeSearch(BaseHTTPRequestHandler):
    requests: list[dict] = []

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        FakeSearch.requests.append({"path": parts.path, "query": query, "headers": dict(self.headers)})
        if parts.path == "/brave":
            if self.headers.get("X-Subscription-Token") != "brave-key":
                return self._json(401, {"error": "bad key"})
            results = [{"title": t, "url": u, "description": d} for t, u, d in RESULTS]
            return self._json(200, {"web": {"results": results}})
        if parts.path == "/searx/search" and query.get("format") == "json":
            return self._json(200, {"results": [{"title": t, "url": u, "content": d} for t, u, d in RESULTS]})
        self._json(404, {})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeSearch.requests.append({"path": self.path, "body": body, "headers": dict(self.headers)})
        if self.path == "/tavily" and self.headers.get("Authorization") == "Bearer tavily-key":
            hits = [{"title": t, "url": u, "content": d} for t, u, d in RESULTS]
            return self._json(200, {"results": hits})
        self._json(403, {})

    def _json(self, code: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeSearch)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ("BRAVE_API_KEY", "TAVILY_API_KEY", "SEARXNG_URL", "YOKE_WEB_SEARCH_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    FakeSearch.requests.clear()


def make_ctx(tmp_path: Path, env: dict[str, str]) -> ToolContext:
    return ToolContext(
        cwd=tmp_path, session=SessionState("s", tmp_path / "s"), env=env, tool_use_id="toolu_1"
    )


async def search(ctx: ToolContext, **kwargs):
    return await WebSearchTool().run(WebSearchInput.model_validate(kwargs), ctx)


async def test_brave_backend(server, tmp_path):
    ctx = make_ctx(tmp_path, {"BRAVE_API_KEY": "brave-key", "BRAVE_SEARCH_URL": f"{server}/brave"})
    result = await search(ctx, query="python asyncio")
    assert result.content.startswith('Web search results for query: "python asyncio"')
    assert "1. [Python docs](https://docs.python.org/3/library/asyncio.html)" in result.content
    assert "asyncio is a library" in result.content and "Sources:" in result.content
    links = result.data["results"][0]["content"]
    assert [link["title"] for link in links] == ["Python docs", "Blog post", "Spam"]
    assert result.data["results"][0]["tool_use_id"] == "toolu_1"
    assert FakeSearch.requests[0]["query"]["q"] == "python asyncio"


async def test_brave_blocked_domains_sent_and_enforced(server, tmp_path):
    ctx = make_ctx(tmp_path, {"BRAVE_API_KEY": "brave-key", "BRAVE_SEARCH_URL": f"{server}/brave"})
    result = await search(ctx, query="asyncio", blocked_domains=["spam.test"])
    assert "-site:spam.test" in FakeSearch.requests[0]["query"]["q"]
    assert "spam.test" not in json.dumps(result.data)


async def test_allowed_domains_keep_subdomains_only(server, tmp_path):
    ctx = make_ctx(tmp_path, {"SEARXNG_URL": f"{server}/searx"})
    result = await search(ctx, query="asyncio", allowed_domains=["python.org"])
    assert [link["url"] for link in result.data["results"][0]["content"]] == [RESULTS[0][1]]
    assert "site:python.org" in FakeSearch.requests[0]["query"]["q"]


async def test_tavily_backend_passes_domain_lists(server, tmp_path):
    env = {"TAVILY_API_KEY": "tavily-key", "TAVILY_SEARCH_URL": f"{server}/tavily"}
    result = await search(make_ctx(tmp_path, env), query="asyncio", blocked_domains=["example.com"])
    assert FakeSearch.requests[0]["body"]["exclude_domains"] == ["example.com"]
    urls = [link["url"] for link in result.data["results"][0]["content"]]
    assert urls == [RESULTS[0][1], RESULTS[2][1]]  # blog.example.com is a subdomain of example.com


async def test_backend_choice_when_several_configured(server, tmp_path):
    env = {
        "BRAVE_API_KEY": "brave-key",
        "BRAVE_SEARCH_URL": f"{server}/brave",
        "SEARXNG_URL": f"{server}/searx",
        "YOKE_WEB_SEARCH_BACKEND": "searxng",
    }
    await search(make_ctx(tmp_path, env), query="asyncio")
    assert FakeSearch.requests[0]["path"] == "/searx/search"


async def test_bad_api_key_is_reported(server, tmp_path):
    ctx = make_ctx(tmp_path, {"BRAVE_API_KEY": "wrong", "BRAVE_SEARCH_URL": f"{server}/brave"})
    with pytest.raises(ToolError, match="refused the API key"):
        await search(ctx, query="asyncio")


async def test_no_backend_names_the_settings(tmp_path):
    with pytest.raises(ToolError) as info:
        await search(make_ctx(tmp_path, {}), query="asyncio")
    for name in ("BRAVE_API_KEY", "TAVILY_API_KEY", "SEARXNG_URL"):
        assert name in str(info.value)


async def test_allowed_and_blocked_together_refused(tmp_path):
    with pytest.raises(ToolError, match="not both"):
        await search(make_ctx(tmp_path, {"SEARXNG_URL": "http://127.0.0.1:9"}), query="q x",
                     allowed_domains=["a.com"], blocked_domains=["b.com"])  # fmt: skip

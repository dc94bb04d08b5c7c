"""Web search back-ends for WebSearch: Brave, Tavily and SearXNG, chosen from the environment.

Each back-end turns a query (with optional domain limits) into a list of hits. Base URLs can be overridden
(for tests and self-hosted gateways); domain limits are passed to the service where it supports them and
always enforced again on the results.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

from yoke.tools.base import ToolError

BRAVE_URL = "https://api.search.brave.com/res/v1/web/search"
TAVILY_URL = "https://api.tavily.com/search"
SEARCH_TIMEOUT_S = 20.0
MAX_RESULTS = 10
CONFIG_HELP = (
    "Web search is not configured. Set BRAVE_API_KEY (Brave Search), TAVILY_API_KEY (Tavily) or SEARXNG_URL "
    "(a SearXNG instance with JSON output enabled); YOKE_WEB_SEARCH_BACKEND picks one when several are set."
)


@dataclass(slots=True, frozen=True)
class SearchHit:
    title: str
    url: str
    snippet: str = ""


@dataclass(slots=True, frozen=True)
class DomainLimits:
    allowed: tuple[str, ...] = ()
    blocked: tuple[str, ...] = ()

    def permits(self, url: str) -> bool:
        host = (urlsplit(url).hostname or "").lower()
        if self.allowed and not any(_on_domain(host, d) for d in self.allowed):
            return False
        return not any(_on_domain(host, d) for d in self.blocked)

    def site_operators(self) -> str:
        """Query operators for engines that understand `site:`."""
        if self.allowed:
            return " (" + " OR ".join(f"site:{d}" for d in self.allowed) + ")"
        return "".join(f" -site:{d}" for d in self.blocked)


def _on_domain(host: str, domain: str) -> bool:
    domain = domain.lower().strip().removeprefix("*.").strip(".")
    return host == domain or host.endswith("." + domain)


class SearchBackend(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def endpoint(self) -> str:
        """Where the back-end's requests go (proxies are skipped for a loopback one)."""
        ...

    async def search(self, client: Any, query: str, limits: DomainLimits) -> list[SearchHit]: ...


@dataclass(slots=True, frozen=True)
class BraveBackend:
    api_key: str
    url: str = BRAVE_URL
    name: str = "brave"

    @property
    def endpoint(self) -> str:
        return self.url

    async def search(self, client: Any, query: str, limits: DomainLimits) -> list[SearchHit]:
        headers = {"X-Subscription-Token": self.api_key, "Accept": "application/json"}
        params = {"q": query + limits.site_operators(), "count": str(MAX_RESULTS)}
        payload = await _get_json(client, "GET", self.url, headers=headers, params=params)
        results = (payload.get("web") or {}).get("results") or []
        return [_hit(r.get("title"), r.get("url"), r.get("description")) for r in results]


@dataclass(slots=True, frozen=True)
class TavilyBackend:
    api_key: str
    url: str = TAVILY_URL
    name: str = "tavily"

    @property
    def endpoint(self) -> str:
        return self.url

    async def search(self, client: Any, query: str, limits: DomainLimits) -> list[SearchHit]:
        body: dict[str, Any] = {"query": query, "max_results": MAX_RESULTS}
        if limits.allowed:
            body["include_domains"] = list(limits.allowed)
        if limits.blocked:
            body["exclude_domains"] = list(limits.blocked)
        headers = {"Authorization": f"Bearer {self.api_key}"}
        payload = await _get_json(client, "POST", self.url, headers=headers, json=body)
        return [_hit(r.get("title"), r.get("url"), r.get("content")) for r in payload.get("results") or []]


@dataclass(slots=True, frozen=True)
class SearxngBackend:
    base_url: str
    name: str = "searxng"

    @property
    def endpoint(self) -> str:
        return self.base_url

    async def search(self, client: Any, query: str, limits: DomainLimits) -> list[SearchHit]:
        url = self.base_url.rstrip("/") + "/search"
        params = {"q": query + limits.site_operators(), "format": "json"}
        payload = await _get_json(client, "GET", url, params=params)
        return [_hit(r.get("title"), r.get("url"), r.get("content")) for r in payload.get("results") or []]


def _hit(title: Any, url: Any, snippet: Any) -> SearchHit:
    return SearchHit(str(title or url or ""), str(url or ""), str(snippet or ""))


async def _get_json(client: Any, method: str, url: str, **kwargs: Any) -> dict[str, Any]:
    import httpx

    try:
        response = await client.request(method, url, **kwargs)
    except httpx.HTTPError as exc:
        raise ToolError(f"The search service at {url} could not be reached: {exc}") from exc
    if response.status_code in (401, 403):
        raise ToolError(f"The search service refused the API key (HTTP {response.status_code}); check it.")
    if response.status_code >= 400:
        raise ToolError(f"The search service answered HTTP {response.status_code}: {response.text[:200]}")
    try:
        payload = response.json()
    except ValueError as exc:
        raise ToolError(f"The search service at {url} did not answer with JSON.") from exc
    return payload if isinstance(payload, dict) else {}


def choose_backend(env: dict[str, str]) -> SearchBackend:
    """The back-end the environment configures; YOKE_WEB_SEARCH_BACKEND picks among several."""
    available: dict[str, SearchBackend] = {}
    if env.get("BRAVE_API_KEY"):
        available["brave"] = BraveBackend(env["BRAVE_API_KEY"], env.get("BRAVE_SEARCH_URL") or BRAVE_URL)
    if env.get("TAVILY_API_KEY"):
        available["tavily"] = TavilyBackend(env["TAVILY_API_KEY"], env.get("TAVILY_SEARCH_URL") or TAVILY_URL)
    if env.get("SEARXNG_URL"):
        available["searxng"] = SearxngBackend(env["SEARXNG_URL"])
    wanted = env.get("YOKE_WEB_SEARCH_BACKEND", "").strip().lower()
    if wanted:
        if wanted not in available:
            raise ToolError(f"YOKE_WEB_SEARCH_BACKEND={wanted!r} is not configured. {CONFIG_HELP}")
        return available[wanted]
    if not available:
        raise ToolError(CONFIG_HELP)
    return next(iter(available.values()))


async def run_search(backend: SearchBackend, query: str, limits: DomainLimits) -> list[SearchHit]:
    import httpx

    from yoke.tools.web.fetch import is_loopback

    trust_env = not is_loopback(urlsplit(backend.endpoint).hostname)  # proxies are for the outside world
    async with httpx.AsyncClient(timeout=SEARCH_TIMEOUT_S, trust_env=trust_env) as client:
        hits = await backend.search(client, query, limits)
    seen: set[str] = set()
    kept = []
    for hit in hits:
        if hit.url and hit.url not in seen and limits.permits(hit.url):
            seen.add(hit.url)
            kept.append(hit)
    return kept[:MAX_RESULTS]

"""HTTP GET for WebFetch: https upgrade, same-site redirects only, a size limit, a short cache."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from email.message import Message
from http import HTTPStatus
from urllib.parse import urljoin, urlsplit, urlunsplit

from yoke.tools.base import ToolError

MAX_BYTES = 10 * 1024 * 1024
TIMEOUT_S = 30.0
MAX_REDIRECTS = 10
CACHE_TTL_S = 15 * 60
CACHE_MAX_ENTRIES = 64
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
USER_AGENT = "Yoke-WebFetch/0.1"


@dataclass(slots=True, frozen=True)
class FetchedPage:
    url: str  # where the content finally came from
    code: int
    code_text: str
    content_type: str
    body: bytes

    def text(self) -> str:
        message = Message()
        message["content-type"] = self.content_type or "text/plain"
        charset = message.get_content_charset() or "utf-8"
        try:
            return self.body.decode(charset, errors="replace")
        except LookupError:
            return self.body.decode("utf-8", errors="replace")


@dataclass(slots=True, frozen=True)
class CrossHostRedirect:
    url: str
    location: str
    code: int
    code_text: str


def normalize_url(url: str) -> str:
    """A fetchable URL: http(s) only, no credentials, http upgraded to https except on this machine."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ToolError(f"Invalid URL {url!r}: give a full http:// or https:// address.")
    if parts.username or parts.password:
        raise ToolError("URLs with a user name or password are not fetched.")
    if parts.scheme == "http" and not is_loopback(parts.hostname):
        parts = parts._replace(scheme="https")
    return urlunsplit(parts)


def is_loopback(host: str | None) -> bool:
    host = (host or "").lower().strip("[]")
    return host in LOOPBACK_HOSTS or host.endswith(".localhost")


def same_site(url: str, target: str) -> bool:
    """Whether a redirect stays on the same site: same host (a `www.` prefix aside) and port, scheme kept or
    upgraded to https, no credentials."""
    a, b = urlsplit(url), urlsplit(target)
    if b.username or b.password or b.scheme not in ("http", "https"):
        return False
    if a.scheme == "https" and b.scheme == "http":
        return False

    def host(h: str | None) -> str:
        return (h or "").lower().removeprefix("www.")

    return host(a.hostname) == host(b.hostname) and a.port == b.port


async def fetch(
    url: str, *, timeout_s: float | None = None, max_bytes: int | None = None
) -> FetchedPage | CrossHostRedirect:
    """GET `url`, following redirects that stay on the same site and reporting any that leave it."""
    import httpx

    timeout_s = timeout_s or TIMEOUT_S
    max_bytes = max_bytes or MAX_BYTES
    headers = {"User-Agent": USER_AGENT, "Accept": "text/markdown, text/html;q=0.9, */*;q=0.8"}
    # Proxy settings are for the outside world; a loopback address must be reached directly.
    trust_env = not is_loopback(urlsplit(url).hostname)
    async with httpx.AsyncClient(timeout=timeout_s, follow_redirects=False, trust_env=trust_env) as client:
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            try:
                async with client.stream("GET", current, headers=headers) as response:
                    location = response.headers.get("location")
                    if response.status_code in REDIRECT_CODES and location:
                        target = urljoin(current, location)
                        if not same_site(current, target):
                            return CrossHostRedirect(url, target, response.status_code, _reason(response))
                        current = target
                        continue
                    body = await _read_limited(response, max_bytes)
                    content_type = response.headers.get("content-type", "")
                    return FetchedPage(current, response.status_code, _reason(response), content_type, body)
            except httpx.TimeoutException as exc:
                raise ToolError(f"Fetching {current} timed out after {timeout_s:g}s.") from exc
            except httpx.HTTPError as exc:
                raise ToolError(f"Could not fetch {current}: {exc}") from exc
    raise ToolError(f"Too many redirects (more than {MAX_REDIRECTS}) starting at {url}.")


async def _read_limited(response, max_bytes: int) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise ToolError(f"The page is {int(declared)} bytes, over the {_size_text(max_bytes)} limit.")
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > max_bytes:
            raise ToolError(f"The page is larger than the {_size_text(max_bytes)} limit.")
        chunks.append(chunk)
    return b"".join(chunks)


def _size_text(n: int) -> str:
    return f"{n // (1024 * 1024)} MB" if n >= 1024 * 1024 else f"{n} bytes"


def _reason(response) -> str:
    if response.reason_phrase:
        return response.reason_phrase
    try:
        return HTTPStatus(response.status_code).phrase
    except ValueError:
        return ""


@dataclass(slots=True, frozen=True)
class CachedPage:
    url: str
    code: int
    code_text: str
    bytes: int
    markdown: str


@dataclass
class PageCache:
    """Recently fetched pages by URL, kept for 15 minutes (the session holds one)."""

    ttl_s: float = CACHE_TTL_S
    max_entries: int = CACHE_MAX_ENTRIES
    _entries: dict[str, tuple[float, CachedPage]] = field(default_factory=dict)

    def get(self, url: str) -> CachedPage | None:
        entry = self._entries.get(url)
        if entry is None:
            return None
        stored_at, page = entry
        if time.monotonic() - stored_at > self.ttl_s:
            del self._entries[url]
            return None
        return page

    def put(self, url: str, page: CachedPage) -> None:
        if len(self._entries) >= self.max_entries:
            oldest = min(self._entries, key=lambda key: self._entries[key][0])
            del self._entries[oldest]
        self._entries[url] = (time.monotonic(), page)

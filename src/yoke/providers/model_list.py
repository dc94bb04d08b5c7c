"""The models a provider serves, asked of its model-list endpoint (for `yoke doctor`).

Anthropic: `GET {base}/v1/models` (paged by `after_id`); OpenAI, any OpenAI-compatible server and xAI:
`GET {base}/models`; Gemini: `GET {base}/models` (paged by `pageToken`, names `models/ID`). The cloud
platforms (Bedrock, Vertex, Foundry) and the replay provider are not asked. Every wait is bounded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from yoke.jsonsafe import loads as safe_json

DEFAULT_BASES = {
    "anthropic": "https://api.anthropic.com",
    "openai": "https://api.openai.com/v1",
    "openai-responses": "https://api.openai.com/v1",
    "grok": "https://api.x.ai/v1",
    "gemini": "https://generativelanguage.googleapis.com/v1beta",
}
MAX_PAGES = 20
TIMEOUT_S = 15.0


class ModelListError(Exception):
    """The list could not be had; the message is one line that says why."""


def listable(provider: str) -> bool:
    return provider in DEFAULT_BASES


def served_models(provider: str, base_url: str | None, env: Mapping[str, str]) -> list[str]:
    """The model ids `provider` serves, or ModelListError."""
    base = (base_url or DEFAULT_BASES[provider]).rstrip("/")
    if provider == "anthropic":
        return _paged(f"{base}/v1/models", _anthropic_headers(env), _anthropic_page)
    if provider == "gemini":
        key = env.get("GEMINI_API_KEY") or env.get("GOOGLE_API_KEY") or ""
        return _paged(f"{base}/models", {"x-goog-api-key": key} if key else {}, _gemini_page)
    bearer = (
        env.get("XAI_API_KEY") or env.get("GROK_API_KEY") if provider == "grok" else env.get("OPENAI_API_KEY")
    )
    headers = {"authorization": f"Bearer {bearer}"} if bearer else {}
    return _paged(f"{base}/models", headers, _openai_page)


def _anthropic_headers(env: Mapping[str, str]) -> dict[str, str]:
    headers = {"anthropic-version": "2023-06-01"}
    if env.get("ANTHROPIC_API_KEY"):
        headers["x-api-key"] = env["ANTHROPIC_API_KEY"]
    elif env.get("ANTHROPIC_AUTH_TOKEN"):
        headers["authorization"] = f"Bearer {env['ANTHROPIC_AUTH_TOKEN']}"
    return headers


def _anthropic_page(body: dict[str, Any]) -> tuple[list[str], dict[str, str] | None]:
    ids = [m["id"] for m in body.get("data") or () if isinstance(m, dict) and m.get("id")]
    more = body.get("has_more") and body.get("last_id")
    return ids, {"after_id": str(body["last_id"])} if more else None


def _openai_page(body: dict[str, Any]) -> tuple[list[str], dict[str, str] | None]:
    return [m["id"] for m in body.get("data") or () if isinstance(m, dict) and m.get("id")], None


def _gemini_page(body: dict[str, Any]) -> tuple[list[str], dict[str, str] | None]:
    ids = [
        str(m["name"]).removeprefix("models/")
        for m in body.get("models") or ()
        if isinstance(m, dict) and m.get("name")
    ]
    token = body.get("nextPageToken")
    return ids, {"pageToken": str(token)} if token else None


def _paged(url: str, headers: dict[str, str], page: Any) -> list[str]:
    from urllib.parse import urlencode

    found: list[str] = []
    query: dict[str, str] | None = {}
    for _ in range(MAX_PAGES):
        ids, query = page(_get(f"{url}?{urlencode(query)}" if query else url, headers))
        found.extend(ids)
        if not query:
            break
    return found


def _get(url: str, headers: dict[str, str]) -> dict[str, Any]:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, headers={"accept": "application/json", **headers})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:  # noqa: S310 - a configured URL
            data = safe_json(response.read(4_000_000).decode("utf-8", errors="replace"))
    except urllib.error.HTTPError as exc:
        raise ModelListError(f"{url} answered {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ModelListError(f"cannot reach {url}: {reason}") from None
    except ValueError:
        raise ModelListError(f"{url} did not answer JSON") from None
    if not isinstance(data, dict):
        raise ModelListError(f"{url} answered something other than a model list")
    return data

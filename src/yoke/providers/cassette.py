"""Cassettes: every model exchange of a run, as JSONL, for offline replay.

Line 1 is a header `{"type": "cassette", "version": 1, "provider": "anthropic" | "openai" | "gemini" |
"openai-responses" | …, "model": …}`;
each later line is one exchange `{"type": "exchange", "request": {"path", "stream", "body"},
"response": {"status", "headers", "events": [[event, data], …] | "body": text}}`. Credentials and request
headers are never written, so a cassette can be attached to a bug report.

Recording and replay both sit at the transport seam (`yoke.providers.transport`), below the wire parsing,
so a replayed run exercises exactly the code a live run does.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from yoke.jsonsafe import loads as safe_json
from yoke.providers.base import ProviderError
from yoke.providers.sse import SSEEvent
from yoke.providers.transport import HttpRequest, HttpResponse, Transport

KEPT_HEADERS = ("content-type", "retry-after", "request-id", "x-request-id")


class RecordingTransport:
    """Passes every exchange through to the real transport and appends it to the cassette."""

    def __init__(
        self, inner: Transport, path: Path, provider: str, model: str = "", max_retries: int | None = None
    ):
        self.inner = inner
        self.path = path
        self.provider = provider
        self.model = model
        self.max_retries = max_retries  # replay retries as often as the recorded run did
        self._fh: Any = None

    def _write(self, record: dict[str, Any]) -> None:
        if self._fh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.path, "w", encoding="utf-8")  # noqa: SIM115 - held for the run
            header = {
                "type": "cassette",
                "version": 1,
                "provider": self.provider,
                "model": self.model,
                "created": datetime.now(UTC).isoformat(timespec="seconds"),
            }
            if self.max_retries is not None:
                header["max_retries"] = self.max_retries
            self._fh.write(json.dumps(header) + "\n")
        self._fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._fh.flush()

    async def send(self, request: HttpRequest) -> HttpResponse:
        response = await self.inner.send(request)
        req = {"path": urlparse(request.url).path, "stream": request.stream, "body": request.body}
        head = {k: v for k, v in response.headers.items() if k in KEPT_HEADERS}
        if response.events is None:
            self._write(
                {
                    "type": "exchange",
                    "request": req,
                    "response": {"status": response.status, "headers": head, "body": response.text()},
                }
            )
            return response
        response.events = self._tee(response.events, req, response.status, head)
        return response

    async def _tee(
        self, events: AsyncGenerator[SSEEvent, None], req: dict[str, Any], status: int, head: dict[str, str]
    ) -> AsyncGenerator[SSEEvent, None]:
        seen: list[list[str]] = []
        complete = False
        try:
            async for event in events:
                seen.append([event.event, event.data])
                yield event
            complete = True
        finally:
            response: dict[str, Any] = {"status": status, "headers": head, "events": seen}
            if not complete:
                response["cut"] = True  # replays as a stream that breaks off here
            self._write({"type": "exchange", "request": req, "response": response})

    async def aclose(self) -> None:
        await self.inner.aclose()
        if self._fh is not None:
            self._fh.close()
            self._fh = None


class Cassette:
    def __init__(self, path: Path):
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise ProviderError("config", f"cannot read cassette {path}: {exc.strerror or exc}") from None
        records = []
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                records.append(safe_json(line))
            except ValueError:
                raise ProviderError("config", f"cassette {path} line {n} is not valid JSON") from None
        if not records or records[0].get("type") != "cassette":
            raise ProviderError(
                "config", f"{path} is not a Yoke cassette (its first line has no cassette header)"
            )
        self.path = path
        self.header: dict[str, Any] = records[0]
        self.exchanges: list[dict[str, Any]] = [r for r in records[1:] if r.get("type") == "exchange"]

    @property
    def provider(self) -> str:
        return str(self.header.get("provider") or "anthropic")

    @property
    def model(self) -> str:
        return str(self.header.get("model") or "")


class ReplayTransport:
    """Answers each request with the next recorded exchange, after checking the conversation matches."""

    def __init__(self, cassette: Cassette):
        self.cassette = cassette
        self.position = 0

    async def send(self, request: HttpRequest) -> HttpResponse:
        exchanges = self.cassette.exchanges
        if self.position >= len(exchanges):
            raise ProviderError(
                "replay_mismatch",
                f"replay diverged: request {self.position + 1} has no recording "
                f"({self.cassette.path} holds {len(exchanges)} exchanges)",
            )
        recorded = exchanges[self.position]
        self.position += 1
        problem = diverges(recorded["request"].get("body") or {}, request.body)
        if problem:
            raise ProviderError(
                "replay_mismatch",
                f"replay diverged at request {self.position}: {problem} ({self.cassette.path})",
            )
        resp = recorded["response"]
        headers = dict(resp.get("headers") or {})
        if "events" not in resp:
            return HttpResponse(int(resp["status"]), headers, body=str(resp.get("body", "")).encode())
        return HttpResponse(int(resp["status"]), headers, events=_replay_events(resp))

    async def aclose(self) -> None:
        return None


async def _replay_events(resp: dict[str, Any]) -> AsyncGenerator[SSEEvent, None]:
    from yoke.providers.transport import StreamInterrupted

    for event, data in resp["events"]:
        yield SSEEvent(event, data)
    if resp.get("cut"):
        raise StreamInterrupted("the recorded stream broke off here")


def conversation_shape(body: dict[str, Any]) -> list[str]:
    """What must match for a replay to be faithful: each message's role, the prompts the user typed, and
    every tool call and result by id (by name for Gemini, whose calls have no ids). Tool output text may
    differ (paths, timings) and is not compared."""
    if isinstance(body.get("contents"), list):
        return _gemini_shape(body["contents"])
    if isinstance(body.get("input"), list):
        return _responses_shape(body["input"])
    shape: list[str] = []
    for message in body.get("messages") or []:
        role = message.get("role", "?")
        content = message.get("content")
        prompt = _prompt_text(content) if role == "user" else None
        if prompt is not None:
            shape.append(f"user: {prompt.strip()[:200]!r}")
            continue
        parts = [role]
        if isinstance(content, list):
            for block in content:
                kind = block.get("type")
                if kind == "tool_use":
                    parts.append(f"tool_use {block.get('name')} {block.get('id')}")
                elif kind == "tool_result":
                    parts.append(f"tool_result {block.get('tool_use_id')}")
        for call in message.get("tool_calls") or []:  # OpenAI wire format
            parts.append(f"tool_use {call.get('function', {}).get('name')} {call.get('id')}")
        if message.get("tool_call_id"):
            parts.append(f"tool_result {message['tool_call_id']}")
        if role != "system":
            shape.append(" ".join(parts))
    return shape


def _gemini_shape(contents: list[Any]) -> list[str]:
    shape = []
    for content in contents:
        parts = [p for p in content.get("parts") or [] if isinstance(p, dict)]
        role = "assistant" if content.get("role") == "model" else "user"
        if role == "user" and parts and all("text" in p for p in parts):
            shape.append(f"user: {''.join(p['text'] for p in parts).strip()[:200]!r}")
            continue
        words = [role]
        for part in parts:
            if "functionCall" in part:
                words.append(f"tool_use {part['functionCall'].get('name')}")
            elif "functionResponse" in part:
                words.append(f"tool_result {part['functionResponse'].get('name')}")
        shape.append(" ".join(words))
    return shape


def _responses_shape(items: list[Any]) -> list[str]:
    shape = []
    for item in items:
        kind = item.get("type") or "message"
        if kind == "message" and item.get("role") == "user":
            prompt = _prompt_text(
                [{"type": "text", "text": p.get("text", "")} for p in item.get("content") or []]
            )
            shape.append(f"user: {(prompt or '').strip()[:200]!r}")
        elif kind == "function_call":
            shape.append(f"assistant tool_use {item.get('name')} {item.get('call_id')}")
        elif kind == "function_call_output":
            shape.append(f"user tool_result {item.get('call_id')}")
        elif kind == "message":
            shape.append(str(item.get("role")))
    return shape


def _prompt_text(content: Any) -> str | None:
    """A user message's typed text: its string content, or its text blocks when it carries no tool results
    (the same prompt may be sent either way, e.g. as a block list when it holds a cache breakpoint)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content and all(b.get("type") == "text" for b in content):
        return "".join(b.get("text", "") for b in content)
    return None


def diverges(recorded: dict[str, Any], actual: dict[str, Any]) -> str | None:
    want, got = conversation_shape(recorded), conversation_shape(actual)
    if want == got:
        return None
    for i, (w, g) in enumerate(zip(want, got, strict=False)):
        if w != g:
            return f"message {i + 1} was expected to be [{w}] but is [{g}]"
    return f"the conversation has {len(got)} messages where the recording has {len(want)}"

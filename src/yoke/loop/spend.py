"""Where the money went, one request at a time: what each request added to the prompt (the tool results that
made it larger), why its prompt cache missed, and what caused it.

Each agent keeps a `SpendTracker`. Before a request it takes the request's fingerprint: the model, a hash of
each system prompt block (with its first line, to name it) and of the tool list (with the names). When the
answer comes, the usage is compared with the previous request's: a request that read less than half of the
previous prompt from the cache missed it, and the fingerprints say why (the model switched, a system block
changed, the tool list changed, the history was compacted or rewritten, or more than the cache's five
minutes passed). The ledger hands the record to its listeners (the session writes it to the transcript as a
`request_cost` record; `yoke stats` reads them back).
"""

from __future__ import annotations

import json
import time
from typing import Any

CACHE_TTL_S = 300.0  # Anthropic's ephemeral cache entry lives five minutes from its last read
MISS_FRACTION = 0.5  # a request that reads less than this share of the previous prompt from the cache missed


def _digest(value: Any) -> str:
    """A short, stable fingerprint (crc32 and length: enough to see that a block changed, and binascii is
    built in, where hashlib would cost a plain `-p` its import)."""
    from binascii import crc32

    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    data = text.encode("utf-8", "surrogateescape")
    return f"{crc32(data):08x}{len(data):x}"


def _head(block: Any) -> str:
    text = block.get("text", "") if isinstance(block, dict) else str(block)
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return first[:60]


def fingerprint(model: str, system: list[Any], tools: list[Any]) -> dict[str, Any]:
    """What decides whether a request's prompt prefix can come from the cache, besides the history."""
    names = [str(getattr(t, "name", "") or (t.get("name") if isinstance(t, dict) else "")) for t in tools]
    shapes = [
        [getattr(t, "name", ""), getattr(t, "description", ""), getattr(t, "input_schema", None)]
        if not isinstance(t, dict)
        else t
        for t in tools
    ]
    digests = [_digest(shape) for shape in shapes]
    return {
        "model": model,
        "system": [[_digest(b.get("text", "") if isinstance(b, dict) else b), _head(b)] for b in system],
        "tools": _digest(digests),
        "toolNames": names,
        "toolDigests": digests,
    }


def miss_causes(
    before: dict[str, Any], now: dict[str, Any], idle_s: float, compacted: bool, history_kept: bool
) -> list[dict[str, str]]:
    """Why a prompt could not be read from the cache, by what changed since the previous request."""
    causes: list[dict[str, str]] = []
    if before["model"] != now["model"]:
        causes.append({"kind": "model_switch", "detail": f"{before['model']} -> {now['model']}"})
    if before["tools"] != now["tools"]:
        added = sorted(set(now["toolNames"]) - set(before["toolNames"]))
        removed = sorted(set(before["toolNames"]) - set(now["toolNames"]))
        old = dict(zip(before["toolNames"], before.get("toolDigests") or [], strict=False))
        new = dict(zip(now["toolNames"], now.get("toolDigests") or [], strict=False))
        changed = sorted(n for n in new.keys() & old.keys() if new[n] != old[n])  # e.g. ToolSearch's list
        words = [*(f"+{n}" for n in added), *(f"-{n}" for n in removed), *(f"~{n}" for n in changed)]
        detail = " ".join(words) or "the tools' order changed"
        causes.append({"kind": "tool_list", "detail": detail})
    old, new = before["system"], now["system"]
    for index in range(max(len(old), len(new))):
        if index >= len(old) or index >= len(new) or old[index][0] != new[index][0]:
            name = (new[index] if index < len(new) else old[index])[1]
            causes.append({"kind": "system_prompt", "detail": f"block {index + 1}: {name}"})
            break  # the cache is a prefix: the first changed block is the one that broke it
    if compacted:
        causes.append({"kind": "compaction", "detail": "the history was summarized"})
    elif not history_kept:
        causes.append({"kind": "history_changed", "detail": "earlier messages changed (a rewind or an edit)"})
    if idle_s > CACHE_TTL_S:
        causes.append({"kind": "ttl_expired", "detail": f"{idle_s / 60:.0f} min since the previous request"})
    return causes


class SpendTracker:
    """One agent's requests, for attributing each one's cost (see the module's text)."""

    def __init__(self) -> None:
        self.cause = "user_prompt"  # what started the running query (a background notice, ...)
        self.compacted = False  # the history was compacted since the previous request
        self._before: dict[str, Any] | None = None
        self._sent_at = 0.0
        self._prompt_tokens = 0
        self._history: list[Any] = []
        self._pending: tuple[dict[str, Any], list[Any], float] | None = None
        self._names: dict[str, str] = {}  # tool_use id -> tool name
        self._shape: tuple[Any, dict[str, Any]] | None = None
        self._written: dict[str, Any] | None = None  # the fingerprint last written into a record

    def resume(self, record: dict[str, Any]) -> None:
        """Continue from a resumed session's last request (its `request_cost` record), so the first request
        of this process is compared with it."""
        shape = record.get("shape")
        if isinstance(shape, dict) and {"model", "system", "tools", "toolNames"} <= shape.keys():
            self._before = shape
            self._sent_at = float(record.get("sentAt") or 0.0)
            self._prompt_tokens = int(record.get("promptTokens") or 0)

    def sending(self, model: str, system: list[Any], tools: list[Any], messages: list[Any]) -> None:
        key = (model, id(system), len(system), id(tools), len(tools))
        if self._shape is None or self._shape[0] != key:  # the registry's and the prompt's lists are kept
            self._shape = (key, fingerprint(model, system, tools))
        self._pending = (self._shape[1], list(messages), time.time())

    def answered(self, usage: Any, message: Any) -> dict[str, Any]:
        """The record's fields for the answer to the request last sent."""
        if self._pending is None:
            return {"cause": self.cause}
        shape, messages, sent_at = self._pending
        self._pending = None
        kept = _kept(self._history, messages)
        new = messages[kept:]
        results, new_chars = self._new_results(new)
        fields: dict[str, Any] = {"cause": self.cause, "newResults": results, "newChars": new_chars}
        prompt = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
        if self._before is not None:
            missed = usage.cache_read_input_tokens < MISS_FRACTION * self._prompt_tokens
            causes = miss_causes(
                self._before, shape, sent_at - self._sent_at, self.compacted, kept == len(self._history)
            )
            if missed:
                fields["cacheMiss"] = causes or [
                    {"kind": "unexplained", "detail": "nothing Yoke sent changed"}
                ]
        else:
            fields["cacheMiss"] = [{"kind": "first_request", "detail": "nothing cached yet"}]
        self._before, self._sent_at, self._prompt_tokens = shape, sent_at, prompt
        fields["sentAt"], fields["promptTokens"] = round(sent_at, 3), prompt
        if shape is not self._written:  # written when it changes (a record is read back on resume)
            fields["shape"] = self._written = shape
        self._history = [*messages, message]
        self.compacted = False
        for block in message.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                self._names[str(block.get("id"))] = str(block.get("name"))
        return fields

    def _new_results(self, new: list[Any]) -> tuple[list[list[Any]], int]:
        results: list[list[Any]] = []
        total = 0
        for message in new:
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, str):
                total += len(content)
                continue
            for block in content or []:
                size = len(json.dumps(block, default=str))
                total += size
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    tool_id = str(block.get("tool_use_id"))
                    results.append([tool_id, self._names.get(tool_id, "?"), size])
        return results, total


def _kept(before: list[Any], now: list[Any]) -> int:
    """How many messages of the previous request (and its answer) start this one unchanged."""
    n = 0
    for a, b in zip(before, now, strict=False):
        if a is not b and a != b:
            break
        n += 1
    return n

"""Builders for transcript records, in Claude Code's §8.2 line format.

Every chain record (user, assistant, system) carries the same envelope: `uuid`, `parentUuid` (None for the
first), `isSidechain`, `sessionId`, `timestamp` (ISO-8601 with Z), `cwd`, `version`, `userType`, `entrypoint`
(and `gitBranch` when known). Metadata lines (`todos`, `last-prompt`) carry only `type` and `sessionId`.

The loop usually holds one `RecordChain`, which fills the envelope and links each record to the previous
one; the free functions are there for callers that manage `parentUuid` themselves.

Conventions the loader (`yoke.session.store`) relies on:
- every message of the model-facing history has exactly one user/assistant record, in history order;
- one assistant record per whole assistant message;
- tool results are user records whose content is tool_result blocks (`toolUseResult` = structured output);
- a `compact_boundary` system record is written when the compactor returns it, before the next request.
"""

from __future__ import annotations

import time
from typing import Any

from yoke import __version__
from yoke.ids import new_uuid
from yoke.messages import Message
from yoke.providers.base import Usage
from yoke.records import Record

_UNSET: Any = object()


def now_iso() -> str:
    """Current UTC time as Claude Code writes it: `2026-11-22T02:09:11.677Z`."""
    global _second
    now = time.time()  # `time`, not `datetime`: its import was a start-up cost for one line
    whole = int(now)
    if _second[0] != whole:  # every record is stamped: the date and time are formatted once a second
        _second = (whole, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)))
    return f"{_second[1]}.{int((now - whole) * 1000):03d}Z"


_second: tuple[int, str] = (-1, "")


def envelope(
    *,
    session_id: str,
    cwd: str,
    parent_uuid: str | None,
    uuid: str | None = None,
    entrypoint: str = "cli",
    version: str = __version__,
    git_branch: str | None = None,
    is_sidechain: bool = False,
    timestamp: str | None = None,
) -> dict[str, Any]:
    env: dict[str, Any] = {
        "parentUuid": parent_uuid,
        "isSidechain": is_sidechain,
        "uuid": uuid or new_uuid(),
        "timestamp": timestamp or now_iso(),
        "userType": "external",
        "entrypoint": entrypoint,
        "cwd": str(cwd),
        "sessionId": session_id,
        "version": version,
    }
    if git_branch:
        env["gitBranch"] = git_branch
    return env


def user_record(
    message: Message,
    *,
    session_id: str,
    cwd: str,
    parent_uuid: str | None,
    tool_use_result: Any = _UNSET,
    is_meta: bool = False,
    is_compact_summary: bool = False,
    extra: dict[str, Any] | None = None,
    **envelope_args: Any,
) -> dict[str, Any]:
    """A user record: a prompt, a meta message, or tool results (`tool_use_result` = the first result's
    structured output, Claude Code's `toolUseResult`)."""
    record = {
        "type": "user",
        **envelope(session_id=session_id, cwd=cwd, parent_uuid=parent_uuid, **envelope_args),
    }
    record["message"] = {"role": "user", "content": message["content"]}
    if tool_use_result is not _UNSET:
        record["toolUseResult"] = tool_use_result
    if is_meta:
        record["isMeta"] = True
    if is_compact_summary:
        record["isCompactSummary"] = True
    if extra:
        record.update(extra)
    return record


def assistant_record(
    message: Message,
    *,
    session_id: str,
    cwd: str,
    parent_uuid: str | None,
    message_id: str,
    model: str,
    stop_reason: str | None,
    usage: Usage | dict[str, Any] | None,
    request_id: str | None = None,
    extra: dict[str, Any] | None = None,
    **envelope_args: Any,
) -> dict[str, Any]:
    """One record for one whole assistant message, shaped like the API's message object."""
    usage_dict = usage.as_dict() if isinstance(usage, Usage) else dict(usage or {})
    record = {
        "type": "assistant",
        **envelope(session_id=session_id, cwd=cwd, parent_uuid=parent_uuid, **envelope_args),
    }
    record["message"] = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": message["content"]
        if isinstance(message["content"], list)
        else [{"type": "text", "text": message["content"]}],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage_dict,
    }
    if request_id:
        record["requestId"] = request_id
    if extra:
        record.update(extra)
    return record


def system_record(
    subtype: str,
    *,
    session_id: str,
    cwd: str,
    parent_uuid: str | None,
    fields: dict[str, Any] | None = None,
    **envelope_args: Any,
) -> dict[str, Any]:
    """A system record: `compact_boundary`, `permission_decision`, `turn_result` or `notice`, with its own
    fields (`compactMetadata`, `toolUseId`/`toolName`/`behavior`/`source`, `usage`/`modelUsage`/
    `totalCostUsd`, `content`/`level`)."""
    record = {
        "type": "system",
        "subtype": subtype,
        **envelope(session_id=session_id, cwd=cwd, parent_uuid=parent_uuid, **envelope_args),
    }
    if fields:
        record.update(fields)
    return record


def model_usage_entry(usage: Usage, cost_usd: float) -> dict[str, Any]:
    """One model's line in `modelUsage` (camelCase like Claude Code's result message)."""
    return {
        "inputTokens": usage.input_tokens,
        "outputTokens": usage.output_tokens,
        "cacheReadInputTokens": usage.cache_read_input_tokens,
        "cacheCreationInputTokens": usage.cache_creation_input_tokens,
        "costUSD": cost_usd,
    }


def turn_result_fields(
    usage: Usage, model_usage: dict[str, dict[str, Any]], total_cost_usd: float
) -> dict[str, Any]:
    """Fields of a `turn_result` system record (written after each query): `model_usage` maps a model to
    `model_usage_entry(...)` totals for the session so far."""
    return {"usage": usage.as_dict(), "modelUsage": model_usage, "totalCostUsd": total_cost_usd}


def permission_decision_fields(
    tool_use_id: str, tool_name: str, behavior: str, source: str, **more: Any
) -> dict[str, Any]:
    """Fields of a `permission_decision` record. Session-scoped grants go in `more` as
    `rule="Bash(npm test:*)"` (or `rules=[...]`) with `destination="session"`; resume restores them."""
    return {"toolUseId": tool_use_id, "toolName": tool_name, "behavior": behavior, "source": source, **more}


def todos_record(todos: list[Any], session_id: str) -> dict[str, Any]:
    return {"type": "todos", "todos": todos, "sessionId": session_id}


def last_prompt_record(prompt: str, session_id: str) -> dict[str, Any]:
    return {"type": "last-prompt", "lastPrompt": prompt, "sessionId": session_id}


class RecordChain(Record):
    """Fills the envelope and links each new chain record to the previous one (`parentUuid`).

    On resume, start it with `parent_uuid=loaded.last_uuid` so the chain continues where it left off."""

    __slots__ = ("session_id", "cwd", "entrypoint", "version", "git_branch", "parent_uuid", "is_sidechain")

    def __init__(
        self,
        session_id: str,
        cwd: str,
        entrypoint: str = "cli",
        version: str = __version__,
        git_branch: str | None = None,
        parent_uuid: str | None = None,
        is_sidechain: bool = False,
    ) -> None:
        self.session_id = session_id
        self.cwd = cwd
        self.entrypoint = entrypoint
        self.version = version
        self.git_branch = git_branch
        self.parent_uuid = parent_uuid
        self.is_sidechain = is_sidechain

    def _env_args(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "cwd": self.cwd,
            "parent_uuid": self.parent_uuid,
            "entrypoint": self.entrypoint,
            "version": self.version,
            "git_branch": self.git_branch,
            "is_sidechain": self.is_sidechain,
        }

    def _advance(self, record: dict[str, Any]) -> dict[str, Any]:
        self.parent_uuid = record["uuid"]
        return record

    def user(self, message: Message, **kwargs: Any) -> dict[str, Any]:
        return self._advance(user_record(message, **self._env_args(), **kwargs))

    def assistant(
        self,
        message: Message,
        *,
        message_id: str,
        model: str,
        stop_reason: str | None,
        usage: Usage | dict[str, Any] | None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        return self._advance(
            assistant_record(
                message,
                message_id=message_id,
                model=model,
                stop_reason=stop_reason,
                usage=usage,
                **self._env_args(),
                **kwargs,
            )
        )

    def system(self, subtype: str, fields: dict[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
        return self._advance(system_record(subtype, fields=fields, **self._env_args(), **kwargs))

    def wrap(self, partial: dict[str, Any]) -> dict[str, Any]:
        """Give a partial system record (e.g. a compactor boundary `{"type":"system","subtype":...,...}`)
        its envelope and link it into the chain."""
        fields = {k: v for k, v in partial.items() if k not in ("type", "subtype")}
        return self.system(partial.get("subtype", "notice"), fields)

    def todos(self, todos: list[Any]) -> dict[str, Any]:
        return todos_record(todos, self.session_id)

    def last_prompt(self, prompt: str) -> dict[str, Any]:
        return last_prompt_record(prompt, self.session_id)

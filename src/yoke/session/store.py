"""Finding, listing and loading sessions from their transcripts (forking one: `session/fork.py`).

A transcript is read record by record; a torn or corrupt line (a crash mid-write) is skipped. The history
is rebuilt from user and assistant records in order; a `compact_boundary` carrying `summaryMessages` and
`keptMessages` replaces everything before the kept tail; a `rewind` system record cuts the history back
to before its `targetUuid`; tool calls left unanswered by a crash get an error result so the history is
valid for any provider.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from yoke.context.history import repair_tagged
from yoke.messages import Message
from yoke.session.claude_transcripts import conversation_records, is_claude_code_transcript, session_roots
from yoke.session.transcript import load_records, project_dir, yoke_home

NOT_A_PROMPT_PREFIXES = (
    "<system-reminder>",
    "<local-command-stdout>",
    "<command-name>",
    "<command-message>",
    "<session-start-hook>",
    "[Request interrupted",
)
MIN_PREFIX = 4


class SessionError(LookupError):
    """A session could not be found or read (the message is one line that says what to do)."""


@dataclass
class LoadedSession:
    path: Path
    session_id: str
    messages: list[Message]
    uuids: list[str | None]  # the record uuid of each message (None for summaries and repairs)
    last_uuid: str | None  # the newest chain record: the next record's parentUuid
    total_cost_usd: float = 0.0
    model_usage: dict[str, dict[str, Any]] = field(default_factory=dict)
    todos: list[Any] = field(default_factory=list)
    permission_grants: list[dict[str, Any]] = field(default_factory=list)
    last_prompt: str | None = None
    first_prompt: str | None = None
    model: str | None = None
    cwd: str | None = None
    compactions: int = 0
    fallback: tuple[str, str] | None = None  # (from model, to model) once --fallback-model switched
    repairs: list[str] = field(default_factory=list)  # what resuming had to repair, one line each
    turn_errors: list[tuple[int, str]] = field(default_factory=list)  # (messages before it, error text)


@dataclass(frozen=True)
class SessionInfo:
    id: str
    path: Path
    first_prompt: str
    modified: datetime
    cost_usd: float
    messages: int = 0


def _home(home: Path | None) -> Path:
    return home or yoke_home()


# ---- finding ---------------------------------------------------------------------------------------


def _transcripts(cwd: str | Path, home: Path | None) -> list[Path]:
    """This directory's transcripts in Yoke's store and Claude Code's, newest first; a session Yoke
    adopted from Claude Code is listed once (Yoke's copy)."""
    seen: set[str] = set()
    paths: list[Path] = []
    for root in session_roots(_home(home)):
        directory = project_dir(cwd, root)
        if directory.is_dir():
            for path in directory.glob("*.jsonl"):
                if path.stem not in seen:
                    seen.add(path.stem)
                    paths.append(path)
    return sorted(paths, key=lambda p: p.stat().st_mtime, reverse=True)


def latest_session(cwd: str | Path, home: Path | None = None) -> Path | None:
    """The most recently written session of this directory that holds a conversation (Yoke's or Claude
    Code's)."""
    for path in _transcripts(cwd, home):
        if _has_conversation(path):
            return path
    return None


def _has_conversation(path: Path) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            head = fh.read(256 * 1024)
    except OSError:
        return False
    return '"type":"user"' in head or '"type": "user"' in head


def find_session(id_or_path: str, cwd: str | Path, home: Path | None = None) -> Path:
    """A session by transcript path, id or unique id prefix: this directory's sessions first, then every
    project's. Raises SessionError when none or several match."""
    ref = id_or_path.strip()
    if not ref:
        raise SessionError("Give a session id or a transcript path (yoke sessions list shows them).")
    as_path = Path(ref).expanduser()
    if ref.endswith(".jsonl") or os.sep in ref:
        if as_path.is_file():
            return as_path
        raise SessionError(f"No transcript at {as_path}.")
    for base in session_roots(_home(home)):
        found = _find_in(ref, cwd, base)
        if found is not None:
            return found
    raise SessionError(f"No session {ref!r} found (yoke sessions list shows this directory's sessions).")


def _find_in(ref: str, cwd: str | Path, base: Path) -> Path | None:
    root = base / "projects"
    local = project_dir(cwd, base)
    for scope in (local, None):
        exact = [local / f"{ref}.jsonl"] if scope else sorted(root.glob(f"*/{ref}.jsonl"))
        exact = [p for p in exact if p.is_file()]
        if len(exact) == 1:
            return exact[0]
        if len(exact) > 1:
            raise SessionError(
                f"Session {ref} exists in several projects; pass the transcript path: {exact[0]}"
            )
    if len(ref) >= MIN_PREFIX:
        for folder, pattern in ((local, f"{ref}*.jsonl"), (root, f"*/{ref}*.jsonl")):
            matches = sorted(folder.glob(pattern)) if folder.is_dir() else []
            if len(matches) == 1:
                return matches[0]
            if len(matches) > 1:
                ids = ", ".join(p.stem for p in matches[:5])
                raise SessionError(f"Session id prefix {ref!r} is ambiguous ({ids}); give more characters.")
    return None


# ---- loading ---------------------------------------------------------------------------------------


def load_conversation(path: Path, full: bool = False) -> LoadedSession:
    """Rebuild a session's history and state from its transcript. `full`: every message, as if no
    compaction had summarized any (what `/uncompact` puts back); an `uncompact` record does the same from
    its place on."""
    if not path.is_file():
        raise SessionError(f"No transcript at {path}.")
    loaded = LoadedSession(path=path, session_id=path.stem, messages=[], uuids=[], last_uuid=None)
    pairs: list[tuple[Message, str | None]] = []
    every: list[tuple[Message, str | None]] = []  # no compaction applied
    session_id: str | None = None
    records = _conversation(path, loaded.repairs)
    for record in records:
        kind = record.get("type")
        if kind in ("user", "assistant", "system") and not record.get("isSidechain"):
            session_id = session_id or record.get("sessionId")
            loaded.last_uuid = record.get("uuid") or loaded.last_uuid
            loaded.cwd = record.get("cwd") or loaded.cwd
        if kind in ("user", "assistant"):
            message = _message_of(record)
            if message is not None:
                pairs.append((message, record.get("uuid")))
                every.append((message, record.get("uuid")))
                if kind == "assistant":
                    loaded.model = (record.get("message") or {}).get("model") or loaded.model
                elif loaded.first_prompt is None:
                    loaded.first_prompt = _prompt_text(record)
        elif kind == "system" and not record.get("isSidechain"):
            pairs = _apply_system(record, pairs, loaded)
            if record.get("subtype") == "uncompact" or (full and record.get("subtype") == "compact_boundary"):
                pairs = list(every)
        elif kind == "todos" and isinstance(record.get("todos"), list):
            loaded.todos = record["todos"]
        elif kind == "last-prompt":
            loaded.last_prompt = record.get("lastPrompt")
    repaired = repair_tagged(pairs)
    loaded.messages = [m for m, _ in repaired]
    loaded.uuids = [u for _, u in repaired]
    loaded.session_id = session_id or path.stem
    unanswered = _answered_by_repair(repaired)
    if unanswered:
        loaded.repairs.append(
            f"{unanswered} tool call(s) left without a result (a crash or an interrupt) were answered "
            "with an error result"
        )
    return loaded


def _answered_by_repair(repaired: list[tuple[Message, str | None]]) -> int:
    """Tool results the repair added (they carry no record uuid)."""
    count = 0
    for message, uuid in repaired:
        if uuid is None and message.get("role") == "user" and isinstance(message.get("content"), list):
            count += sum(
                1 for b in message["content"] if isinstance(b, dict) and b.get("type") == "tool_result"
            )
    return count


def _message_of(record: dict[str, Any]) -> Message | None:
    if record.get("isSidechain") or record.get("isVisibleInTranscriptOnly"):
        return None
    message = record.get("message")
    if not isinstance(message, dict):
        return None
    role = message.get("role") or record.get("type")
    content = message.get("content")
    if role not in ("user", "assistant") or not isinstance(content, str | list) or not content:
        return None
    return {"role": role, "content": content}


def _apply_system(
    record: dict[str, Any], pairs: list[tuple[Message, str | None]], loaded: LoadedSession
) -> list[tuple[Message, str | None]]:
    subtype = record.get("subtype")
    if subtype == "turn_result":
        loaded.total_cost_usd = float(record.get("totalCostUsd") or loaded.total_cost_usd)
        if isinstance(record.get("errorText"), str):  # a turn that failed (exports show it)
            loaded.turn_errors.append((len(pairs), record["errorText"]))
        if isinstance(record.get("modelUsage"), dict):
            loaded.model_usage = record["modelUsage"]
    elif subtype == "permission_decision":
        if record.get("destination") == "session" or record.get("rule") or record.get("rules"):
            grant = {k: v for k, v in record.items() if k in _GRANT_KEYS}
            loaded.permission_grants.append(grant)
    elif subtype == "notice" and record.get("level") == "model_fallback" and record.get("toModel"):
        loaded.fallback = (str(record.get("fromModel") or ""), str(record["toModel"]))
    elif subtype == "compact_boundary" and isinstance(record.get("summaryMessages"), list):
        loaded.compactions += 1
        kept = int(record.get("keptMessages") or 0)
        repaired = repair_tagged(pairs)
        tail = repaired[len(repaired) - kept :] if kept else []
        summary: list[tuple[Message, str | None]] = [
            (cast("Message", m), None)
            for m in record["summaryMessages"]
            if isinstance(m, dict) and "role" in m
        ]
        return [*summary, *tail]
    return pairs


def _conversation(path: Path, repairs: list[str]) -> list[dict[str, Any]]:
    """The records of the conversation the newest record continues (by `parentUuid`, never file order: two
    writers' lines may interleave in an old file), with rewinds applied; what had to be repaired is added
    to `repairs`."""
    skipped: list[int] = []
    records = list(load_records(path, skipped))
    if skipped:
        lines = ", ".join(str(n) for n in skipped[:5]) + (" ..." if len(skipped) > 5 else "")
        repairs.append(
            f"skipped {len(skipped)} unreadable line(s) of the transcript {path} (torn or corrupt: line {lines})"
        )
    if is_claude_code_transcript(records):
        return conversation_records(records)
    return _effective_records(current_branch(records, repairs))


def current_branch(records: list[dict[str, Any]], repairs: list[str]) -> list[dict[str, Any]]:
    """Yoke's chain records from the newest back to the first through `parentUuid`, oldest first, then
    the other records (todos, last prompt) in file order. A record whose parent is missing (a lost line)
    is joined to the chain record written just before it."""
    chain_kinds = ("user", "assistant", "system")
    positions = {
        r["uuid"]: i
        for i, r in enumerate(records)
        if r.get("type") in chain_kinds and isinstance(r.get("uuid"), str) and not r.get("isSidechain")
    }
    if not positions:
        return records
    index: int | None = max(positions.values())
    chosen: list[int] = []
    seen: set[int] = set()
    gaps = 0
    while index is not None and index not in seen:
        seen.add(index)
        chosen.append(index)
        parent = records[index].get("parentUuid")
        if not isinstance(parent, str):
            break
        found = positions.get(parent)
        if found is None or found in seen:
            gaps += 1
            found = max((i for i in positions.values() if i < index and i not in seen), default=None)
        index = found
    chosen.reverse()
    on_branch = set(chosen)
    left_out = sum(1 for i in positions.values() if i not in on_branch)
    if left_out:
        repairs.append(
            f"left out {left_out} record(s) of another branch of this session (written by a second process "
            "at the same time); the history follows the newest branch"
        )
    if gaps:
        repairs.append(f"joined the history across {gaps} missing record(s)")
    others = [
        r
        for i, r in enumerate(records)
        if i not in on_branch
        and (r.get("type") not in chain_kinds or r.get("isSidechain") or not isinstance(r.get("uuid"), str))
    ]
    return [*(records[i] for i in chosen), *others]


def _effective_records(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records with rewinds applied: a `rewind` record removes the conversation records (messages and
    compactions) from its target on, keeping costs, grants and todos."""
    effective: list[dict[str, Any]] = []
    undone = {
        r.get("rewindUuid")
        for r in records
        if r.get("type") == "system" and r.get("subtype") == "rewind_undone"
    }
    for record in records:
        if (
            record.get("type") == "system"
            and record.get("subtype") == "rewind"
            and record.get("uuid") in undone
        ):
            continue  # `/rewind undo` gave the conversation back
        if record.get("type") == "system" and record.get("subtype") == "rewind":
            target = record.get("targetUuid")
            index = next((i for i, r in enumerate(effective) if r.get("uuid") == target), None)
            if index is not None:
                effective = effective[:index] + [r for r in effective[index:] if not _conversational(r)]
            continue
        effective.append(record)
    return effective


def _conversational(record: dict[str, Any]) -> bool:
    kind = record.get("type")
    return kind in ("user", "assistant") or (kind == "system" and record.get("subtype") == "compact_boundary")


_GRANT_KEYS = (
    "toolUseId",
    "toolName",
    "behavior",
    "source",
    "rule",
    "rules",
    "destination",
    "mode",
    "timestamp",
)


SHELL_BLOCK = re.compile(
    r"<bash-input>(.*?)</bash-input>\s*(?:<bash-stdout>(.*?)</bash-stdout>)?\s*(?:<bash-stderr>.*?</bash-stderr>)?\s*",
    re.DOTALL,
)


def split_shell_context(text: str) -> tuple[list[tuple[str, str]], str]:
    """A user message as written to the transcript: the `!` commands run before it ((command, output) each,
    in order) and the prompt typed after them."""
    commands = [(m.group(1).strip(), (m.group(2) or "").strip()) for m in SHELL_BLOCK.finditer(text)]
    return commands, SHELL_BLOCK.sub("", text).strip()


def _prompt_text(record: dict[str, Any]) -> str | None:
    """The text a person typed, or None for meta messages and tool results."""
    if record.get("isMeta") or record.get("isCompactSummary") or "toolUseResult" in record:
        return None
    content = (record.get("message") or {}).get("content")
    if isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return None
        content = "\n".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    if not isinstance(content, str):
        return None
    text = content.strip()
    if not text or text.startswith(NOT_A_PROMPT_PREFIXES):
        return None
    commands, typed = split_shell_context(text)  # `!cmd` runs sent along: the prompt, else `! cmd`
    return typed or ("! " + commands[0][0] if commands else text)


# ---- listing ---------------------------------------------------------------------------------


def session_info(path: Path) -> SessionInfo:
    first_prompt, cost, count, session_id = "", 0.0, 0, path.stem
    for record in load_records(path):
        kind = record.get("type")
        if kind in ("user", "assistant") and not record.get("isSidechain"):
            count += 1
            if kind == "user" and not first_prompt:
                first_prompt = _prompt_text(record) or ""
        elif kind == "system" and record.get("subtype") == "turn_result":
            cost = float(record.get("totalCostUsd") or cost)
    modified = datetime.fromtimestamp(path.stat().st_mtime)
    return SessionInfo(session_id, path, first_prompt, modified, cost, count)


def list_sessions(cwd: str | Path, home: Path | None = None, limit: int | None = None) -> list[SessionInfo]:
    """This directory's sessions (Yoke's and Claude Code's), newest first."""
    paths = _transcripts(cwd, home)
    infos = [session_info(p) for p in paths[: limit or None]]
    return [i for i in infos if i.messages]


def session_holder(id_or_path: str, cwd: str | Path, home: Path | None = None) -> int | None:
    """The pid of the live process writing the session now (0 when it cannot be named), or None when none
    does or there is no such session: what a starter asks before it launches a session (the host)."""
    from yoke.session.lock import lock_holder

    try:
        path = find_session(id_or_path, cwd, home)
    except Exception:  # no such session yet (a new id), or an unreadable home: nobody holds it
        return None
    return lock_holder(path.with_suffix(".lock"))

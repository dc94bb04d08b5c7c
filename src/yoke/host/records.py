"""Each hosted session's record on disk (`<yoke home>/hosted/<id>.json`), in the shape of Claude Code's
`claude agents --json` rows, and its stream log (`<id>.stream.jsonl`: every message with its sequence number).

The host rewrites a record whenever the session's state changes; anyone may read it, host or not. A record
whose processes are gone reads as `stopped`: the host died or the session ended, and its transcript resumes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from yoke import jsonsafe
from yoke.host.owned import write_private
from yoke.host.paths import records_dir

LIVE_FIELDS = ("pid", "id", "cwd", "kind", "startedAt", "sessionId", "name", "status", "state")
STOPPED_FIELDS = ("id", "cwd", "kind", "startedAt", "sessionId", "name", "state")


def pid_alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie child the host has not reaped yet is not a running session
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except OSError:
        return True


def record_path(ident: str, env=None) -> Path:
    return records_dir(env) / f"{_plain(ident)}.json"


def stream_log_path(ident: str, env=None) -> Path:
    return records_dir(env) / f"{_plain(ident)}.stream.jsonl"


def _plain(ident: str) -> str:
    """An entry's files stay in the hosted folder: an id is a name, never a path."""
    if not ident or "/" in ident or "\0" in ident or ident in (".", ".."):
        raise ValueError(f"{ident!r} is not a session id")
    return ident


def write_record(record: dict[str, Any], env=None) -> None:
    write_private(record_path(record["id"], env), (json.dumps(record, indent=2) + "\n").encode())


def read_record(ident: str, env=None) -> dict[str, Any] | None:
    try:
        record = jsonsafe.loads(record_path(ident, env).read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and record.get("id") == ident else None


def all_records(env=None) -> list[dict[str, Any]]:
    rows = []
    for path in sorted(records_dir(env).glob("*.json")):
        record = read_record(path.stem, env)
        if record is not None:
            rows.append(record)
    rows.sort(key=lambda r: r.get("startedAt") or 0)
    return rows


def public_row(record: dict[str, Any]) -> dict[str, Any]:
    """The row `agents --json` prints: a live session's pid and status, or `state: stopped` for one whose
    process (or host) is gone."""
    live = (
        record.get("state") != "stopped" and pid_alive(record.get("pid")) and pid_alive(record.get("hostPid"))
    )
    if not live:
        row = {key: ("stopped" if key == "state" else record.get(key)) for key in STOPPED_FIELDS}
    else:
        row = {key: record.get(key) for key in LIVE_FIELDS}
    if record.get("profile"):
        row["profile"] = record["profile"]  # Yoke's profile in force (yoke profile)
    return row


def find(query: str, env=None) -> dict[str, Any] | None:
    """A record by id, session id, or (part of) its name, as Claude Code's commands accept; LookupError when
    part of a name fits several."""
    records = all_records(env)
    for record in records:
        if query in (record.get("id"), record.get("sessionId")):
            return record
    named = [r for r in records if query and query in str(r.get("name") or "")]
    if len(named) > 1:  # never guess which one to stop or remove
        raise LookupError(f"{query!r} matches {len(named)} sessions: " + ", ".join(r["id"] for r in named))
    return named[0] if named else None


def remove(ident: str, env=None) -> None:
    log = stream_log_path(ident, env)
    older = log.with_name(f"{ident}.stream.1.jsonl")  # limits.rotated
    for path in (record_path(ident, env), log, older, log.with_suffix(".stderr")):
        path.unlink(missing_ok=True)

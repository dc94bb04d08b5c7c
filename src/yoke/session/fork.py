"""Forking a session: its transcript copied under a new id, with fresh uuids and `forkedFrom` on each chain
record, the source left untouched (`--fork-session`, `--session-id` with `--resume`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from yoke.session.records import new_uuid
from yoke.session.store import SessionError
from yoke.session.transcript import load_records, transcript_path, yoke_home


def fork_session(
    source: Path, cwd: str | Path, home: Path | None = None, new_session_id: str | None = None
) -> tuple[str, Path]:
    """Copy a session into a new id (fresh uuids, `forkedFrom` on each chain record); the source is left
    untouched. Returns the new id and transcript path."""
    new_id = new_session_id or new_uuid()
    target = transcript_path(cwd, new_id, home or yoke_home())
    if target.exists():
        raise SessionError(f"Session {new_id} already exists; choose another --session-id.")
    target.parent.mkdir(parents=True, exist_ok=True)
    mapping: dict[str, str] = {}
    old_id = source.stem
    with open(target, "w", encoding="utf-8") as out:
        for record in load_records(source):
            old_id = record.get("sessionId") or old_id
            forked = _forked_record(record, new_id, mapping)
            out.write(json.dumps(forked, ensure_ascii=False, separators=(",", ":")) + "\n")
    return new_id, target


def _forked_record(record: dict[str, Any], new_id: str, mapping: dict[str, str]) -> dict[str, Any]:
    forked = dict(record)
    if "sessionId" in forked:
        forked["sessionId"] = new_id
    old_uuid = record.get("uuid")
    if isinstance(old_uuid, str):
        mapping[old_uuid] = new_uuid()
        forked["uuid"] = mapping[old_uuid]
        forked["forkedFrom"] = {"sessionId": record.get("sessionId"), "messageUuid": old_uuid}
    for key in ("parentUuid", "logicalParentUuid", "targetUuid", "leafUuid"):
        if isinstance(record.get(key), str):
            forked[key] = mapping.get(record[key], record[key])
    return forked

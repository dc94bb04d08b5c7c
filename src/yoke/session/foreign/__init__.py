"""Other agents' sessions (Codex, Gemini CLI, opencode): listed, and continued as a new Yoke session.

`yoke --resume codex:<id>` (and `gemini:`, `opencode:`) reads the other agent's files, builds the
conversation as Yoke's history (`history.py`) and writes it as a new Yoke transcript whose records carry
`forkedFrom` naming the source; the session then goes on like any resumed one. The other agent's files are
only read. Everything is read and converted before the first byte is written, so a file Yoke cannot read
leaves nothing behind but its one-line error.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from yoke.session.foreign.history import ForeignFormatError, Imported
from yoke.session.foreign.listing import ForeignInfo

SOURCES = ("codex", "gemini", "opencode")
NAMES = {"codex": "Codex", "gemini": "Gemini CLI", "opencode": "opencode"}

__all__ = ["SOURCES", "ForeignFormatError", "ForeignInfo", "import_session", "list_foreign", "parse_ref"]


def parse_ref(ref: str | None) -> tuple[str, str] | None:
    """`codex:<id>` -> ("codex", "<id>"); None for anything else (a Yoke id or a path)."""
    if not ref or ":" not in ref:
        return None
    source, _, rest = ref.partition(":")
    source = source.strip().lower()
    return (source, rest.strip()) if source in SOURCES else None


def list_foreign(
    source: str, env: Mapping[str, str] | None = None, cwd: str | Path | None = None, limit: int = 50
) -> list[ForeignInfo]:
    """A source's sessions, newest first, at most `limit`; with `cwd`, only those started in that folder.
    Files are read newest first and only as far as needed: where a session started is read from its first
    line (or its folder) before the whole file is."""
    env = os.environ if env is None else env
    here = _resolved(cwd) if cwd is not None else None
    infos: list[ForeignInfo] = []
    if source == "opencode":
        from yoke.session.foreign import opencode

        infos = [i for i in opencode.list_infos(env) if i.messages]
        infos = [i for i in infos if here is None or (i.cwd and _resolved(i.cwd) == here)]
        return sorted(infos, key=lambda i: i.modified, reverse=True)[:limit]
    module = _module(source)
    for path in module.session_files(env):  # newest first
        if here is not None and _resolved(module.started_in(path) or "/nonexistent") != here:
            continue
        found = module.info(path)
        if found is not None and found.messages:
            infos.append(found)
            if len(infos) >= limit:
                break
    return infos


def _resolved(path: str | Path) -> str:
    try:
        return str(Path(path).resolve())
    except OSError:
        return str(path)


def _module(source: str) -> Any:
    if source == "codex":
        from yoke.session.foreign import codex

        return codex
    if source == "gemini":
        from yoke.session.foreign import gemini

        return gemini
    if source == "opencode":
        from yoke.session.foreign import opencode

        return opencode
    raise ForeignFormatError(f"Unknown source {source!r}; choose one of {', '.join(SOURCES)}.")


def read_session(source: str, ref: str, env: Mapping[str, str]) -> Imported:
    """The session `ref` (an id, a unique id prefix, or a file path) of `source`, read and converted."""
    module = _module(source)
    if not ref:
        raise ForeignFormatError(f"Give a {NAMES[source]} session id: yoke sessions list --from {source}")
    as_path = Path(ref).expanduser()
    if source == "opencode":
        if "/" in ref and "#" in ref:  # a database and a session: /path/opencode.db#ses_...
            db, _, sid = ref.rpartition("#")
            return module.read(Path(db).expanduser(), sid)
        return module.read_ref(ref, env)
    path = as_path if (os.sep in ref and as_path.is_file()) else module.find(ref, env)
    return module.read(path)


def import_session(
    ref: str, cwd: str | Path, home: Path, env: Mapping[str, str] | None = None
) -> tuple[Path, str]:
    """Read `<source>:<id>` and write it as a new Yoke session in this folder's store; the new transcript's
    path and a line saying what was imported and left out. Raises ForeignFormatError (one line) when the
    source cannot be read or holds no conversation."""
    env = os.environ if env is None else env
    parsed = parse_ref(ref)
    if parsed is None:
        raise ForeignFormatError(f"{ref!r} names no other agent's session (codex:, gemini: or opencode:).")
    imported = read_session(parsed[0], parsed[1], env)
    if not any(m["role"] == "user" for m in imported.messages):
        raise ForeignFormatError(f"{imported.path}: holds no conversation to continue; nothing was imported.")
    return _write(imported, str(cwd), home)


def _write(imported: Imported, cwd: str, home: Path) -> tuple[Path, str]:
    from yoke.ids import new_uuid
    from yoke.session.records import assistant_record, system_record, user_record
    from yoke.session.transcript import transcript_path

    session_id = new_uuid()
    origin = {"source": imported.source, "sessionId": imported.id, "path": imported.path}
    if imported.version:
        origin["version"] = imported.version
    records: list[dict[str, Any]] = []
    parent: str | None = None
    common: dict[str, Any] = {"session_id": session_id, "cwd": cwd}
    for index, message in enumerate(imported.messages):
        extra = {"forkedFrom": origin}
        if message["role"] == "user":
            record = user_record(message, parent_uuid=parent, extra=extra, **common)
        else:
            record = assistant_record(
                message,
                parent_uuid=parent,
                message_id=f"imported_{index}",
                model=imported.model or NAMES[imported.source],
                stop_reason="end_turn",
                usage=None,
                extra=extra,
                **common,
            )
        records.append(record)
        parent = record["uuid"]
    note = f"Imported from {NAMES[imported.source]} session {imported.id} ({imported.path})"
    if imported.notes:
        note += ": " + "; ".join(imported.notes)
    fields = {"content": note, "level": "info", "forkedFrom": origin}
    records.append(system_record("notice", parent_uuid=parent, fields=fields, **common))
    target = transcript_path(cwd, session_id, home)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".jsonl.tmp")
    with open(partial, "w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
    os.replace(partial, target)
    return target, note

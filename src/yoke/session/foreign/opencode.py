"""opencode sessions: the SQLite database `$XDG_DATA_HOME/opencode/opencode.db` (default
`~/.local/share/opencode`; `OPENCODE_DB` names another, absolute or inside that folder; a non-release channel
writes `opencode-<channel>.db`).

The format, from anomalyco/opencode (`session.sql.ts`, `message-v2.ts`; checked against a database opencode
1.18.33 wrote, tests/session/foreign/): table `session` (`id`, `directory`, `title`, `version`, `parent_id`,
`time_updated`), `message` (`id`, `session_id`, `time_created`, `data`: JSON with `role` user/assistant and,
on assistant messages, `modelID`/`providerID`) read in (`time_created`, `id`) order, and `part` (`id`,
`message_id`, `data`: JSON with `type` text/reasoning/tool/file/step-start/step-finish/...) in `id` order. A
tool part carries `tool`, `callID` and `state` (`status` completed/error with `input`, `output` or
`error`). A text part marked `synthetic` or `ignored` is opencode's own, not the person's.

The database is only read: it is copied (with its write-ahead log, `-wal`) into a private temporary folder
and the copy is opened, so SQLite never writes beside opencode's own file (a reader of a live WAL database
writes its `-shm`; `immutable=1` would skip what the log holds). The cost is a copy per listing or import:
a large database takes a moment.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from yoke.jsonsafe import loads as safe_loads
from yoke.session.foreign.history import ForeignFormatError, History, Imported, absolute, in_folder
from yoke.session.foreign.listing import ForeignInfo, one_line

AGENT = "opencode"
NEEDED = {"session": {"id", "directory", "title", "version"}, "message": {"id", "session_id", "data"}}
NEEDED["part"] = {"id", "message_id", "data"}


def data_dir(env: Mapping[str, str]) -> Path:
    base = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME") or Path.home()) / ".local" / "share")
    return Path(base).expanduser() / "opencode"


def databases(env: Mapping[str, str]) -> list[Path]:
    named = env.get("OPENCODE_DB")
    if named and named != ":memory:":
        path = Path(named).expanduser()
        return [path if path.is_absolute() else data_dir(env) / path]
    folder = data_dir(env)
    found = [folder / "opencode.db"] if (folder / "opencode.db").is_file() else []
    return found + sorted(p for p in folder.glob("opencode-*.db") if p.is_file())


def session_files(env: Mapping[str, str]) -> list[Path]:
    return [p for p in databases(env) if p.is_file()]


@contextmanager
def _opened(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection to a private copy of the database (and its write-ahead log)."""
    with tempfile.TemporaryDirectory(prefix="yoke-opencode-") as scratch:
        copy = Path(scratch) / "opencode.db"
        try:
            shutil.copyfile(path, copy)
            wal = Path(f"{path}-wal")  # what opencode wrote since its last checkpoint; -shm is rebuilt
            if wal.is_file():
                shutil.copyfile(wal, Path(f"{copy}-wal"))
        except OSError as exc:
            raise ForeignFormatError(f"{path}: cannot read it ({exc.strerror or exc}).") from None
        connection = sqlite3.connect(copy)
        try:
            _check(connection, path)
            yield connection
        except sqlite3.DatabaseError as exc:
            raise ForeignFormatError(
                f"{path}: not a readable opencode database ({exc}); nothing was imported."
            ) from None
        finally:
            connection.close()


def _check(connection: sqlite3.Connection, path: Path) -> None:
    for table, columns in NEEDED.items():
        have = {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}
        missing = columns - have
        if missing:
            raise ForeignFormatError(
                f"{path}: not an opencode database this Yoke reads (table {table!r} lacks "
                f"{', '.join(sorted(missing))}; opencode 1.18 writes them); nothing was imported."
            )


def list_infos(env: Mapping[str, str]) -> list[ForeignInfo]:
    infos: list[ForeignInfo] = []
    for path in session_files(env):
        try:
            with _opened(path) as db:
                rows = db.execute(
                    "SELECT id, directory, title, time_updated FROM session WHERE parent_id IS NULL"
                ).fetchall()
                counts = dict(
                    db.execute("SELECT session_id, count(*) FROM message GROUP BY session_id").fetchall()
                )
        except ForeignFormatError:
            continue
        for sid, directory, title, updated in rows:
            infos.append(
                ForeignInfo(
                    source="opencode",
                    id=sid,
                    path=path,
                    cwd=directory or "",
                    modified=datetime.fromtimestamp((updated or 0) / 1000),
                    first_prompt=one_line(title or ""),
                    messages=int(counts.get(sid, 0)),
                )
            )
    return infos


def read_ref(ref: str, env: Mapping[str, str]) -> Imported:
    """The session whose id is `ref` (or starts with it) in any of opencode's databases (each copied once)."""
    for path in session_files(env):
        found = read(path, ref, missing_ok=True)
        if found is not None:
            return found
    raise ForeignFormatError(f"No opencode session {ref!r} in {data_dir(env)}.")


def read(path: Path, ref: str, missing_ok: bool = False) -> Imported | None:
    """The session `ref` (an id or a unique prefix of one) of the database at `path`."""
    with _opened(path) as db:
        rows = db.execute(
            "SELECT id, directory, version FROM session WHERE substr(id, 1, ?) = ? LIMIT 2", (len(ref), ref)
        ).fetchall()
        if len(rows) > 1:
            raise ForeignFormatError(f"opencode session id {ref!r} is ambiguous; give more characters.")
        if not rows:
            if missing_ok:
                return None
            raise ForeignFormatError(f"{path}: no opencode session {ref!r}.")
        row = rows[0]
        session_id = row[0]
        messages = db.execute(
            "SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id", (session_id,)
        ).fetchall()
        parts: dict[str, list[dict[str, Any]]] = {}
        for message_id, data in db.execute(
            "SELECT message_id, data FROM part WHERE session_id = ? ORDER BY id", (session_id,)
        ):
            parts.setdefault(message_id, []).append(_json(data, path))
    imported = Imported(source="opencode", id=row[0], path=str(path), cwd=row[1] or None, version=row[2])
    history = History(AGENT, _tool_map, row[1] or os.getcwd())
    for message_id, data in messages:
        info = _json(data, path)
        if info.get("role") == "assistant":
            imported.model = info.get("modelID") or imported.model
        _add_message(history, info.get("role"), parts.get(message_id, []))
    return history.finish(imported)


def _json(data: Any, path: Path) -> dict[str, Any]:
    try:
        value = safe_loads(data)
    except (TypeError, ValueError):
        raise ForeignFormatError(f"{path}: a message or part is not JSON; nothing was imported.") from None
    return value if isinstance(value, dict) else {}


def _add_message(history: History, role: Any, parts: list[dict[str, Any]]) -> None:
    for part in parts:
        kind = part.get("type")
        if kind == "text" and not part.get("synthetic") and not part.get("ignored"):
            text = str(part.get("text") or "")
            history.user_text(text) if role == "user" else history.assistant_text(text)
        elif kind == "reasoning":
            history.reasoning()
        elif kind == "tool" and role == "assistant":
            state = part.get("state") if isinstance(part.get("state"), dict) else {}
            state = state or {}
            args: dict[str, Any] = state["input"] if isinstance(state.get("input"), dict) else {}
            history.tool_call(part.get("callID"), str(part.get("tool") or "?"), args)
            if state.get("status") == "completed":
                history.tool_result(part.get("callID"), str(state.get("output") or ""))
            elif state.get("status") == "error":
                history.tool_result(part.get("callID"), str(state.get("error") or "error"), True)
        elif kind == "file" and role == "user":
            history.user_text(f"[attached file: {part.get('filename') or part.get('url') or '?'}]")


def _tool_map(name: str, args: dict[str, Any], cwd: str) -> tuple[str, dict[str, Any]] | None:
    """opencode's built-in tools onto Yoke's where the input carries over (camelCase to Claude Code's
    snake_case keys)."""

    def path(key: str) -> str | None:
        return absolute(args, key, cwd)

    if name == "read" and path("filePath"):
        return "Read", {"file_path": path("filePath")}
    if name == "bash" and isinstance(args.get("command"), str):
        return "Bash", {"command": in_folder(args["command"], path("workdir"), cwd)}
    if name == "write" and path("filePath") and isinstance(args.get("content"), str):
        return "Write", {"file_path": path("filePath"), "content": args["content"]}
    if name == "edit" and path("filePath") and isinstance(args.get("oldString"), str):
        edit = {"file_path": path("filePath"), "old_string": args["oldString"]}
        return "Edit", {**edit, "new_string": str(args.get("newString") or "")}
    if name == "glob" and isinstance(args.get("pattern"), str):
        return "Glob", {"pattern": args["pattern"], **({"path": path("path")} if path("path") else {})}
    if name == "grep" and isinstance(args.get("pattern"), str):
        return "Grep", {"pattern": args["pattern"], **({"path": path("path")} if path("path") else {})}
    return None

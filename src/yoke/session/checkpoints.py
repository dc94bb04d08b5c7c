"""File checkpoints: the content a file had before the session changed it, so a rewind can put it back.

Layout under the session folder:

    file-history/blobs/<sha256>     file contents, content-addressed (identical contents stored once)
    file-history/index.jsonl        one line per snapshot, in order:
                                    {"messageUuid", "path", "blob": sha256 | null (did not exist), "mode"}

Before a file-changing tool call the loop calls `snapshot(path, message_uuid)` with the uuid of the user
message whose turn is running; only the first snapshot of a path per message is kept, since that is the
content the turn started from. `rewind(uuid)` puts every file changed from that message on back to the
content it had just before, byte for byte (and deletes files that did not exist then).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from yoke.fsutil import replace_file
from yoke.jsonsafe import loads as safe_json


class CheckpointError(ValueError):
    """A checkpoint could not be written or restored (one line for the user)."""


class Checkpoints:
    def __init__(self, session_dir: Path):
        self.root = Path(session_dir) / "file-history"
        self.blobs = self.root / "blobs"
        self.index_path = self.root / "index.jsonl"
        self._seen: set[tuple[str, str]] | None = None

    # ---- recording ------------------------------------------------------------------------------

    def snapshot(self, path: Path, message_uuid: str) -> bool:
        """Record `path`'s current content (or its absence) for the turn of `message_uuid`. Returns False
        when this path was already recorded for that message, or is not a regular file."""
        target = os.path.abspath(os.path.expanduser(str(path)))
        key = (message_uuid, target)
        seen = self._load_seen()
        if key in seen:
            return False
        if os.path.lexists(target) and not os.path.isfile(target):
            return False  # directories and dangling links are not tracked
        entry: dict[str, Any] = {"messageUuid": message_uuid, "path": target, "blob": None, "mode": None}
        if os.path.isfile(target):
            try:
                data = Path(target).read_bytes()
                mode = os.stat(target).st_mode & 0o7777
            except OSError as exc:
                raise CheckpointError(f"Cannot snapshot {target}: {exc.strerror or exc}") from exc
            entry["blob"] = self._store_blob(data)
            entry["mode"] = mode
        self._append(entry)
        seen.add(key)
        return True

    def _store_blob(self, data: bytes) -> str:
        import hashlib  # here: a run that edits nothing never needs it

        digest = hashlib.sha256(data).hexdigest()
        blob = self.blobs / digest
        if not blob.exists():
            self.blobs.mkdir(parents=True, exist_ok=True)
            replace_file(blob, data)
        return digest

    def _append(self, entry: dict[str, Any]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.index_path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry, separators=(",", ":")) + "\n")
            fh.flush()

    def _load_seen(self) -> set[tuple[str, str]]:
        if self._seen is None:
            self._seen = {(e["messageUuid"], e["path"]) for e in self.entries()}
        return self._seen

    # ---- reading and restoring --------------------------------------------------------------------

    def entries(self) -> list[dict[str, Any]]:
        """Every complete index line (a torn last line from a crash is ignored)."""
        if not self.index_path.is_file():
            return []
        out: list[dict[str, Any]] = []
        with open(self.index_path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                try:
                    entry = safe_json(line)
                except ValueError:
                    continue
                if isinstance(entry, dict) and "messageUuid" in entry and "path" in entry:
                    out.append(entry)
        return out

    def message_uuids(self) -> list[str]:
        """Messages with snapshots, in order."""
        ordered: dict[str, None] = {}
        for entry in self.entries():
            ordered.setdefault(entry["messageUuid"], None)
        return list(ordered)

    def rewind(self, message_uuid: str, restore_files: bool = True, later: Iterable[str] = ()) -> list[Path]:
        """Restore every file changed during the turn of `message_uuid` or any later one (`later`: the uuids
        of the messages after it, when the caller knows them) to its content from before. Returns the
        paths, in the order they were first changed; with `restore_files=False` nothing is touched."""
        wanted = {message_uuid, *later}
        entries = self.entries()
        start = next((i for i, e in enumerate(entries) if e["messageUuid"] in wanted), None)
        if start is None:
            return []
        earliest: dict[str, dict[str, Any]] = {}
        for entry in entries[start:]:
            earliest.setdefault(entry["path"], entry)
        if restore_files:
            for entry in earliest.values():
                self._restore(entry)
        return [Path(p) for p in earliest]

    def _restore(self, entry: dict[str, Any]) -> None:
        path = Path(entry["path"])
        if entry.get("blob") is None:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            return
        blob = self.blobs / entry["blob"]
        try:
            data = blob.read_bytes()
        except OSError as exc:
            raise CheckpointError(
                f"The checkpoint of {path} is missing ({blob}); it cannot be restored."
            ) from exc
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(path, data, entry.get("mode"))

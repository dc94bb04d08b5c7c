"""File checkpoints: the content a file had before the session changed it, so a rewind can put it back.

Layout under the session folder:

    file-history/blobs/<sha256>     file contents, content-addressed (identical contents stored once)
    file-history/index.jsonl        one line per snapshot, in order:
                                    {"messageUuid", "path", "blob": sha256 | null (did not exist), "mode"}

Before a file-changing tool call the loop calls `snapshot(path, message_uuid)` with the uuid of the user
message whose turn is running; only the first snapshot of a path per message is kept, since that is the
content the turn started from. `rewind(uuid)` puts every file changed from that message on back to the
content it had just before, byte for byte (and deletes files that did not exist then).

In a project (a git repository) the whole tree is snapshotted too (`tree_snapshots.py`): a `start` tree
before a turn's first change, whatever the tool (Bash included), and an `end` tree when the turn ends, as
index lines `{"kind": "tree", "phase", "messageUuid", "tree", "skipped"}`. A rewind then puts back the whole
tree as it was before the turn, refuses to overwrite what something else changed meanwhile (`rewind.py`),
and appends a `rewind` line that `undo_rewind` reverses. Files outside the project still come back from the
per-file snapshots above.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke.fsutil import replace_file
from yoke.jsonsafe import loads as safe_json

if TYPE_CHECKING:
    from yoke.session.rewind import OnConflict, TreeRewound
    from yoke.session.tree_snapshots import Snapshot, TreeStore


class CheckpointError(ValueError):
    """A checkpoint could not be written or restored (one line for the user)."""


class Checkpoints:
    def __init__(self, session_dir: Path, cwd: Path | None = None):
        self.root = Path(session_dir) / "file-history"
        self.blobs = self.root / "blobs"
        self.index_path = self.root / "index.jsonl"
        self.cwd = cwd  # where the session works: its project is found from here on first use
        self._seen: set[tuple[str, str]] | None = None
        self._tree: TreeStore | None | bool = False  # False: not looked for yet
        self._phases: set[tuple[str, str]] = set()  # (message uuid, phase) recorded by this process
        self.last_rewind: TreeRewound | None = None  # the details of the latest rewind (for its message)

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

    # ---- whole-tree snapshots ------------------------------------------------------------------------

    def tree_store(self) -> TreeStore | None:
        """The private store of tree snapshots; None when the session's folder is not a project."""
        if self._tree is False:
            from yoke.session.tree_snapshots import TreeStore

            self._tree = TreeStore.open(self.root / "tree.git", self.cwd)
        return self._tree  # type: ignore[return-value]

    def snapshot_tree(self, message_uuid: str, phase: str) -> Snapshot | None:
        """The tree at a turn's `start` (once per message) or `end` (once, after a start); None when there is
        nothing to do (not a project, already taken, or an end without a start)."""
        key = (message_uuid, phase)
        if key in self._phases or (phase == "end" and (message_uuid, "start") not in self._phases):
            return None
        store = self.tree_store()
        if store is None:
            return None
        self._phases.add(key)
        snap = store.snapshot()
        entry: dict[str, Any] = {
            "kind": "tree",
            "phase": phase,
            "messageUuid": message_uuid,
            "tree": snap.tree,
        }
        if snap.skipped:
            entry["skipped"] = snap.skipped
        self._append(entry)
        return snap

    def tree_entries(self) -> list[dict[str, Any]]:
        return [e for e in self._lines() if e.get("kind") == "tree" and isinstance(e.get("tree"), str)]

    # ---- reading and restoring --------------------------------------------------------------------

    def _lines(self) -> list[dict[str, Any]]:
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
                if isinstance(entry, dict):
                    out.append(entry)
        return out

    def entries(self) -> list[dict[str, Any]]:
        """The per-file snapshots."""
        return [e for e in self._lines() if "messageUuid" in e and "path" in e]

    def message_uuids(self) -> list[str]:
        """Messages with snapshots (of files or of the tree), in order."""
        ordered: dict[str, None] = {}
        for entry in self._lines():
            if isinstance(entry.get("messageUuid"), str) and (
                "path" in entry or entry.get("phase") == "start"
            ):
                ordered.setdefault(entry["messageUuid"], None)
        return list(ordered)

    def rewind(
        self,
        message_uuid: str,
        restore_files: bool = True,
        later: Iterable[str] = (),
        on_conflict: OnConflict = "refuse",
    ) -> list[Path]:
        """Restore every file changed during the turn of `message_uuid` or any later one (`later`: the uuids
        of the messages after it, when the caller knows them) to its content from before: the whole tree
        where it was snapshotted (Bash's changes included; RewindConflict when something else changed a
        file meanwhile and `on_conflict` is "refuse"), else what the file tools changed. Returns the paths;
        with `restore_files=False` nothing is touched."""
        wanted = {message_uuid, *later}
        self.last_rewind = None
        trees = self.tree_entries()
        start = next(
            (i for i, e in enumerate(trees) if e.get("phase") == "start" and e.get("messageUuid") in wanted),
            None,
        )
        store = self.tree_store() if start is not None else None
        if store is not None and start is not None:
            if not restore_files:
                return []
            from yoke.session.rewind import rewind_tree

            done = self._recorded(lambda: rewind_tree(store, trees, start, trees[start]["tree"], on_conflict))
            done.entry["messageUuid"] = message_uuid
            self._append(done.entry)
            self.last_rewind = done
            root = os.path.realpath(store.root) + os.sep
            outside = self._rewind_files(
                wanted, True, lambda path: not os.path.realpath(path).startswith(root)
            )
            return [store.root / p for p in done.restored] + outside
        return self._rewind_files(wanted, restore_files)

    def undo_rewind(self, on_conflict: OnConflict = "refuse") -> list[Path]:
        """Put the tree back as it was just before the latest rewind (itself undoable: it is a rewind too)."""
        from yoke.session.rewind import rewind_tree

        trees = self.tree_entries()
        last = next((i for i in range(len(trees) - 1, -1, -1) if trees[i].get("phase") == "rewind"), None)
        store = self.tree_store()
        if last is None or store is None:
            raise CheckpointError("There is no rewind of the files to undo in this session.")
        done = self._recorded(
            lambda: rewind_tree(store, trees, last, trees[last]["undo"], on_conflict, undoes=last)
        )
        self._append(done.entry)
        self.last_rewind = done
        return [store.root / p for p in done.restored]

    def _recorded(self, work: Callable[[], TreeRewound]) -> TreeRewound:
        """Run a tree rewind; one that stopped part way is recorded all the same, so it can be undone."""
        from yoke.session.rewind import PartialRewind

        try:
            return work()
        except PartialRewind as exc:
            self._append(exc.entry)
            raise CheckpointError(str(exc)) from exc

    def _rewind_files(
        self, wanted: set[str], restore_files: bool, only: Callable[[str], bool] | None = None
    ) -> list[Path]:
        entries = [e for e in self.entries() if only is None or only(e["path"])]
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

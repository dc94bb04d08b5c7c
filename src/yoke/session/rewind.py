"""Rewinding the whole tree: back to a turn's start snapshot, never over someone else's edits, and undoable.

The checkpoint index (`checkpoints.py`) holds tree entries in order: `start` (taken before a turn's first
change), `end` (when that turn ended) and `rewind` (after a rewind, with the tree it replaced as `undo`).
What changed between an `end` (or `rewind`) and the next `start`, or since the newest entry, was changed by
something other than the session (the user's editor, another process): a path both changed that way and to
be restored is a conflict, and the rewind refuses (or keeps those files, or overwrites them, as asked).
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING, Any, Literal

from yoke.records import Record

if TYPE_CHECKING:
    from yoke.session.tree_snapshots import TreeStore

OnConflict = Literal["refuse", "keep", "overwrite"]
_OWN_END = ("end", "rewind")  # the session's own last word on the tree


class RewindConflict(ValueError):
    """Files changed since the session last saw them, by something other than the session."""

    def __init__(self, paths: list[str]):
        self.paths = paths
        shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
        super().__init__(
            f"{len(paths)} file(s) were changed outside this session since its last turn and would be "
            f"overwritten: {shown}. Nothing was restored."
        )


class PartialRewind(ValueError):
    """A restore that failed part way; `entry` records what it did (its `undo` tree undoes it)."""

    def __init__(self, reason: str, entry: dict[str, Any]):
        super().__init__(f"The rewind stopped part way ({reason}); /rewind undo puts back what it changed.")
        self.entry = entry


class TreeRewound(Record):
    __slots__ = ("restored", "kept", "skipped", "entry")

    restored: list[str]  # paths put back (relative to the root)
    kept: list[str]  # changed outside the session and left as they are (on_conflict="keep")
    skipped: list[str]  # too large to snapshot: left as they are
    entry: dict[str, Any]  # the `rewind` entry to append (its `undo` tree undoes it)

    def __init__(self, restored: list[str], kept: list[str], skipped: list[str], entry: dict[str, Any]):
        self.restored = restored
        self.kept = kept
        self.skipped = skipped
        self.entry = entry


def outside_changes(store: TreeStore, entries: list[dict[str, Any]], now: str) -> set[str]:
    """Paths changed by something other than the session over `entries` (oldest first) and up to `now`."""
    changed: set[str] = set()
    for before, after in pairwise(entries):
        if before.get("phase") in _OWN_END and after.get("phase") == "start":
            changed |= store.changed_paths(before["tree"], after["tree"])
    if entries and entries[-1].get("phase") in _OWN_END:
        changed |= store.changed_paths(entries[-1]["tree"], now)
    return changed


def rewind_tree(
    store: TreeStore,
    entries: list[dict[str, Any]],
    start: int,
    target: str,
    on_conflict: OnConflict = "refuse",
    undoes: int | None = None,
) -> TreeRewound:
    """Put the tree back to `target`, looking for outside edits over `entries[start:]`. Raises RewindConflict
    (nothing touched) when such edits would be overwritten and `on_conflict` is "refuse"."""
    now = store.snapshot()
    span = entries[start:]
    skipped = set(now.skipped)
    for item in span:
        skipped |= set(item.get("skipped") or ())
    wanted = store.changed_paths(target, now.tree) - skipped
    conflicts = sorted(outside_changes(store, span, now.tree) & wanted)
    kept: list[str] = []
    if conflicts and on_conflict == "refuse":
        raise RewindConflict(conflicts)
    if conflicts and on_conflict == "keep":
        kept = conflicts
        wanted -= set(conflicts)
    try:
        store.restore(target, wanted)
    except (OSError, ValueError) as exc:  # part of it done: what it did is recorded, so it can be undone
        after = store.snapshot()
        raise PartialRewind(
            str(exc),
            {"kind": "tree", "phase": "rewind", "tree": after.tree, "undo": now.tree, "partial": True},
        ) from exc
    after = store.snapshot()
    entry: dict[str, Any] = {"kind": "tree", "phase": "rewind", "tree": after.tree, "undo": now.tree}
    if undoes is not None:
        entry["undoes"] = undoes
    entry["skipped"] = after.skipped
    return TreeRewound(sorted(wanted), kept, sorted(skipped), entry)

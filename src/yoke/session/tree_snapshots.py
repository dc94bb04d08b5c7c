"""Whole-tree snapshots in a private git object store, so a rewind puts back what Bash did too.

The store is a bare git directory in the session's folder (`file-history/tree.git`), never the user's
repository: git runs with GIT_DIR, GIT_INDEX_FILE and GIT_WORK_TREE pointing at it, so the user's index, refs
and stash are never read for writing. Its scratch index starts as a copy of the user's (so its stat data make
an unchanged file cost one lstat), and its `objects/info/alternates` names the user's objects (so a committed
file is never stored twice). A snapshot is `ls-files -m -d -o` (what changed since the last snapshot, ignored
files excluded by the project's own ignore rules), `add` of those paths, `write-tree`; when nothing changed it
is the one `ls-files`. Hooks, filters, fsmonitor and every program the configuration names are off
(gitsafe), and `info/attributes` turns off every conversion, so a restore is byte for byte.

Limits: a file over `max_file_bytes`, or beyond `max_snapshot_bytes` of new content in one snapshot, is
skipped and listed (a rewind leaves it as it is). A folder that is not inside a git repository, or is the
home folder, gets no tree snapshots (the file tools' own checkpoints still work there).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

from yoke.gitsafe import program_overrides, run_git_plumbing, run_hardened_git
from yoke.jsonsafe import loads as safe_loads
from yoke.records import Record

MAX_FILE_BYTES = 10 * 1024 * 1024
MAX_SNAPSHOT_BYTES = 200 * 1024 * 1024
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's well-known empty tree
# every conversion off, so what is stored and what is restored are the file's bytes
_ATTRIBUTES = "* -text -ident -filter -working-tree-encoding\n"


class TreeError(ValueError):
    """A snapshot or restore failed (one line for the user)."""


class Snapshot(Record):
    __slots__ = ("tree", "skipped", "changed")

    tree: str
    skipped: list[str]  # paths (relative to the root) left out: too large
    changed: int  # how many paths were added or removed since the previous snapshot

    def __init__(self, tree: str, skipped: list[str], changed: int) -> None:
        self.tree = tree
        self.skipped = skipped
        self.changed = changed


class TreeStore:
    def __init__(
        self,
        store: Path,
        root: Path,
        user_git_dir: Path | None = None,
        user_objects: Path | None = None,
        *,
        max_file_bytes: int = MAX_FILE_BYTES,
        max_snapshot_bytes: int = MAX_SNAPSHOT_BYTES,
    ):
        self.store = store
        self.root = root
        self.user_git_dir = user_git_dir
        self.user_objects = user_objects
        self.max_file_bytes = max_file_bytes
        self.max_snapshot_bytes = max_snapshot_bytes
        self.index = store / "index"
        self._overrides: list[str] | None = None
        self._last: Snapshot | None = None

    # ---- finding the project ----------------------------------------------------------------------------

    @classmethod
    def open(cls, store: Path, cwd: Path | None = None, **limits: Any) -> TreeStore | None:
        """The store of a session folder: its project root is remembered in `root.json` on first use (from
        `cwd`); None when there is none (not a project)."""
        meta = store / "root.json"
        try:
            saved = safe_loads(meta.read_text(encoding="utf-8"))
            return cls(
                store,
                Path(saved["root"]),
                Path(saved["gitDir"]) if saved.get("gitDir") else None,
                Path(saved["objects"]) if saved.get("objects") else None,
                **limits,
            )
        except (OSError, ValueError, KeyError, TypeError):
            pass
        if cwd is None:
            return None
        found = project_root(cwd)
        if found is None:
            return None
        root, git_dir, objects = found
        store.mkdir(parents=True, exist_ok=True)
        meta.write_text(
            json.dumps({"root": str(root), "gitDir": str(git_dir), "objects": str(objects)}), encoding="utf-8"
        )
        return cls(store, root, git_dir, objects, **limits)

    # ---- git on the private store -------------------------------------------------------------------------

    def _env(self, index: Path | None = None) -> dict[str, str]:
        return {
            "GIT_DIR": str(self.store),
            "GIT_WORK_TREE": str(self.root),
            "GIT_INDEX_FILE": str(index or self.index),
            "GIT_LITERAL_PATHSPECS": "1",
        }

    def _git(self, *args: str, input: bytes | None = None, index: Path | None = None) -> bytes:
        if self._overrides is None:  # every program the user's and global configuration name, blanked
            self._overrides = program_overrides(self.root)
        fixed = ["-c", "core.autocrlf=false", "-c", "core.safecrlf=false", "-c", "gc.auto=0"]
        code, out, err = run_git_plumbing(
            self.root, args, env_extra=self._env(index), overrides=[*self._overrides, *fixed], input=input
        )
        if code != 0:
            message = err.decode("utf-8", "replace").strip().splitlines()
            raise TreeError(f"git {args[0]} failed: {message[-1] if message else f'exit {code}'}")
        return out

    def _init(self) -> None:
        if (self.store / "HEAD").exists():
            return
        self.store.mkdir(parents=True, exist_ok=True)
        for sub in ("objects/info", "refs", "info"):
            (self.store / sub).mkdir(parents=True, exist_ok=True)
        (self.store / "HEAD").write_text("ref: refs/heads/snapshots\n", encoding="utf-8")
        (self.store / "config").write_text(
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tlogallrefupdates = false\n"
            "[gc]\n\tauto = 0\n",
            encoding="utf-8",
        )
        (self.store / "info" / "attributes").write_text(_ATTRIBUTES, encoding="utf-8")
        if self.user_git_dir is not None:
            with contextlib.suppress(OSError):  # the user's own excludes count as theirs do
                shutil.copyfile(self.user_git_dir / "info" / "exclude", self.store / "info" / "exclude")
            with contextlib.suppress(OSError):  # its stat data: unchanged files are never read
                shutil.copyfile(self.user_git_dir / "index", self.index)
        if self.user_objects is not None and self.user_objects.is_dir():
            (self.store / "objects" / "info" / "alternates").write_text(
                f"{self.user_objects}\n", encoding="utf-8"
            )

    # ---- snapshot -----------------------------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        """The tree as it is now (ignored files excluded, large files skipped)."""
        if not (self.store / "HEAD").exists():
            self._init()
            if self.index.exists():  # the seeded stat data made current (racily clean entries re-read once)
                with contextlib.suppress(TreeError):
                    self._git("update-index", "-q", "--refresh")
        listed = self._git("ls-files", "-z", "-m", "-d", "-o", "--exclude-standard")
        changed = sorted({p for p in listed.decode("utf-8", "surrogateescape").split("\0") if p})
        if not changed and self._last is not None:
            return self._last
        keep, skipped = self._sizes(changed)
        if skipped:  # a skipped file leaves the index too: it is in no tree
            self._git("update-index", "-z", "--force-remove", "--stdin", input=_nul(skipped))
        if keep:
            self._git("add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul", input=_nul(keep))
        tree = self._git("write-tree").decode().strip()
        self._last = Snapshot(tree, skipped, len(keep))
        return self._last

    def _sizes(self, paths: list[str]) -> tuple[list[str], list[str]]:
        keep: list[tuple[int, str]] = []
        skipped: list[str] = []
        for path in paths:
            try:
                size = os.lstat(os.path.join(self.root, path)).st_size
            except OSError:
                size = 0  # gone: its removal is recorded
            (skipped.append(path) if size > self.max_file_bytes else keep.append((size, path)))
        total = sum(size for size, _ in keep)
        if total > self.max_snapshot_bytes:
            keep.sort(reverse=True)  # the largest go first until the rest fit
            while keep and total > self.max_snapshot_bytes:
                size, path = keep.pop(0)
                total -= size
                skipped.append(path)
        return sorted(p for _, p in keep), sorted(skipped)

    # ---- comparing and restoring --------------------------------------------------------------------------

    def changed_paths(self, a: str, b: str) -> set[str]:
        """Paths whose content, mode or presence differs between two trees."""
        if a == b:
            return set()
        out = self._git("diff-tree", "-r", "-z", "--no-renames", "--name-only", a, b)
        return {p for p in out.decode("utf-8", "surrogateescape").split("\0") if p}

    def present(self, tree: str, paths: set[str]) -> set[str]:
        if not paths:
            return set()
        out = self._git("ls-tree", "-r", "-z", "--name-only", "--full-tree", tree)
        return {p for p in out.decode("utf-8", "surrogateescape").split("\0") if p} & paths

    def restore(self, tree: str, paths: set[str]) -> None:
        """Put `paths` back as they are in `tree`: removed where the tree has none (first, deepest first, so a
        folder that stands where a file must go is gone), then written byte for byte with their mode."""
        there = self.present(tree, paths)
        for path in sorted(paths - there, reverse=True):
            full = self.root / path
            if full.is_dir() and not full.is_symlink():
                continue  # never a folder of the user's: only the files the tree says were not there
            with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                full.unlink()
            _remove_empty_parents(full.parent, self.root)
        scratch = self.store / "restore-index"
        try:
            if there:
                self._git("read-tree", tree, index=scratch)
                for path in there:  # an empty folder where a file must go is moved out of the way
                    _clear_way(self.root, path)
                self._git("checkout-index", "-f", "-z", "--stdin", input=_nul(sorted(there)), index=scratch)
        finally:
            scratch.unlink(missing_ok=True)
        self._last = None  # the next snapshot looks again


def project_root(cwd: Path) -> tuple[Path, Path, Path] | None:
    """(work tree root, git dir, objects dir) of the repository `cwd` is in; None outside one, or for the home
    folder itself (a whole home is not a project)."""
    from yoke.gitsafe import inside_repository

    cwd = Path(os.path.abspath(cwd))
    if not inside_repository(cwd):
        return None
    top, git_dir, common = run_hardened_git(
        cwd,
        [
            ("rev-parse", "--show-toplevel"),
            ("rev-parse", "--absolute-git-dir"),
            ("rev-parse", "--git-common-dir"),
        ],
        programs_off=False,
    )
    if not top or not git_dir or not common:
        return None
    root = Path(top)
    if root == Path.home() or root == Path("/"):
        return None
    common_dir = Path(common) if os.path.isabs(common) else cwd / common
    return root, Path(git_dir), common_dir.resolve() / "objects"


def _nul(paths: list[str]) -> bytes:
    return b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in paths)


def _clear_way(root: Path, path: str) -> None:
    full = root / path
    if full.is_dir() and not full.is_symlink():
        with contextlib.suppress(OSError):
            full.rmdir()  # only an empty one: a folder with the user's files in it is left, and git says so


def _remove_empty_parents(folder: Path, root: Path) -> None:
    while folder != root and root in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent

"""Writing files so that a crash never leaves a half-written one: a temporary file in the same folder,
flushed to disk, then renamed over the target."""

from __future__ import annotations

import os
import stat
from collections.abc import Collection, Iterator
from pathlib import Path


def replace_file(path: Path, data: bytes, mode: int | None = None) -> None:
    """Atomically replace `path` with `data` (parents created). `mode` sets the permission bits; by default
    an existing file keeps its own and a new one gets the usual 0o666 less the umask."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            mode = None
    temp = path.parent / f".{path.name}.{os.urandom(4).hex()}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # umask applies, as for any new file
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def bounded_scan(start: str, limit: int, skip: Collection[str]) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Each entry below `start` as (its folder, the entry), depth first, looking at no more than about `limit`
    entries: scans of a user's tree before a command runs must stay bounded. Folders named in `skip`, and
    links, are listed but not entered."""
    budget = limit
    stack = [start]
    while stack and budget > 0:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        budget -= len(entries)
        for entry in entries:
            yield folder, entry
            if entry.name not in skip and entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)

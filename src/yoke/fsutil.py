"""Writing files so that a crash never leaves a half-written one: a temporary file in the same folder,
flushed to disk, then renamed over the target. Reading configuration only from regular files."""

from __future__ import annotations

import os
import stat
from collections.abc import Collection, Iterator
from pathlib import Path


class NotRegularFile(OSError):
    """A configuration path that is a FIFO, a device, a socket or a folder. Reading one would wait for ever
    (a FIFO nobody writes) or without end (/dev/zero): it is refused like an unreadable file."""


def read_regular(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a configuration file: settings, `.mcp.json`, CLAUDE.md, commands, agents, skills,
    plugins' manifests. Only a regular file (or a symlink to one) is read: it is opened without blocking
    and checked before a byte is read, so a FIFO at `.claude/settings.json` cannot hang start-up. Raises
    FileNotFoundError when absent, `NotRegularFile` (an OSError saying so) for anything else."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(22, "not a regular file", str(path))
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_regular_text(path: str | os.PathLike[str], errors: str = "strict") -> str:
    """`read_regular` decoded as UTF-8 (UnicodeDecodeError when `errors` is strict and it is not), line ends
    made `\n` as `Path.read_text` makes them."""
    text = read_regular(path).decode("utf-8", errors)
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


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


def append_line(path: Path, line: str) -> None:
    """Add `line` to a text file by an atomic replace, under a `flock` on the file's folder (a replace swaps
    the file's inode, so the file cannot carry the lock): lines added at once by several processes are all
    kept, and a reader never sees half a file."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        try:
            current = read_regular_text(path)
        except FileNotFoundError:
            current = ""
        if current and not current.endswith("\n"):
            current += "\n"
        replace_file(path, (current + line.rstrip("\n") + "\n").encode("utf-8"))
    finally:
        os.close(folder)  # and the lock with it


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

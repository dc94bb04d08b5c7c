"""Folders the host owns, or refuses (tmux's rule): every runtime and record folder is created 0700 and checked
before each use: a real folder (not a link), owned by this user, writable by no one else. A folder another
user made first (`/tmp/yoke-<uid>` when `$XDG_RUNTIME_DIR` is unset), or one others may write into, is
refused in one line that says what to fix: what such a folder holds (a planted token, cookie, socket or link)
is never used. Every file in them is created with O_NOFOLLOW, 0600, or written to a temporary name
(O_EXCL) and renamed into place."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import IO, Any


class UnsafeFolder(PermissionError):
    """A runtime or record folder that is not this user's alone; `str` is the one line that says why."""

    def __init__(self, path: Path, why: str, fix: str):
        super().__init__(errno.EPERM, f"{why}; {fix}", str(path))

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def owned_dir(path: Path, create: bool = True) -> Path:
    """`path`, created 0700 when missing (its parents as usual), then checked: UnsafeFolder otherwise. A folder
    of ours that others may only read (an older Yoke's 0755) is narrowed to 0700: no one else could have put
    anything in it."""
    if create:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
    check_dir(path)
    return path


def check_dir(path: Path) -> None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise UnsafeFolder(path, "is a symbolic link", "remove it, and Yoke makes its own folder")
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeFolder(path, "is not a folder", "remove it, and Yoke makes its own folder")
    if st.st_uid != os.geteuid():
        raise UnsafeFolder(
            path,
            f"belongs to another user (uid {st.st_uid})",
            "it may be a trap: remove it (as that user or root), or set XDG_RUNTIME_DIR to a folder of yours",
        )
    if st.st_mode & 0o022:
        raise UnsafeFolder(
            path,
            f"may be written by others (mode {stat.S_IMODE(st.st_mode):o})",
            "check it, then chmod 700 it",
        )
    if st.st_mode & 0o077:
        os.chmod(path, 0o700)


def write_private(path: Path, data: bytes) -> None:
    """Replace `path` with `data`, 0600: written to a new temporary name (O_EXCL, never a link) and renamed,
    so a link planted at `path` is replaced, never followed."""
    temp = path.with_name(f".{path.name}.{os.urandom(4).hex()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def open_private(path: Path, mode: str = "a", **kwargs: Any) -> IO[Any]:
    """`open(path, mode)` for appending ("a", "ab") or reading ("r", "rb"), never through a link: a file we
    create is 0600, and one of ours found wider (an older Yoke's 0644 log) is narrowed to 0600."""
    flags = os.O_NOFOLLOW | os.O_CLOEXEC
    flags |= os.O_RDONLY if mode.startswith("r") else os.O_WRONLY | os.O_APPEND | os.O_CREAT
    fd = os.open(path, flags, 0o600)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            raise UnsafeFolder(path, "is not a regular file of yours", "remove it")
        if st.st_mode & 0o077:
            os.fchmod(fd, 0o600)
        return os.fdopen(fd, mode, **kwargs)
    except BaseException:
        os.close(fd)
        raise


def read_private(path: Path) -> str:
    with open_private(path, "r", encoding="utf-8") as handle:
        return handle.read()

"""One writer per session: an advisory lock on `<id>.lock` beside the transcript, holding the writer's pid.

The kernel drops a `flock` when its holder exits in any way (SIGKILL included), so a lock is never stale:
a file left behind by a dead process is simply locked again. The pid is only there to name the holder in
the error a second writer gets.
"""

from __future__ import annotations

import os
from pathlib import Path


class SessionBusy(RuntimeError):
    """Another live process writes this session."""

    def __init__(self, path: Path, pid: int | None):
        self.pid = pid
        holder = f"process {pid}" if pid else "another process"
        super().__init__(
            f"Session {path.stem} is in use by {holder}; wait for it to end, or resume it with "
            "--fork-session to continue in a copy."
        )


class SessionLock:
    def __init__(self, path: Path):
        self.path = path
        self._fd = -1

    def acquire(self) -> None:
        try:
            import fcntl
        except ImportError:  # no flock (Windows): no guard, as before
            return

        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pid = _read_pid(fd)
                os.close(fd)
                raise SessionBusy(self.path, pid) from None
            except OSError:
                os.close(fd)  # a file system without locks (some network mounts): no guard, as before
                return
            if _same_file(fd, self.path):
                break
            os.close(fd)  # the holder removed the file as we opened it: lock the one now there
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd < 0:
            return
        try:
            self.path.unlink()  # while still holding it: whoever opened this file sees it is gone
        except OSError:
            pass
        os.close(self._fd)
        self._fd = -1


def _read_pid(fd: int) -> int | None:
    try:
        return int(os.pread(fd, 32, 0).decode().strip() or 0) or None
    except (OSError, ValueError):
        return None


def _same_file(fd: int, path: Path) -> bool:
    try:
        a, b = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def lock_holder(path: Path) -> int | None:
    """The pid of the live process that holds the lock at `path` now (0 when it cannot be named), or None
    when nobody does: asked without taking the lock from a holder (a starter checks before it launches)."""
    try:
        import fcntl
    except ImportError:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None  # no lock file: no writer (a writer's file exists for as long as it holds it)
    try:
        pid = _read_pid(fd)
        try:
            # shared and at once: it fails only while a writer holds it exclusively
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return pid or 0
        except OSError:
            return None
        return None
    finally:
        os.close(fd)

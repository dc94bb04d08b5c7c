"""Append-only JSONL transcripts, one complete record per line, flushed before the event is shown.

Location follows Claude Code's convention under Yoke's home: `<home>/projects/<sanitized-cwd>/<id>.jsonl`,
where the sanitized cwd replaces every character outside [a-zA-Z0-9] with '-'.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from yoke.jsonsafe import loads, utf8
from yoke.session.lock import SessionLock

_UNSAFE = re.compile(r"[^a-zA-Z0-9]")


def yoke_home(env: Mapping[str, str] | None = None) -> Path:
    source = os.environ if env is None else env
    return Path(source.get("YOKE_HOME") or (Path.home() / ".yoke")).expanduser()


def sanitize_project(cwd: str | Path) -> str:
    name = _UNSAFE.sub("-", os.path.realpath(str(cwd)))
    if len(name) > 200:
        import hashlib

        name = name[:200] + "-" + hashlib.sha256(name.encode()).hexdigest()[:8]
    return name


def project_dir(cwd: str | Path, home: Path | None = None) -> Path:
    return (home or yoke_home()) / "projects" / sanitize_project(cwd)


def transcript_path(cwd: str | Path, session_id: str, home: Path | None = None) -> Path:
    return project_dir(cwd, home) / f"{session_id}.jsonl"


def session_dir(cwd: str | Path, session_id: str, home: Path | None = None) -> Path:
    """The session's own folder beside its transcript (spilled tool results, file checkpoints)."""
    return project_dir(cwd, home) / session_id


HOLD_LIMIT = 64 << 20  # bytes of records held in memory while the transcript cannot be written
RETRY_S = 3.0  # seconds between tries of the held records when nothing else is written


class Transcript:
    """An append-only JSONL file with one writer. `append` adds one whole line (O_APPEND); a
    write that fails part-way (a full disk) is cut back off, so the file only ever holds whole lines but
    for a crash mid-write, whose torn tail the next writer repairs before it appends (`_open`).

    A record that cannot be written is held in memory, in order; the next append, a retry every few seconds
    (a session left idle), and the close each try the held ones first: a disk that was full for a moment
    loses nothing. `on_warning` (the session sets it) tells every client, not only stderr, when saving
    stops and when it resumes."""

    def __init__(self, path: Path, enabled: bool = True):
        self.path = path
        self.enabled = enabled
        self._fd = -1
        self.lock: SessionLock | None = None
        self._held: list[bytes] = []
        self._held_bytes = 0
        self.on_warning: Callable[[str], None] | None = None
        self._guard = threading.Lock()  # the retry timer's thread and the appends
        self._timer: threading.Timer | None = None

    def claim(self) -> None:
        """Become the session's one writer (raises `SessionBusy` when another live process is)."""
        if self.enabled and self.lock is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            lock = SessionLock(self.path.with_suffix(".lock"))
            lock.acquire()
            self.lock = lock

    def append(self, record: dict[str, Any]) -> None:
        if not self.enabled:
            return
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str) + "\n"
        data = utf8(line)
        with self._guard:
            if self._held:
                self._hold(data, None)
                self._retry()
                return
            failure = self._write(data)
            if failure is not None:
                self._hold(data, failure)
                self._schedule()

    def _write(self, data: bytes) -> OSError | None:
        """One whole line, or nothing (a partial write is cut back off); the failure when there was one."""
        size = -1
        try:
            if self._fd < 0:
                self._fd = self._open()
            size = os.fstat(self._fd).st_size
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]
        except OSError as exc:
            if self._fd >= 0 and size >= 0:
                try:
                    os.ftruncate(self._fd, size)
                except OSError:
                    pass  # the torn tail is repaired when the session is next resumed
            return exc
        return None

    def _open(self) -> int:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            repair_tail(self.path, fd)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _hold(self, data: bytes, failure: OSError | None) -> None:
        """A full disk or read-only home must not kill the run the user is watching, nor lose what it
        says: keep the record for the next try, and say once that saving has stopped."""
        self._held.append(data)
        self._held_bytes += len(data)
        if failure is not None:
            self._warn(
                f"cannot write the transcript {self.path} ({failure.strerror or failure}); this session's "
                "records are kept in memory and written as soon as the transcript can be written again "
                "(if the session ends first, resuming it continues from the last saved message)"
            )
        if self._held_bytes > HOLD_LIMIT:
            count = len(self._held)
            self._held, self._held_bytes, self.enabled = [], 0, False
            self._warn(
                f"the transcript {self.path} could not be written for {count} records; the rest of this "
                "session is not saved (resuming it continues from the last saved message)"
            )

    def _schedule(self) -> None:
        """Try the held records again in a while, though nothing else is written meanwhile."""
        if self._timer is None and self._held:
            self._timer = threading.Timer(RETRY_S, self._retry_later)
            self._timer.daemon = True
            self._timer.start()

    def _retry_later(self) -> None:
        with self._guard:
            self._timer = None
            if self._held and not self._retry():
                self._schedule()

    def _retry(self) -> bool:
        """Write the held records, oldest first, until one fails; True when none is left."""
        count = len(self._held)
        while self._held:
            if self._write(self._held[0]) is not None:
                return False
            self._held_bytes -= len(self._held.pop(0))
        self._warn(f"the transcript {self.path} is written again ({count} held records saved)")
        return True

    def _warn(self, message: str) -> None:
        import sys

        if self.on_warning is not None:
            self.on_warning(message)
        try:  # stderr may be a file on the same full disk (a hosted session's)
            print(f"yoke: warning: {message}", file=sys.stderr, flush=True)
        except OSError:
            pass

    def close(self) -> None:
        with self._guard:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._held and not self._retry():
                count = len(self._held)
                self._held, self._held_bytes = [], 0
                self._warn(
                    f"{count} records of this session could not be written to {self.path}; resuming it "
                    "continues from the last saved message"
                )
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1
        if self.lock is not None:
            self.lock.release()
            self.lock = None


TORN_SUFFIX = ".torn"


def repair_tail(path: Path, fd: int) -> int:
    """Before appending: a file that does not end in a newline ends in a torn line (a crash mid-write).
    A tail that is a whole record only lacks its newline, which is added; anything else is moved to
    `<name>.torn` beside the transcript and cut off, so the next record starts a line of its own.
    Returns the number of bytes quarantined."""
    size = os.fstat(fd).st_size
    if size == 0:
        return 0
    with open(path, "rb") as fh:
        start = max(0, size - 1)
        fh.seek(start)
        if fh.read(1) == b"\n":
            return 0
        # find the start of the last line without reading a large file whole
        block = 1 << 16
        tail_start = 0
        pos = size
        while pos > 0:
            step = min(block, pos)
            pos -= step
            fh.seek(pos)
            chunk = fh.read(step)
            index = chunk.rfind(b"\n")
            if index >= 0:
                tail_start = pos + index + 1
                break
        fh.seek(tail_start)
        tail = fh.read()
    if _whole_record(tail):
        os.write(fd, b"\n")
        return 0
    with open(path.with_name(path.name + TORN_SUFFIX), "ab") as out:
        out.write(tail + b"\n")
    os.ftruncate(fd, tail_start)
    return len(tail)


def _whole_record(data: bytes) -> bool:
    try:
        return isinstance(loads(data.decode("utf-8", "surrogateescape")), dict)
    except ValueError:
        return False


def load_records(path: Path, skipped: list[int] | None = None) -> Iterator[dict[str, Any]]:
    """Every complete record of a transcript; a torn, corrupt or too deeply nested line (a crash, a hostile
    file) is skipped, never fatal, and its line number added to `skipped` when given."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        for number, line in enumerate(fh, 1):
            line = line.strip()
            if not line:
                continue
            try:
                record = loads(line)
            except ValueError:
                record = None
            if isinstance(record, dict):
                yield record
            elif skipped is not None:
                skipped.append(number)

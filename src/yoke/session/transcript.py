"""Append-only JSONL transcripts, one complete record per line, flushed before the event is shown.

Location follows Claude Code's convention under Yoke's home: `<home>/projects/<sanitized-cwd>/<id>.jsonl`,
where the sanitized cwd replaces every character outside [a-zA-Z0-9] with '-'.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
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


class Transcript:
    """An append-only JSONL file with one writer. `append` adds one whole line (O_APPEND); a
    write that fails part-way (a full disk) is cut back off, so the file only ever holds whole lines but
    for a crash mid-write, whose torn tail the next writer repairs before it appends (`_open`)."""

    def __init__(self, path: Path, enabled: bool = True):
        self.path = path
        self.enabled = enabled
        self._fd = -1
        self.lock: SessionLock | None = None

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
        size = -1
        try:
            if self._fd < 0:
                self._fd = self._open()
            size = os.fstat(self._fd).st_size
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]
        except OSError as exc:
            self._give_up(exc, size)

    def _open(self) -> int:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            repair_tail(self.path, fd)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _give_up(self, exc: OSError, size: int) -> None:
        """A full disk or read-only home must not kill the run the user is watching: cut off the partial
        line, say once what is and is not saved, go on."""
        self.enabled = False
        if self._fd >= 0 and size >= 0:
            try:
                os.ftruncate(self._fd, size)
            except OSError:
                pass  # the torn tail is repaired when the session is next resumed
        import sys

        print(
            f"yoke: warning: cannot write the transcript {self.path} ({exc.strerror or exc}); the rest of "
            "this session is not saved (resuming it continues from the last saved message)",
            file=sys.stderr,
        )

    def close(self) -> None:
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

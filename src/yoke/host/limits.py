"""What bounds the host's memory and disk: the replay buffer (messages and bytes), the stream logs (rotated),
and the prompts a state notification carries (previews). A host left running for weeks with large answers
stays the size these say (docs/reliability.md)."""

from __future__ import annotations

import os
from collections import deque
from pathlib import Path
from typing import Any

from yoke.host.owned import open_private

# bytes of messages the replay buffer keeps beside its count (YOKE_HOST_REPLAY_BUFFER); older ones are read
# from the stream log
BUFFER_BYTES = int(os.environ.get("YOKE_HOST_REPLAY_BYTES") or 32 * 1024 * 1024)
# a session's stream log is rotated past this size, to one older file: at most twice this on disk
STREAM_LOG_BYTES = int(os.environ.get("YOKE_HOST_STREAM_LOG_BYTES") or 64 * 1024 * 1024)
PREVIEW_CHARS = 1000  # of each queued prompt in `session.state`, `list` and `attach`


def queued_previews(queued: list[str]) -> list[str]:
    """The queued prompts as the state shows them: an 8 MB prompt is not sent to every client on every
    change of state."""
    return [q if len(q) <= PREVIEW_CHARS else q[:PREVIEW_CHARS] + "…" for q in queued]


class ReplayBuffer(deque):  # type: ignore[type-arg]
    """The last messages, at most `count` of them and `limit` bytes (as written to the stream log)."""

    def __init__(self, count: int, limit: int = BUFFER_BYTES):
        super().__init__(maxlen=count)
        self.limit = limit
        self.sizes: deque[int] = deque(maxlen=count)
        self.bytes = 0

    def add(self, entry: Any, size: int) -> None:
        if len(self) == self.maxlen:
            self.bytes -= self.sizes[0]
        self.append(entry)
        self.sizes.append(size)
        self.bytes += size
        while self.bytes > self.limit and len(self) > 1:
            self.popleft()
            self.bytes -= self.sizes.popleft()


def rotated(path: Path) -> Path:
    """Where the stream log's older part goes when it is rotated."""
    return path.with_name(path.name.replace(".stream.jsonl", ".stream.1.jsonl"))


class StreamLog:
    """A session's stream log, appended one line per message; past `limit` bytes the file becomes the
    older part (`rotated`) and a new one starts. A failed write (a full disk) is skipped: clients still
    get the message from the buffer."""

    def __init__(self, path: Path, limit: int = STREAM_LOG_BYTES):
        self.path = path
        self.limit = limit
        self._file = open_private(path, "a", encoding="utf-8")  # held for the session's life
        self.size = self._file.tell()

    @property
    def closed(self) -> bool:
        return self._file.closed

    def write(self, line: str) -> None:
        try:
            if self.size + len(line) > self.limit and self.size:
                self._file.close()
                os.replace(self.path, rotated(self.path))
                self._file = open_private(self.path, "a", encoding="utf-8")
                self.size = 0
            self._file.write(line)
            self._file.flush()
            self.size += len(line)
        except (OSError, ValueError):  # a full disk, or the file could not be opened again
            pass

    def close(self) -> None:
        self._file.close()

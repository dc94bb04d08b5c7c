"""Per-message results for the leading messages of a history, kept so each request looks only at what is new.

Every request re-sends the whole conversation, and several passes (encoding, cache-breakpoint counting, the
foreign-thinking guard, result budgets, token estimates) each looked at every message every turn: the
per-turn cost grew with the session. A history only grows at its end; anything else (compaction, a rewind,
a model switch) puts new message objects in place and never changes one in place. So when a new history
begins with the messages seen last time (compared at C speed: by identity, and by value where identities
differ), their results still hold and only the tail is computed.

A memo follows a few histories at once (a session and the sub-agents that share its provider), and holds
nothing but the messages of those histories as last seen: a history not asked about for a few calls (one
that compaction replaced, a finished sub-agent) is dropped, and its messages with it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

T = TypeVar("T")


def common_prefix(a: Sequence[Any], b: Sequence[Any]) -> int:
    """The length of the longest common prefix of two message lists."""
    n = min(len(a), len(b))
    if n == 0 or (a[0] is not b[0] and a[0] != b[0]):
        return 0
    if a[:n] == b[:n]:  # the common case: one is the other grown at its end
        return n
    low, high = 1, n  # a[:low] == b[:low] and a[:high] != b[:high]
    # Where they differ is usually near the end (the last messages replaced, cache marks moved): step back
    # from it in growing strides before bisecting, as each probe compares a whole prefix.
    stride = 1
    while high - stride > low:
        if a[: high - stride] == b[: high - stride]:
            low = high - stride
            break
        high -= stride
        stride *= 2
    while high - low > 1:
        middle = (low + high) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle
    return low


class _Stream(Generic[T]):
    __slots__ = ("messages", "values", "last_used")

    def __init__(self) -> None:
        self.messages: list[Any] = []
        self.values: list[T] = []
        self.last_used = 0


class PrefixMemo(Generic[T]):
    """`values(messages)` is `[compute(m) for m in messages]`, computing only what no earlier call did for
    the same leading messages. The list returned is the memo's own: use it before the next call."""

    def __init__(self, compute: Callable[[Any], T], histories: int = 4, idle_calls: int = 8):
        self._compute = compute
        self._histories = histories
        self._idle_calls = idle_calls
        self._streams: list[_Stream[T]] = []
        self._calls = 0

    def held(self) -> int:
        """How many messages the memo holds (for tests and memory accounting)."""
        return sum(len(s.messages) for s in self._streams)

    def values(self, messages: Sequence[Any]) -> list[T]:
        best: _Stream[T] | None = None
        reused = 0
        for stream in self._streams:
            length = common_prefix(stream.messages, messages)
            if length > reused:
                best, reused = stream, length
        if best is None:
            best = _Stream()
            if len(self._streams) >= self._histories:
                self._streams.pop()
        else:
            self._streams.remove(best)
        self._calls += 1
        best.last_used = self._calls
        self._streams.insert(0, best)
        self._streams = [s for s in self._streams if self._calls - s.last_used <= self._idle_calls]
        compute = self._compute
        values = best.values[:reused] if reused < len(best.values) else best.values
        values.extend(compute(m) for m in messages[reused:])
        best.messages = list(messages)
        best.values = values
        return values

"""Per-message results for the leading messages of a history, kept so each request looks only at what is new.

Every request re-sends the whole conversation, and several passes (encoding, cache-breakpoint counting, the
foreign-thinking guard, result budgets, token estimates) each looked at every message every turn: the
per-turn cost grew with the session. A history only grows at its end; anything else (compaction, a rewind,
a model switch) puts new message objects in place and never changes one in place. So when a new history
begins with the messages seen last time (compared at C speed: by identity, and by value where identities
differ), their results still hold and only the tail is computed. Sums over the results (a token count, how
many messages need snipping) are kept as running totals, so they too cost only what is new.

A memo follows a few histories at once (a session and the sub-agents that share its provider), and holds
nothing but the messages of those histories as last seen: a history not asked about for a few calls (one
that compaction replaced, a finished sub-agent) is dropped, and its messages with it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

T = TypeVar("T")

# How far from its end a history is first probed when it is not the last one grown: request bodies differ
# from the previous one just in their last few messages (the moved cache marks), so one comparison of the
# prefix before them and a short scan usually find the point.
_NEAR_END = 8


def _head(items: Sequence[Any], n: int) -> Sequence[Any]:
    return items if len(items) == n else items[:n]  # a slice copies: skip it when it would be the whole


def common_prefix(a: Sequence[Any], b: Sequence[Any]) -> int:
    """The length of the longest common prefix of two message lists."""
    n = min(len(a), len(b))
    if n == 0 or (a[0] is not b[0] and a[0] != b[0]):
        return 0
    if _head(a, n) == _head(b, n):  # the common case: one is the other grown at its end
        return n
    low, high = 1, n  # a[:low] == b[:low] and a[:high] != b[:high]
    probe = n - _NEAR_END
    if probe > low:
        if a[:probe] == b[:probe]:
            while a[probe] is b[probe] or a[probe] == b[probe]:  # stops before n: a[:n] differs
                probe += 1
            return probe
        high = probe
    # Elsewhere: step back in growing strides before bisecting, as each probe compares a whole prefix.
    stride = _NEAR_END
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
    __slots__ = ("messages", "values", "sums", "last_used")

    def __init__(self, tallies: int) -> None:
        self.messages: list[Any] = []
        self.values: list[T] = []
        self.sums: list[list[int]] = [[0] for _ in range(tallies)]  # sums[j][i]: tally j over values[:i]
        self.last_used = 0


class PrefixMemo(Generic[T]):
    """`values(messages)` is `[compute(m) for m in messages]`, computing only what no earlier call did for
    the same leading messages. The list returned is the memo's own: use it before the next call.

    `tallies` are functions of one value giving an int; `total(j)` is then tally j summed over the values of
    the last call, kept as running sums so that it costs nothing per message seen before."""

    def __init__(
        self,
        compute: Callable[[Any], T],
        histories: int = 4,
        idle_calls: int = 8,
        tallies: Sequence[Callable[[T], int]] = (),
    ):
        self._compute = compute
        self._tallies = tuple(tallies)
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
            best = _Stream(len(self._tallies))
            if len(self._streams) >= self._histories:
                self._streams.pop()
        else:
            self._streams.remove(best)
        self._calls += 1
        best.last_used = self._calls
        self._streams.insert(0, best)
        self._streams = [s for s in self._streams if self._calls - s.last_used <= self._idle_calls]
        values = best.values
        if reused < len(values):
            del values[reused:]
            for sums in best.sums:
                del sums[reused + 1 :]
        fresh = [self._compute(m) for m in messages[reused:]]
        values += fresh
        for tally, sums in zip(self._tallies, best.sums, strict=True):
            running = sums[-1]
            for value in fresh:
                running += tally(value)
                sums.append(running)
        best.messages = list(messages)
        return values

    def total(self, tally: int = 0, upto: int | None = None) -> int:
        """Tally number `tally` summed over the values of the last `values()` call, or over its first `upto`."""
        sums = self._streams[0].sums[tally]
        return sums[-1] if upto is None else sums[upto]

"""Run work in a task of its own and hand what it produces to an async generator, so that cancelling the
task (an interrupt) takes effect at once from any await point inside it, even before it has started."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

Put = Callable[[Any], None]
CLEANUP_WAIT_S = 0.3  # how long an interrupted task may take to clean up before the consumer moves on


class Pump:
    """`async for item in pump.items(): ...` yields what `work(put)` puts, then ends. Afterwards `cancelled`
    says whether the work was cancelled (interrupted) and `error` holds an exception it raised."""

    def __init__(self, work: Callable[[Put], Coroutine[Any, Any, None]]):
        self._work = work
        self.task: asyncio.Task[None] | None = None
        self.cancelled = False
        self.error: BaseException | None = None
        self._cancel_requested = False

    def cancel(self) -> None:
        self._cancel_requested = True
        if self.task is not None and not self.task.done():
            self.task.cancel()

    async def items(self) -> AsyncIterator[Any]:
        # A deque and one bare future to wake on, not a Queue: each wait would otherwise cost a task and an
        # asyncio.wait, several times a turn.
        loop = asyncio.get_running_loop()
        pending: deque[Any] = deque()
        waiter: asyncio.Future | None = None

        def wake(_: Any = None) -> None:
            if waiter is not None and not waiter.done():
                waiter.set_result(None)

        def put(item: Any) -> None:
            pending.append(item)
            wake()

        self.task = task = loop.create_task(self._work(put))
        task.add_done_callback(wake)
        if self._cancel_requested:  # interrupted before the work could even start
            task.cancel()
        try:
            while True:
                if pending:
                    yield pending.popleft()
                    continue
                if task.done():
                    break
                waiter = loop.create_future()
                try:
                    await waiter
                finally:
                    waiter = None
        finally:
            await self._settle()

    async def _settle(self) -> None:
        task = self.task
        if task is None:
            return
        if not task.done():
            task.cancel()
            # Give the work a moment to clean up (kill a process group, close a stream); an interrupt must
            # still end the query promptly, so past this the cleanup finishes in the background.
            await asyncio.wait({task}, timeout=CLEANUP_WAIT_S)
        if task.done() and not task.cancelled():
            self.error = task.exception()
        self.cancelled = self._cancel_requested or task.cancelled() or not task.done()

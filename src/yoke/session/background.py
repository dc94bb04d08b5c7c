"""Background work's part of a session: the events background sub-agents and commands raise after the query
that started them, the wait on them between queries (`-p`, stream-json input), and the follow-up query a
completion notice starts. `Session` makes one `BackgroundWork` when background work first posts or is
waited on, and delegates to it; what is running (`Session.background_busy`) it answers itself."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from yoke import events as ev

if TYPE_CHECKING:
    from yoke.session.engine import Session


class BackgroundWork:
    """One session's background events and the wait on them; only the root session's is used (a child posts
    to its root)."""

    def __init__(self, session: Session):
        self.session = session
        self.posts: list[ev.Event] = []  # raised after their Agent call returned, for `events`
        self.wake: Any = None  # an asyncio.Event while someone waits on background work
        self.stopped = False  # the session was interrupted: a running wait ends

    def stop(self) -> None:
        """The session's interrupt: a wait on background work ends."""
        self.stopped = True
        if self.wake is not None:
            self.wake.set()

    def post(self, event: ev.Event) -> None:
        root = self.session
        while root.parent is not None:
            root = root.parent
        if root is not self.session:
            root.post_background(event)
            return
        self.posts.append(event)
        if self.wake is not None:
            self.wake.set()

    async def events(self, timeout: float, until: Any = None) -> AsyncIterator[ev.Event]:
        deadline = time.monotonic() + timeout
        self.stopped = False
        wake = self.wake = asyncio.Event()
        try:
            while True:
                while self.posts:
                    yield self.posts.pop(0)
                if self.stopped or self.session.follow_up_due() or not self.session.background_busy():
                    return
                if until is not None and until.done():
                    return
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                waiter = asyncio.ensure_future(wake.wait())
                waits = {waiter} if until is None else {waiter, until}
                await asyncio.wait(waits, timeout=min(left, 0.5), return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
                wake.clear()
        finally:
            self.wake = None

    async def follow_up(self) -> AsyncIterator[ev.Event]:
        inbox = self.session.agent.inbox
        notices = "\n\n".join(inbox)
        inbox.clear()
        spend = self.session.agent.spend
        spend.cause = "background_notice"  # its requests' cost is the notice's, not a prompt's
        try:
            async for event in self.session.query(notices):
                yield event
        finally:
            spend.cause = "user_prompt"

"""Background work's part of a session: the events background sub-agents and commands raise after the query
that started them, the wait on them between queries (`-p`, stream-json input), and the follow-up query a
completion notice starts. `Session` holds one `BackgroundWork` and delegates its background methods here."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from yoke import events as ev

if TYPE_CHECKING:
    from yoke.session.engine import Session


TASK_NOTICE = "<task-notification>"  # how a background task's notice to the model begins


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

    def tasks(self) -> list[dict[str, Any]]:
        manager = getattr(self.session.services.shell, "tasks", None)
        if manager is None:
            return []
        return [
            {"id": t.id, "command": t.command, "description": t.description, "started_at": t.started_at}
            for t in manager.tasks()
            if t.running
        ]

    def busy(self, commands: bool = True) -> bool:
        agents = getattr(self.session.services.agents, "agents", None) or {}
        if any(getattr(a, "background", False) and a.running for a in agents.values()):
            return True
        return commands and bool(self.tasks())

    def follow_up_due(self) -> bool:
        return any(text.startswith(TASK_NOTICE) for text in self.session.agent.inbox)

    async def events(self, timeout: float, until: Any = None) -> AsyncIterator[ev.Event]:
        import asyncio
        import time

        deadline = time.monotonic() + timeout
        self.stopped = False
        wake = self.wake = asyncio.Event()
        try:
            while True:
                while self.posts:
                    yield self.posts.pop(0)
                if self.stopped or self.follow_up_due() or not self.busy():
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
        async for event in self.session.query(notices):
            yield event

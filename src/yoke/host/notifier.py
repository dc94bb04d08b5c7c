"""The host tells people when a session needs them (docs/notifications.md): it reads each hosted session's
stream as it relays it and, on

- blocked: a permission prompt or an AskUserQuestion waiting (a `can_use_tool` request),
- finished: a turn's result with nothing queued after it (the session goes idle),
- failed: an error result, or the session's process ending with a non-zero code unasked,
- goal verified: `/goal`'s `Goal verified` notice,
- the model's `PushNotification` call,

sends a `Notice` to every subscribed device (Web Push, `push.py`) and to the user's webhook if one is set,
coalesced per session and state (`yoke.notify.Coalesce`). Sending never holds up the relay: each notice is
its own task, and a failure is logged to the host's stderr in one line."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from yoke import notify
from yoke.notify import Notice

GOAL_VERIFIED = "Goal verified"  # the start of skills/goal.py's notice when the check passes


def classify(message: dict[str, Any], queued: bool) -> tuple[str, str, str] | None:
    """(state, tool, the model's message) for a stream message that deserves a notification, else None."""
    kind = message.get("type")
    if kind == "control_request":
        request = message.get("request") or {}
        if request.get("subtype") == "can_use_tool":
            return "blocked", str(request.get("tool_name") or ""), ""
    elif kind == "result":
        if message.get("is_error") or str(message.get("subtype") or "").startswith("error"):
            return "failed", "", ""
        return None if queued else ("finished", "", "")
    elif kind == "system":
        subtype = message.get("subtype")
        if subtype == "informational" and str(message.get("content") or "").startswith(GOAL_VERIFIED):
            return "goal_verified", "", ""
        if subtype == "session_ended" and message.get("exit_code") not in (0, None, -15):
            return "failed", "", ""
    elif kind == "assistant" and message.get("parent_tool_use_id") is None:
        for block in (message.get("message") or {}).get("content") or []:
            if (
                isinstance(block, dict)
                and block.get("type") == "tool_use"
                and block.get("name") == "PushNotification"
            ):
                text = (block.get("input") or {}).get("message")
                if isinstance(text, str) and text.strip():
                    return "message", "", text
    return None


class Notifier:
    def __init__(self, host: Any):
        self.host = host
        self.coalesce = notify.Coalesce()
        self.tasks: set[asyncio.Task[None]] = set()
        self.last: dict[str, asyncio.Task[None]] = {}  # each session's latest send: the next waits for it

    def observe(self, session: Any, message: dict[str, Any]) -> None:
        """Called in the session's relay: it must never raise into it."""
        try:
            self._observe(session, message)
        except Exception as exc:
            print(f"yoke host: notification for {session.ident} not sent: {exc!r}", file=sys.stderr)

    def _observe(self, session: Any, message: dict[str, Any]) -> None:
        found = classify(message, bool(session.queued))
        if found is None:
            return
        if found[0] == "failed" and session.stopping:
            return  # `yoke stop` asked for it
        state, tool, text = found
        try:  # read now (a few small files, and only for a notable message): the window is the user's
            found_settings = notify.user_settings()
            self.coalesce.seconds = notify.coalesce_seconds(found_settings)
            settings: dict[str, Any] | Exception = found_settings
        except Exception as exc:  # an unreadable settings file: said once the notice is sent
            settings = exc
        if not self.coalesce.allow(session.ident, state):
            return
        title = str(session.record.get("name") or session.ident)
        notice = Notice(session.ident, title, state, tool, text, self._page_url(session.ident))
        # one session's notices go out in the order they happened (a push and a webhook each take a request)
        previous = self.last.get(session.ident)
        task = asyncio.get_running_loop().create_task(self._after(previous, notice, settings))
        self.last[session.ident] = task
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        task.add_done_callback(lambda done: self._done(session.ident, done))

    async def _after(
        self, previous: asyncio.Task[None] | None, notice: Notice, settings: dict[str, Any] | Exception
    ) -> None:
        if previous is not None:
            await asyncio.gather(previous, return_exceptions=True)
        await self.send(notice, settings)

    def _done(self, session: str, task: asyncio.Task[None]) -> None:
        if self.last.get(session) is task:
            del self.last[session]

    def _page_url(self, session: str) -> str:
        from yoke.host.push import session_url

        page = next(iter(getattr(self.host, "pages", {}).values()), None)
        return session_url(page.url, session) if page is not None else ""

    async def send(self, notice: Notice, settings: dict[str, Any] | Exception) -> None:
        from yoke.host import push

        try:
            if isinstance(settings, Exception):
                raise settings
            block = settings.get(notify.SETTING)
            contact = str(block.get("contact") or push.CONTACT) if isinstance(block, dict) else push.CONTACT
            hook = notify.webhook(settings)
            sends = [push.send(notice, contact)]
            if hook is not None:
                sends.append(_one(notify.post_webhook(hook, notice)))
            problems = [p for part in await asyncio.gather(*sends) for p in part]
        except Exception as exc:  # a bad setting, a missing extra: said, and the session goes on
            problems = [f"{type(exc).__name__}: {exc}"]
        for problem in problems:
            print(f"yoke host: notification for {notice.session} not sent: {problem}", file=sys.stderr)


async def _one(sending: Any) -> list[str]:
    problem = await sending
    return [problem] if problem else []

"""PushNotification: the model tells the user something when they have probably walked away (a long task done,
a decision needed). Its input schema is Claude Code 2.1.332's (tests/host/cc_2_1_332_push_notification.json);
like 2.1.332 it is read-only, needs no permission and is offered only where a notification can go
(`session/tool_setup.py`): a hosted session, or one with `remoteNotifications.webhook` in the user's settings.

It sends through the same path as the host's own notifications (docs/notifications.md): in a hosted session
the host reads the call on the session's stream and sends it (Web Push to the page's subscribed devices and
the webhook), coalesced and redacted as the rest; elsewhere it posts the webhook itself. With neither, it
says so in its result. The message is redacted (`yoke.redact`) and cut to 200 characters."""

from __future__ import annotations

import datetime
import os
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from yoke import notify
from yoke.tools.base import Tool, ToolContext, ToolKind, ToolResult
from yoke.tools.schema import ToolInput

DESCRIPTION = """\
Sends the user a short notification (to their phone through the remote page's Web Push, or their webhook). \
Use it when a long task has finished or you need a decision and the user has probably walked away, or when \
they asked to be notified; not for routine progress or quick tasks. Keep the message under 200 characters \
and never put secrets, file contents or command output in it.\
"""
NO_TRANSPORT = (
    "Not sent: no notification channel is set up. Run the session in the host (`yoke --bg`) with the remote "
    f"page's notifications on, or set {notify.SETTING}.webhook in your user settings."
)
_sent = notify.Coalesce()  # this process's own sends (a session that is not hosted)


class PushNotificationInput(ToolInput):
    message: str = Field(
        min_length=1,
        description="The notification body. Keep it under 200 characters; phones cut longer ones.",
    )
    status: Literal["proactive"] | None = None


class PushNotificationTool(Tool):
    name: ClassVar[str] = "PushNotification"
    kind: ClassVar[ToolKind] = "other"
    description: ClassVar[str] = DESCRIPTION
    input_model: ClassVar[type[BaseModel]] = PushNotificationInput
    read_only: ClassVar[bool] = True
    concurrency_safe: ClassVar[bool] = True

    async def run(self, input: PushNotificationInput, ctx: ToolContext) -> ToolResult:
        env = {**os.environ, **(ctx.env or {})}
        data: dict[str, Any] = {"message": input.message, "pushSent": False, "localSent": False,
                                "sentAt": datetime.datetime.now(datetime.UTC).isoformat()}  # fmt: skip
        if env.get("YOKE_HOSTED") == "1":  # the host reads this call on the stream and sends it
            data["pushSent"] = True
            return ToolResult("Notification requested through the session host.", data=data)
        try:
            hook = notify.webhook(notify.user_settings(env))
        except ValueError as exc:
            return ToolResult(
                f"Not sent: {exc}", is_error=True, data={**data, "disabledReason": "no_transport"}
            )
        if hook is None:
            return ToolResult(NO_TRANSPORT, data={**data, "disabledReason": "no_transport"})
        session = str(getattr(ctx.session, "session_id", "") or "session")
        if not _sent.allow(session, "message"):
            return ToolResult(f"Not sent: one was sent less than {_sent.seconds:.0f} s ago.", data=data)
        title = os.path.basename(str(ctx.cwd)) or "session"
        problem = await notify.post_webhook(
            hook, notify.Notice(session, title, "message", message=input.message)
        )
        if problem:
            return ToolResult(f"Not sent: {problem}", is_error=True, data=data)
        return ToolResult("Notification sent to the webhook.", data={**data, "pushSent": True})

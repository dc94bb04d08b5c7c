"""Telling a person that a session needs them (docs/notifications.md): what a notification says, how often,
and the optional webhook. Web Push to the remote page's subscribed devices is the host's (`host/push.py`);
both carry the same `Notice`, composed here.

A notification says only which session (its title), what state it reached, and for a permission prompt the
tool's name: never a tool's input or output, a file's content or a secret. The title and the model's own
message (`PushNotification`) pass through the one redactor (`yoke.redact`, as the remote page's messages do)
and are cut short. The same state of the same session is coalesced: told once per COALESCE_SECONDS.

The webhook is read from the user's own settings only (`remoteNotifications.webhook` in
~/.claude/settings.json or Yoke's home): a cloned project's settings cannot send your sessions' news to a
server of its choosing."""

from __future__ import annotations

import json
import os
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any

from yoke.redact import redact_text

SETTING = "remoteNotifications"
COALESCE_SECONDS = 30.0  # one notification per session and state within this many seconds
WEBHOOK_TIMEOUT = 10.0
FORMATS = ("ntfy", "slack", "json")
MAX_TITLE, MAX_MESSAGE = 80, 200  # mobile systems cut longer text anyway
STATES = {
    "blocked": "needs you",
    "finished": "finished",
    "failed": "failed",
    "goal_verified": "goal verified",
    "message": "says",
}


@dataclass(slots=True)
class Notice:
    session: str  # the host's id for the session (the page's /s/<id>)
    title: str  # the session's name
    state: str  # a key of STATES
    tool: str = ""  # the tool waiting for permission (blocked), or "AskUserQuestion"
    message: str = ""  # the model's own words (PushNotification)
    url: str = ""  # the session's page, when a page is served

    def headline(self) -> str:
        return _clean(f"Yoke: {self.title or self.session}", MAX_TITLE)

    def body(self) -> str:
        if self.state == "message":
            return _clean(self.message, MAX_MESSAGE)
        if self.state == "blocked":
            what = {"AskUserQuestion": "a question", "ExitPlanMode": "a plan to approve"}.get(
                self.tool, f"permission for {self.tool or 'a tool'}"
            )
            return _clean(f"Needs you: waiting for {what}", MAX_MESSAGE)
        return _clean(STATES.get(self.state, self.state).capitalize(), MAX_MESSAGE)

    def payload(self) -> dict[str, Any]:
        """What a push message and the generic webhook carry."""
        data = {"title": self.headline(), "body": self.body(), "state": self.state, "session": self.session}
        if self.tool:
            data["tool"] = _clean(self.tool, 64)
        if self.url:
            data["url"] = self.url
        return data


def _clean(text: str, limit: int) -> str:
    text = " ".join(redact_text(str(text)).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Coalesce:
    """Per session and state, one notification per `seconds` (a prompt answered and asked again at once, a
    run of turns each ending, tell once)."""

    def __init__(self, seconds: float = COALESCE_SECONDS):
        self.seconds = seconds
        self.last: dict[tuple[str, str], float] = {}

    def allow(self, session: str, state: str) -> bool:
        now = time.monotonic()
        if len(self.last) > 4096:
            self.last = {k: t for k, t in self.last.items() if now - t < self.seconds}
        key = (session, state)
        if key in self.last and now - self.last[key] < self.seconds:
            return False
        self.last[key] = now
        return True


def coalesce_seconds(settings: dict[str, Any]) -> float:
    block = settings.get(SETTING)
    value = block.get("coalesceSeconds") if isinstance(block, dict) else None
    return float(value) if isinstance(value, int | float) and value >= 0 else COALESCE_SECONDS


@dataclass(slots=True)
class Webhook:
    url: str
    format: str = "json"


def user_settings(env: dict[str, str] | None = None) -> dict[str, Any]:
    """This user's own settings (~/.claude/settings.json and Yoke's home), never a project's."""
    from pathlib import Path

    from yoke.config.settings import load_settings

    env = dict(os.environ) if env is None else env
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    return load_settings(home, home=home, setting_sources=["user"]).merged  # (and the managed policy)


def webhook(settings: dict[str, Any]) -> Webhook | None:
    """The configured webhook, or None; ValueError says in one line what is wrong with it."""
    block = settings.get(SETTING)
    if not isinstance(block, dict) or not block.get("webhook"):
        return None
    url = str(block["webhook"])
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{SETTING}.webhook must be an http(s) URL, not {url[:60]!r}")
    kind = str(block.get("format") or ("ntfy" if parts.hostname.startswith("ntfy.") else "json"))
    if kind not in FORMATS:
        raise ValueError(f"{SETTING}.format is one of {', '.join(FORMATS)}, not {kind!r}")
    return Webhook(url, kind)


def webhook_request(hook: Webhook, notice: Notice) -> tuple[dict[str, str], bytes]:
    """The headers and body the webhook is sent: ntfy's plain text with Title/Click headers, Slack's
    `{"text": ...}`, or the notice as JSON."""
    if hook.format == "ntfy":
        headers = {"Content-Type": "text/plain; charset=utf-8", "Title": _header(notice.headline())}
        if notice.url:
            headers["Click"] = _header(notice.url)
        return headers, notice.body().encode()
    if hook.format == "slack":
        text = f"{notice.headline()}: {notice.body()}" + (f" <{notice.url}|open>" if notice.url else "")
        return {"Content-Type": "application/json"}, json.dumps({"text": text}).encode()
    return {"Content-Type": "application/json"}, json.dumps(
        {"event": notice.state, **notice.payload()}
    ).encode()


def _header(text: str) -> str:
    """A header value: printable ASCII only (HTTP headers are Latin-1; no line break can be smuggled)."""
    return "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in text)


async def post_webhook(hook: Webhook, notice: Notice) -> str:
    """Send; "" when the receiver took it, else one line that says why not."""
    import httpx

    headers, body = webhook_request(hook, notice)
    try:
        async with httpx.AsyncClient(timeout=WEBHOOK_TIMEOUT, follow_redirects=False) as client:
            reply = await client.post(hook.url, content=body, headers=headers)
    except httpx.HTTPError as exc:
        return f"webhook: {type(exc).__name__}"
    return "" if reply.status_code < 300 else f"webhook: HTTP {reply.status_code}"

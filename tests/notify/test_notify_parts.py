"""The parts of docs/notifications.md that need no host: what a notice says (redacted, short), coalescing,
the webhook's three shapes, the PushNotification tool's schema (2.1.332's) and its answer with no channel,
the VAPID key kept 0600 and stable, and subscriptions forgotten when a device is unpaired or gone (410)."""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path

import pytest
from tests.conftest import anthropic_env

from yoke import notify
from yoke.notify import Coalesce, Notice, Webhook, webhook, webhook_request
from yoke.testing import ScriptedServer

SECRET = "sk-ant-api03-" + "Q" * 40
FIXTURE = json.loads(
    (Path(__file__).parent.parent / "host" / "cc_2_1_332_push_notification.json").read_text()
)


def _strip(schema):
    if isinstance(schema, dict):
        return {k: _strip(v) for k, v in schema.items() if k != "description"}
    return schema


def test_a_notice_says_title_state_and_tool_only_with_secrets_masked():
    notice = Notice("abc", f"deploy with {SECRET}", "blocked", "Bash", url="http://h:1/s/abc")
    assert notice.body() == "Needs you: waiting for permission for Bash"
    assert SECRET not in json.dumps(notice.payload()) and notice.headline().startswith("Yoke: deploy with ")
    assert Notice("a", "t", "blocked", "AskUserQuestion").body() == "Needs you: waiting for a question"
    assert Notice("a", "t", "blocked", "ExitPlanMode").body() == "Needs you: waiting for a plan to approve"
    long = Notice("a", "t" * 300, "message", message="m" * 500)
    assert len(long.headline()) <= notify.MAX_TITLE and len(long.body()) <= notify.MAX_MESSAGE


def test_the_same_state_of_a_session_is_told_once_per_window():
    gate = Coalesce(30)
    assert gate.allow("s1", "blocked") and not gate.allow("s1", "blocked")
    assert gate.allow("s1", "finished") and gate.allow("s2", "blocked")
    assert Coalesce(0).allow("s", "x") and Coalesce(0).allow("s", "x")


def test_the_webhook_shapes_and_its_setting():
    notice = Notice("abc", "title", "finished", url="http://h:1/s/abc")
    headers, body = webhook_request(Webhook("https://ntfy.sh/x", "ntfy"), notice)
    assert (headers["Title"], headers["Click"], body) == ("Yoke: title", "http://h:1/s/abc", b"Finished")
    _, body = webhook_request(Webhook("https://hooks.example/x", "slack"), notice)
    assert json.loads(body) == {"text": "Yoke: title: Finished <http://h:1/s/abc|open>"}
    _, body = webhook_request(Webhook("https://x.example/y", "json"), notice)
    assert json.loads(body)["event"] == "finished" and json.loads(body)["url"] == "http://h:1/s/abc"
    # a header never carries a line break or non-ASCII
    headers, _ = webhook_request(Webhook("https://ntfy.sh/x", "ntfy"), Notice("a", "é\r\nX: y", "failed"))
    assert "\n" not in headers["Title"] and "\r" not in headers["Title"]
    assert webhook({}) is None
    assert webhook({"remoteNotifications": {"webhook": "https://ntfy.sh/t"}}).format == "ntfy"
    for bad in ({"webhook": "file:///etc/passwd"}, {"webhook": "https://x.example", "format": "xml"}):
        with pytest.raises(ValueError):
            webhook({"remoteNotifications": bad})


def test_the_tool_schema_is_2_1_332s():
    from yoke.tools.builtin.push_notification import PushNotificationTool

    assert _strip(PushNotificationTool().input_schema()) == FIXTURE["input_schema"]


async def test_with_no_channel_the_tool_says_so(project, base_env):
    from yoke import events as ev
    from yoke.events import port
    from yoke.session import SessionOptions, open_session

    call = {"type": "tool_use", "id": "p1", "name": "PushNotification", "input": {"message": "done"}}
    turns = [{"content": [call]}, {"content": [{"type": "text", "text": "ok"}]}]
    with ScriptedServer(turns) as srv:
        env = dict(base_env, **anthropic_env(srv))
        env.pop("YOKE_HOSTED", None)
        options = SessionOptions(cwd=project, env=env, tools=["Bash", "PushNotification"])
        session = await open_session(options)
        try:
            stream = session.events()
            await session.submit(port.Prompt("tell me"))
            async with asyncio.timeout(60):
                async for event in stream:
                    if isinstance(event, ev.ToolResultEvent):
                        result = event
                    if isinstance(event, ev.Result):
                        break
        finally:
            await session.close()
    content = result.block.get("content")
    text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
    assert "no notification channel is set up" in text and "remoteNotifications.webhook" in text


def test_vapid_key_and_subscriptions_per_device(tmp_path, monkeypatch):
    pytest.importorskip("pywebpush", reason="Web Push needs the remote extra (pywebpush)")
    from tests.host.push_service import PushService

    from yoke.host import pairing, push

    monkeypatch.setenv("YOKE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("YOKE_HOST_DIR", str(tmp_path / "run"))
    service = PushService()
    monkeypatch.setenv("YOKE_PUSH_ENDPOINTS", service.base + "/push/")
    try:
        key = push.public_key()
        assert push.public_key() == key  # made once
        assert stat.S_IMODE(push.vapid_path().stat().st_mode) == 0o600
        service.expected_key = key
        devices = pairing.Devices()
        (_, _), (_, _), (_, _) = (devices.add("a"), devices.add("b"), devices.add("c"))
        ids = [row["id"] for row in pairing.read_devices()]
        phone = service.subscriber("phone")
        gone = {**service.subscriber("x").subscription(), "endpoint": service.base + "/push/gone"}
        push.subscribe(
            ids[0], push.parse_subscription(json.dumps(phone.subscription()).encode()), "http://h:9/"
        )
        push.subscribe(ids[1], push.parse_subscription(json.dumps(gone).encode()), "http://h:9/")
        push.subscribe(
            ids[2], push.parse_subscription(json.dumps(phone.subscription()).encode()), "http://h:9/"
        )
        pairing.revoke([ids[2]])  # unpaired: its subscription goes at once
        assert set(push.read_subscriptions()) == {ids[0], ids[1]}
        problems = asyncio.run(push.send(Notice("s1", "t", "finished")))
        assert problems == ["push: HTTP 410"] and not service.errors
        assert list(push.read_subscriptions()) == [ids[0]]  # 410 and unpaired both forgotten
        assert [m["to"] for m in service.received] == ["phone"]
        assert service.received[0]["url"] == "http://h:9/s/s1"
        with pytest.raises(ValueError):
            push.parse_subscription(
                json.dumps({**phone.subscription(), "endpoint": "https://evil.example/p"}).encode()
            )
        assert push.allowed_endpoint("https://fcm.googleapis.com/fcm/send/abc")
        assert not push.allowed_endpoint("http://fcm.googleapis.com/fcm/send/abc")
    finally:
        service.close()


def test_which_stream_messages_notify():
    from yoke.host.notifier import classify

    ask = {"type": "control_request", "request": {"subtype": "can_use_tool", "tool_name": "AskUserQuestion"}}
    assert classify(ask, False) == ("blocked", "AskUserQuestion", "")
    assert classify({"type": "control_request", "request": {"subtype": "interrupt"}}, False) is None
    assert classify({"type": "result", "subtype": "success"}, False) == ("finished", "", "")
    assert classify({"type": "result", "subtype": "success"}, True) is None  # the next turn is queued
    assert classify({"type": "result", "subtype": "error_max_turns", "is_error": True}, True)[0] == "failed"
    goal = {"type": "system", "subtype": "informational", "content": "Goal verified: `true` exited 0 — x"}
    assert classify(goal, False)[0] == "goal_verified"
    assert classify({**goal, "content": "Goal stopped: budget"}, False) is None
    assert classify({"type": "system", "subtype": "session_ended", "exit_code": 1}, False)[0] == "failed"
    assert classify({"type": "system", "subtype": "session_ended", "exit_code": 0}, False) is None
    said = {"type": "assistant", "parent_tool_use_id": None, "message": {"content": [
        {"type": "tool_use", "name": "PushNotification", "input": {"message": "done"}}]}}  # fmt: skip
    assert classify(said, False) == ("message", "", "done")
    assert classify({**said, "parent_tool_use_id": "toolu_1"}, False) is None  # a sub-agent's: not the user's
    output = {"type": "user", "message": {"content": [{"type": "tool_result", "content": "secret"}]}}
    assert classify(output, False) is None  # tool output never makes a notification


def test_a_plain_session_with_a_webhook_sends_the_models_notification_itself(yoke, base_env):
    from tests.host.push_service import PushService

    service = PushService()
    try:
        settings = Path(base_env["CLAUDE_CONFIG_DIR"]) / "settings.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        hook = {"webhook": f"{service.base}/hook", "format": "slack"}
        settings.write_text(json.dumps({"remoteNotifications": hook}))
        call = {
            "type": "tool_use",
            "id": "p1",
            "name": "PushNotification",
            "input": {"message": f"done {SECRET}"},
        }
        with ScriptedServer([{"content": [call]}, {"content": [{"type": "text", "text": "ok"}]}]) as srv:
            run = yoke("-p", "tell me", env={**anthropic_env(srv), "ENABLE_TOOL_SEARCH": "false"})
            offered = [t["name"] for t in srv.requests[0].body["tools"]]
            answer = json.dumps(srv.requests[1].body["messages"][-1])
        assert run.code == 0, run.stderr
        assert "PushNotification" in offered  # a webhook is set: a notification can go
        assert "Notification sent to the webhook." in answer
        assert len(service.webhook) == 1
        text = json.loads(service.webhook[0]["body"])["text"]
        assert text.startswith("Yoke: ") and ": done " in text and SECRET not in text
    finally:
        service.close()


def test_a_plain_session_without_a_channel_is_not_offered_the_tool(yoke):
    with ScriptedServer([{"content": [{"type": "text", "text": "ok"}]}]) as srv:
        yoke("-p", "hi", env={**anthropic_env(srv), "ENABLE_TOOL_SEARCH": "false"})
        offered = [t["name"] for t in srv.requests[0].body["tools"]]
    assert "PushNotification" not in offered  # as 2.1.332 in a plain run


def test_the_notifier_never_raises_into_the_relay(capsys):
    from yoke.host.notifier import Notifier

    class Broken:
        ident, queued, stopping = "s1", [], False

        @property
        def record(self):
            raise OSError("disk gone")

    Notifier(object()).observe(Broken(), {"type": "result", "subtype": "success"})
    assert "notification for s1 not sent" in capsys.readouterr().err

"""Web Push to the remote page's devices (docs/notifications.md), through `pywebpush` (the `remote` extra,
imported only when a push is sent or a key is first made).

- The VAPID key pair is made once per configuration home and kept in `push-vapid.pem` (0600) in Yoke's home:
  a push service accepts a subscription's messages only when signed by the key it was made with.
- Each paired device keeps at most one subscription, in `push-subscriptions.json` (0600) beside the paired
  devices in the host's runtime folder. A device unpaired (`yoke remote-control revoke`) loses it at the next
  send; so does one whose push service answers 404 or 410 (the browser dropped it).
- An endpoint must be a known push service's HTTPS address (an allowlist, below): a paired device cannot
  make the host post to an address of its choosing. `YOKE_PUSH_ENDPOINTS` adds URL prefixes (the tests'
  local push service)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import fcntl
import json
import os
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from yoke import jsonsafe
from yoke.host.owned import open_private, owned_dir, read_private, write_private
from yoke.host.paths import runtime_dir
from yoke.notify import Notice

# The push services browsers subscribe with (Chrome/Edge: FCM and WNS, Firefox: Mozilla's autopush, Safari:
# Apple's), read from each vendor's endpoints as browsers hand them out; 2026-11-28.
PUSH_SERVICES = (
    "fcm.googleapis.com",
    "android.googleapis.com",
    "updates.push.services.mozilla.com",
    "push.services.mozilla.com",
    "web.push.apple.com",
    "notify.windows.com",
)
MAX_SUBSCRIPTION = 2048
PUSH_TTL = 3600  # seconds a push service keeps a message for a phone that is off
PUSH_TIMEOUT = 10.0
CONTACT = "mailto:push@yoke.invalid"  # the VAPID `sub` claim; `remoteNotifications.contact` overrides it


def vapid_path(env: dict[str, str] | None = None) -> Path:
    from yoke.config.settings import yoke_home_dir

    env = dict(os.environ) if env is None else env
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    return owned_dir(yoke_home_dir(home, env)) / "push-vapid.pem"


def vapid_key() -> Any:
    """The configuration home's VAPID key (py_vapid.Vapid02), made on first use."""
    from py_vapid import Vapid02

    path = vapid_path()
    with _locked(path.with_suffix(".lock")):
        try:
            return Vapid02.from_pem(read_private(path).encode())
        except FileNotFoundError:
            key = Vapid02()
            key.generate_keys()
            write_private(path, key.private_pem())
            return key


def public_key() -> str:
    """The key a page subscribes with (`applicationServerKey`): the raw P-256 point, base64url."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    raw = vapid_key().public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


# -- subscriptions ------------------------------------------------------------------------------------------
def subscriptions_path() -> Path:
    return runtime_dir() / "push-subscriptions.json"


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open_private(path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def read_subscriptions() -> dict[str, dict[str, Any]]:
    """device id -> {"endpoint", "keys": {"p256dh", "auth"}, "origin"}."""
    try:
        data = jsonsafe.loads(read_private(subscriptions_path()))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}


def _write(rows: dict[str, dict[str, Any]]) -> None:
    write_private(subscriptions_path(), (json.dumps(rows, indent=1) + "\n").encode())


def allowed_endpoint(endpoint: str) -> bool:
    extra = [p for p in (os.environ.get("YOKE_PUSH_ENDPOINTS") or "").split(",") if p]
    if any(endpoint.startswith(prefix) for prefix in extra):
        return True
    parts = urllib.parse.urlsplit(endpoint)
    host = parts.hostname or ""
    return parts.scheme == "https" and any(host == s or host.endswith("." + s) for s in PUSH_SERVICES)


def parse_subscription(body: bytes) -> dict[str, Any]:
    """A PushSubscription's JSON as a page posts it; ValueError in one line when it is not one we take."""
    if len(body) > MAX_SUBSCRIPTION:
        raise ValueError("subscription too large")
    data = jsonsafe.loads(body)
    keys = data.get("keys") if isinstance(data, dict) else None
    endpoint = data.get("endpoint") if isinstance(data, dict) else None
    if not isinstance(endpoint, str) or not isinstance(keys, dict):
        raise ValueError("not a push subscription (endpoint and keys)")
    if not all(isinstance(keys.get(k), str) and keys[k] for k in ("p256dh", "auth")):
        raise ValueError("a push subscription's keys are p256dh and auth")
    if not allowed_endpoint(endpoint):
        raise ValueError("the endpoint is not a known push service")
    return {"endpoint": endpoint, "keys": {"p256dh": keys["p256dh"], "auth": keys["auth"]}}


def subscribe(device: str, subscription: dict[str, Any], origin: str) -> None:
    """This device's subscription (replacing its last); `origin` is the page's address its links open."""
    with _locked(runtime_dir() / "push-subscriptions.lock"):
        rows = read_subscriptions()
        rows[device] = {**subscription, "origin": origin}
        _write(rows)


def forget(devices: set[str]) -> None:
    if not devices:
        return
    with _locked(runtime_dir() / "push-subscriptions.lock"):
        rows = read_subscriptions()
        if devices & set(rows):
            _write({k: v for k, v in rows.items() if k not in devices})


def current() -> dict[str, dict[str, Any]]:
    """The subscriptions of devices still paired (the others are forgotten now)."""
    from yoke.host.pairing import read_devices

    rows = read_subscriptions()
    paired = {row["id"] for row in read_devices()}
    forget({d for d in rows if d not in paired})
    return {d: row for d, row in rows.items() if d in paired}


# -- sending ------------------------------------------------------------------------------------------------
def session_url(origin: str, session: str) -> str:
    return origin.rstrip("/") + "/s/" + urllib.parse.quote(session, safe="")


async def send(notice: Notice, contact: str = CONTACT) -> list[str]:
    """Push `notice` to every subscribed device; the ones that failed, a line each."""
    rows = current()
    if not rows:
        return []
    try:
        key = await asyncio.to_thread(vapid_key)
    except ImportError:  # subscribed with the extra, run without it: the webhook still goes
        return ["push: Web Push needs the remote extra (pip install 'yoke[remote]')"]
    results = await asyncio.gather(
        *(asyncio.to_thread(_push, row, notice, key, contact) for row in rows.values())
    )
    gone = {device for device, (status, _) in zip(rows, results, strict=True) if status in (404, 410)}
    forget(gone)
    return [why for _, why in results if why]


def _push(row: dict[str, Any], notice: Notice, key: Any, contact: str) -> tuple[int, str]:
    from pywebpush import WebPushException, webpush

    payload = notice.payload()
    payload["url"] = session_url(str(row.get("origin") or "/"), notice.session)
    subscription = {"endpoint": row["endpoint"], "keys": row["keys"]}
    try:
        reply: Any = webpush(
            subscription,
            json.dumps(payload),
            vapid_private_key=key,
            vapid_claims={"sub": contact},
            ttl=PUSH_TTL,
            timeout=PUSH_TIMEOUT,
            headers={"Urgency": "high" if notice.state == "blocked" else "normal", "Topic": _topic(notice)},
        )
    except WebPushException as exc:
        status = exc.response.status_code if exc.response is not None else 0
        return status, f"push: HTTP {status}" if status else "push: not delivered"
    except Exception as exc:  # the service unreachable: said, the others still get theirs
        return 0, f"push: {type(exc).__name__}"
    return int(getattr(reply, "status_code", 201)), ""


def _topic(notice: Notice) -> str:
    """A push service keeps only the newest message of a topic for a phone that is off (RFC 8030 5.4):
    one per session and state. 32 characters of the URL-safe alphabet at most."""
    import hashlib

    return hashlib.sha256(f"{notice.session}\0{notice.state}".encode()).hexdigest()[:32]


# -- the page's routes (webpage.py) -----------------------------------------------------------------------
JSON = {"Content-Type": "application/json"}


def answer(
    method: str, path: str, body: bytes, device: dict[str, Any] | None, origin: str
) -> tuple[int, dict[str, str], bytes]:
    """`GET /push/key` (the page's applicationServerKey), `POST /push/subscribe` (this device's
    subscription, its JSON) and `POST /push/unsubscribe`, for a paired device's cookie (the caller checked)."""
    if device is None:
        return 401, {}, b"Unauthorized\n"
    try:
        if method == "GET" and path == "/push/key":
            return 200, JSON, json.dumps({"publicKey": public_key()}).encode()
        if method == "POST" and path == "/push/subscribe":
            subscribe(str(device["id"]), parse_subscription(body), origin)
            return 200, JSON, b'{"subscribed":true}'
        if method == "POST" and path == "/push/unsubscribe":
            forget({str(device["id"])})
            return 200, JSON, b'{"subscribed":false}'
    except ImportError:
        return 404, {}, b"Web Push needs the remote extra: pip install 'yoke[remote]'\n"
    except ValueError as exc:
        return 400, {}, f"{exc}\n".encode()
    return 404, {}, b"Not found\n"

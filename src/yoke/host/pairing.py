"""Pairing for `yoke remote-control` (docs/remote.md): the one-time code, the wrong-code count, share tokens,
and the paired devices.

Paired devices are remembered in `remote-devices.json` (0600) in the host's runtime folder: an id, a label
(the browser, from its User-Agent), when it paired, and the SHA-256 of its cookie (never the cookie itself).
Every remote-control process reads that file when it changes, so `yoke remote-control revoke ID` (which only
edits the file) locks a device out of every page being served: its next request is 401 and its open
WebSocket is closed (webpage.py watches the file)."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import secrets
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from yoke.host.owned import open_private, read_private, write_private
from yoke.host.paths import runtime_dir

COOKIE = "yoke_rc"
MAX_FAILURES = 5  # wrong pairing codes within FAILURE_WINDOW before pairing is refused for the window
FAILURE_WINDOW = 60.0


def devices_path() -> Path:
    return runtime_dir() / "remote-devices.json"


def _digest(cookie: str) -> str:
    return hashlib.sha256(cookie.encode()).hexdigest()


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    """One writer at a time: several remote-control processes and `revoke` share the file."""
    with open_private(runtime_dir() / "remote-devices.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def read_devices() -> list[dict[str, Any]]:
    path = devices_path()  # a runtime folder not ours alone is refused here (owned.UnsafeFolder)
    try:
        data = json.loads(read_private(path))
    except (OSError, ValueError):
        return []
    rows = data.get("devices") if isinstance(data, dict) else None
    return [row for row in rows or [] if isinstance(row, dict) and row.get("id") and row.get("hash")]


def _write_devices(rows: list[dict[str, Any]]) -> None:
    write_private(devices_path(), (json.dumps({"devices": rows}, indent=2) + "\n").encode())


def revoke(ids: list[str] | None) -> list[dict[str, Any]]:
    """Forget the devices with these ids (None: all); the ones removed. KeyError names an unknown id."""
    with _locked():
        rows = read_devices()
        known = {row["id"] for row in rows}
        unknown = [i for i in ids or [] if i not in known]
        if unknown:
            raise KeyError(unknown[0])
        gone = [row for row in rows if ids is None or row["id"] in ids]
        _write_devices([row for row in rows if row not in gone])
    return gone


def browser_label(user_agent: str) -> str:
    """A short name for a browser, e.g. "Chrome on Android" (enough to tell one's devices apart)."""
    browsers = (("Edg/", "Edge"), ("Firefox/", "Firefox"), ("HeadlessChrome/", "Chrome (headless)"),
                ("Chrome/", "Chrome"), ("CriOS/", "Chrome"), ("Safari/", "Safari"))  # fmt: skip
    systems = (("Android", "Android"), ("iPhone", "iPhone"), ("iPad", "iPad"), ("Windows", "Windows"),
               ("Mac OS X", "macOS"), ("CrOS", "ChromeOS"), ("Linux", "Linux"))  # fmt: skip
    browser = next((name for mark, name in browsers if mark in user_agent), "")
    system = next((name for mark, name in systems if mark in user_agent), "")
    if not browser:
        browser = re.split(r"[/ ]", user_agent.strip(), maxsplit=1)[0][:40] or "unknown browser"
    return f"{browser} on {system}" if system else browser


class Devices:
    """The paired devices as this process last read them; `refresh` rereads the file when it changed."""

    def __init__(self) -> None:
        self.by_hash: dict[str, dict[str, Any]] = {}
        self._stamp: tuple[int, int, int] | None = None
        self.refresh()

    def refresh(self) -> bool:
        """Reread the file if it changed since the last read; True when it did."""
        try:
            st = os.stat(devices_path())
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            stamp = (0, 0, 0)
        if stamp == self._stamp:
            return False
        self._stamp = stamp
        self.by_hash = {row["hash"]: row for row in read_devices()}
        return True

    def add(self, label: str, session: str | None = None) -> str:
        """A new cookie, remembered as a device (`session`: a view-only cookie for that one session)."""
        cookie = secrets.token_urlsafe(32)
        row: dict[str, Any] = {"id": secrets.token_hex(4), "label": label, "paired": int(time.time())}
        if session is not None:
            row["session"] = session
        row["hash"] = _digest(cookie)
        with _locked():
            _write_devices([*read_devices(), row])
        self.refresh()
        return cookie

    def find(self, cookie: str) -> dict[str, Any] | None:
        self.refresh()
        return self.by_hash.get(_digest(cookie)) if cookie else None


class Pairing:
    """The one-time code, the devices it was exchanged for, share tokens, and the count of wrong codes."""

    def __init__(self, on_new_code: Callable[[str], None] | None = None) -> None:
        self.on_new_code = on_new_code  # told each code after the first, for the next device
        self.code = _new_code()
        self.devices = Devices()
        self.failures: list[float] = []
        self.shares: dict[str, str] = {}  # one-time share token -> the session it shows

    def limited(self) -> bool:
        now = time.monotonic()
        self.failures = [t for t in self.failures if now - t < FAILURE_WINDOW]
        return len(self.failures) >= MAX_FAILURES

    def exchange(self, code: str, user_agent: str = "") -> str | None:
        # bytes: compare_digest refuses a str with characters outside ASCII, which a form can send
        if not secrets.compare_digest(code.strip().upper().encode(), self.code.encode()):
            self.failures.append(time.monotonic())
            return None
        self.code = _new_code()  # one-time: the next device needs the next code
        if self.on_new_code:
            self.on_new_code(self.code)
        return self.devices.add(browser_label(user_agent))

    def authorized(self, cookie_header: str | None) -> bool:
        device = self.devices.find(cookie_value(cookie_header))
        return device is not None and "session" not in device

    def share(self, session: str) -> str:
        token = secrets.token_urlsafe(24)
        self.shares[token] = session
        return token

    def exchange_share(self, token: str, user_agent: str = "") -> tuple[str, str] | None:
        """A view-only cookie and its session for a share token, once."""
        session = self.shares.pop(token, None)
        if session is None:
            self.failures.append(time.monotonic())
            return None
        return self.devices.add(browser_label(user_agent) + " (read-only)", session), session

    def viewing(self, cookie_header: str | None) -> str | None:
        """The session a view-only cookie may watch (None: not a view-only cookie)."""
        device = self.devices.find(cookie_value(cookie_header))
        return None if device is None else device.get("session")


def _new_code() -> str:
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    return "".join(secrets.choice(alphabet) for _ in range(8))


def cookie_value(header: str | None) -> str:
    for part in (header or "").split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE:
            return value
    return ""


def device_hash(cookie_header: str | None) -> str:
    return _digest(cookie_value(cookie_header))

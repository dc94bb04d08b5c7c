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

from yoke import jsonsafe
from yoke.host.owned import open_private, read_private, write_private
from yoke.host.paths import runtime_dir

COOKIE = "yoke_rc"
MAX_FAILURES = 5  # wrong pairing codes from one client within FAILURE_WINDOW before it is refused a while
FAILURE_WINDOW = 60.0
# a device's cookie lasts this long after its last use (refreshed at most daily while in use)
COOKIE_LIFETIME = float(os.environ.get("YOKE_REMOTE_COOKIE_SECONDS") or 14 * 86400)
REFRESH_AFTER = min(86400.0, COOKIE_LIFETIME / 2)


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
        data = jsonsafe.loads(read_private(path))
    except (OSError, ValueError):
        return []
    rows = data.get("devices") if isinstance(data, dict) else None
    return [row for row in rows or [] if isinstance(row, dict) and row.get("id") and row.get("hash")]


def _write_devices(rows: list[dict[str, Any]], epoch: str | None = None) -> None:
    """`epoch` names the last `revoke --all`: every page drops the share links it made before it."""
    data = {"devices": rows, "epoch": epoch if epoch is not None else read_epoch()}
    write_private(devices_path(), (json.dumps(data, indent=2) + "\n").encode())


def read_epoch() -> str:
    try:
        data = jsonsafe.loads(read_private(devices_path()))
    except (OSError, ValueError):
        return ""
    return str(data.get("epoch") or "") if isinstance(data, dict) else ""


def revoke(ids: list[str] | None) -> list[dict[str, Any]]:
    """Forget the devices with these ids (None: all, and every share link not yet used); the ones
    removed. KeyError names an unknown id."""
    with _locked():
        rows = read_devices()
        known = {row["id"] for row in rows}
        unknown = [i for i in ids or [] if i not in known]
        if unknown:
            raise KeyError(unknown[0])
        gone = [row for row in rows if ids is None or row["id"] in ids]
        _write_devices(
            [row for row in rows if row not in gone], secrets.token_hex(8) if ids is None else None
        )
    from yoke.host.push import forget

    forget({row["id"] for row in gone})  # their Web Push subscriptions go with them (push.py)
    return gone


def printable(text: str, limit: int = 60) -> str:
    """Text from a browser, safe to print in a terminal: no escape sequences or other control characters."""
    return "".join(ch for ch in text if ch.isprintable())[:limit]


def browser_label(user_agent: str) -> str:
    """A short name for a browser, e.g. "Chrome on Android" (enough to tell one's devices apart)."""
    browsers = (("Edg/", "Edge"), ("Firefox/", "Firefox"), ("HeadlessChrome/", "Chrome (headless)"),
                ("Chrome/", "Chrome"), ("CriOS/", "Chrome"), ("Safari/", "Safari"))  # fmt: skip
    systems = (("Android", "Android"), ("iPhone", "iPhone"), ("iPad", "iPad"), ("Windows", "Windows"),
               ("Mac OS X", "macOS"), ("CrOS", "ChromeOS"), ("Linux", "Linux"))  # fmt: skip
    browser = next((name for mark, name in browsers if mark in user_agent), "")
    system = next((name for mark, name in systems if mark in user_agent), "")
    if not browser:
        browser = printable(re.split(r"[/ ]", user_agent.strip(), maxsplit=1)[0], 40) or "unknown browser"
    return f"{browser} on {system}" if system else browser


class Devices:
    """The paired devices as this process last read them; `refresh` rereads the file when it changed."""

    def __init__(self) -> None:
        self.by_hash: dict[str, dict[str, Any]] = {}
        self.epoch = ""
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
        self.epoch = read_epoch()
        return True

    def add(
        self, label: str, session: str | None = None, scope: str = "drive", port: int = 0, host: str = ""
    ) -> tuple[str, str]:
        """A new device of `scope` for the page on `port` (`session`: a view-only one for that session): its
        cookie and its page key. The key never travels in a cookie: the page keeps it in its own origin's
        storage (its port's alone) and shows it when it opens its WebSocket, so a cookie a browser sent to
        another port of 127.0.0.1 opens nothing."""
        cookie, key = secrets.token_urlsafe(32), secrets.token_urlsafe(24)
        now = int(time.time())
        row: dict[str, Any] = {"id": secrets.token_hex(4), "label": label, "paired": now, "scope": scope,
                               "port": port, "host": host, "expires": now + int(COOKIE_LIFETIME),
                               "key": _digest(key)}  # fmt: skip
        if session is not None:
            row["session"] = session
        row["hash"] = _digest(cookie)
        with _locked():
            _write_devices([*read_devices(), row])
        self.refresh()
        return cookie, key

    def find(self, cookie: str, port: int | None = None, host: str = "") -> dict[str, Any] | None:
        """The device of this cookie if it is known, unexpired, paired on `host` (the name a browser reaches
        the page at) and, given `port`, issued by the page on that port; its expiry moves on while it is
        used. A row from before hosts were kept is honoured on its port alone."""
        self.refresh()
        row = self.by_hash.get(_digest(cookie)) if cookie else None
        if row is None:
            return None
        now = time.time()
        expires = row.get("expires")
        if not isinstance(expires, (int, float)) or expires <= now:
            return None  # a row from before expiry existed is not honoured either: pair again
        if row.get("host", host) != host:
            return None  # paired at another address (another machine's name, another proxy)
        if (port is not None or not row.get("host")) and row.get("port") != port:
            return None  # a cookie another page (another port) issued: what a browser sends every port
        if expires - now < COOKIE_LIFETIME - REFRESH_AFTER:
            self._extend(row["hash"], int(now + COOKIE_LIFETIME))
        return row

    def _extend(self, digest: str, expires: int) -> None:
        with _locked():
            rows = read_devices()
            for row in rows:
                if row["hash"] == digest:
                    row["expires"] = expires
            _write_devices(rows)
        self.refresh()


class Pairing:
    """The one-time code, the devices it was exchanged for, share tokens, and the count of wrong codes (per
    client). Its cookie is named for its port (`yoke_rc_<port>`; `__Host-yoke_rc` over HTTPS) and a device
    is honoured only on the port that paired it: a browser sends 127.0.0.1's cookies to every port."""

    def __init__(
        self, on_new_code: Callable[[str], None] | None = None, scope: str = "drive", secure: bool = False
    ) -> None:
        self.on_new_code = on_new_code  # told each code after the first, for the next device
        self.code = _new_code()
        self.scope = scope  # what a device paired here may do (scopes.py)
        self.secure = secure
        self.port = 0  # set once the page listens
        self.host = ""  # the host name the page is reached at: what its devices are keyed by
        self.devices = Devices()
        self.failures: dict[str, list[float]] = {}  # client address -> its wrong codes' times
        self.shares: dict[str, tuple[str, str]] = {}  # one-time share token -> (session id, epoch made in)

    @property
    def cookie_name(self) -> str:
        return "__Host-" + COOKIE if self.secure else f"{COOKIE}_{self.port}"

    def limited(self, client: str = "") -> bool:
        now = time.monotonic()
        times = [t for t in self.failures.get(client, []) if now - t < FAILURE_WINDOW]
        self.failures[client] = times
        if len(self.failures) > 1024:  # many clients: forget those with nothing recent
            self.failures = {k: v for k, v in self.failures.items() if v}
        return len(times) >= MAX_FAILURES

    def exchange(self, code: str, user_agent: str = "", client: str = "") -> tuple[str, str] | None:
        # bytes: compare_digest refuses a str with characters outside ASCII, which a form can send
        if not secrets.compare_digest(code.strip().upper().encode(), self.code.encode()):
            self.failures.setdefault(client, []).append(time.monotonic())
            return None
        self.code = _new_code()  # one-time: the next device needs the next code
        if self.on_new_code:
            self.on_new_code(self.code)
        return self.devices.add(browser_label(user_agent), scope=self.scope, port=self.port, host=self.host)

    def device(self, cookie_header: str | None) -> dict[str, Any] | None:
        """The device this request's cookie names, if it may use this page's HTML: the cookie alone is
        honoured only by the port that issued it (a browser sends a host's cookies to every port)."""
        return self.devices.find(cookie_value(cookie_header, self.cookie_name), self.port, self.host)

    def socket_device(self, cookie_header: str | None, key: str) -> dict[str, Any] | None:
        """The device for a WebSocket: its cookie and its page key both. With its key, a device is honoured
        on any port of the host that paired it, in any run (the key is what a browser keeps per origin, so
        a page on a port and address it used before finds it: `--port`, or the remembered default)."""
        for name, value in cookies(cookie_header):
            if not (name == self.cookie_name or name.startswith(COOKIE + "_") or name == "__Host-" + COOKIE):
                continue
            device = self.devices.find(value, self.port if name == self.cookie_name else None, self.host)
            if device is not None and secrets.compare_digest(str(device.get("key")), _digest(key)):
                return device
        return None

    def authorized(self, cookie_header: str | None) -> bool:
        device = self.device(cookie_header)
        return device is not None and "session" not in device

    def share(self, session: str) -> str:
        token = secrets.token_urlsafe(24)
        self.shares[token] = (session, self.devices.epoch)
        return token

    def exchange_share(self, token: str, user_agent: str = "") -> tuple[str, str, str] | None:
        """A view-only cookie and its session for a share token, once, unless `revoke --all` came after
        it was made. A wrong token is not counted against anyone: it is 192 random bits, and any web page
        can make a browser ask for one."""
        self.devices.refresh()
        found = self.shares.pop(token, None)
        if found is None or found[1] != self.devices.epoch:
            return None
        cookie, key = self.devices.add(printable(browser_label(user_agent)) + " (read-only)", found[0], "watch",
                                       self.port, self.host)  # fmt: skip
        return cookie, key, found[0]

    def viewing(self, cookie_header: str | None) -> str | None:
        """The session a view-only cookie may watch (None: not a view-only cookie)."""
        device = self.device(cookie_header)
        return None if device is None else device.get("session")


def _new_code() -> str:
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    return "".join(secrets.choice(alphabet) for _ in range(8))


def cookies(header: str | None) -> list[tuple[str, str]]:
    found = []
    for part in (header or "").split(";"):
        name, _, value = part.strip().partition("=")
        found.append((name, value))
    return found


def cookie_value(header: str | None, wanted: str) -> str:
    return next((value for name, value in cookies(header) if name == wanted), "")

"""`yoke remote-control`: a web page to watch and steer the host's sessions (docs/remote.md).

Pages and pairing are served by a small asyncio HTTP server; the page's WebSocket listens on a second port
(the `websockets` package answers only GET, and the pairing form is a POST). Cookies are per host, not per
port, so the session cookie set by the page's port is sent to the WebSocket too. Each WebSocket connection
is relayed, line for line, to the host's Unix socket: the page speaks the bridge's wire unchanged."""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import secrets
import ssl
import time
import urllib.parse
from collections.abc import Callable
from importlib import resources
from typing import Any

from yoke.host.paths import socket_path
from yoke.host.protocol import MAX_MESSAGE

COOKIE = "yoke_rc"
MAX_FAILURES = 5  # wrong pairing codes within FAILURE_WINDOW before pairing is refused for the window
FAILURE_WINDOW = 60.0
MAX_BODY = 4096
LOOPBACK = ("127.0.0.1", "localhost")


class Pairing:
    """The one-time code, the cookies it was exchanged for, and the count of wrong codes."""

    def __init__(self, on_new_code: Callable[[str], None] | None = None) -> None:
        self.on_new_code = on_new_code  # told each code after the first, for the next device
        self.code = _new_code()
        self.cookies: set[str] = set()
        self.failures: list[float] = []
        self.shares: dict[str, str] = {}  # one-time share token -> the session it shows
        self.viewers: dict[str, str] = {}  # view-only cookie -> the one session it may watch

    def limited(self) -> bool:
        now = time.monotonic()
        self.failures = [t for t in self.failures if now - t < FAILURE_WINDOW]
        return len(self.failures) >= MAX_FAILURES

    def exchange(self, code: str) -> str | None:
        if not secrets.compare_digest(code.strip().upper(), self.code):
            self.failures.append(time.monotonic())
            return None
        self.code = _new_code()  # one-time: the next device needs the next code
        if self.on_new_code:
            self.on_new_code(self.code)
        cookie = secrets.token_urlsafe(32)
        self.cookies.add(cookie)
        return cookie

    def authorized(self, cookie_header: str | None) -> bool:
        return _cookie(cookie_header) in self.cookies

    def share(self, session: str) -> str:
        token = secrets.token_urlsafe(24)
        self.shares[token] = session
        return token

    def exchange_share(self, token: str) -> tuple[str, str] | None:
        """A view-only cookie and its session for a share token, once."""
        session = self.shares.pop(token, None)
        if session is None:
            self.failures.append(time.monotonic())
            return None
        cookie = secrets.token_urlsafe(32)
        self.viewers[cookie] = session
        return cookie, session

    def viewing(self, cookie_header: str | None) -> str | None:
        """The session a view-only cookie may watch (None: not a view-only cookie)."""
        return self.viewers.get(_cookie(cookie_header))


def _new_code() -> str:
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    return "".join(secrets.choice(alphabet) for _ in range(8))


def _cookie(header: str | None) -> str:
    for part in (header or "").split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE:
            return value
    return ""


class RemoteControl:
    """Loopback is served over plain HTTP; any other address over HTTPS with a self-signed certificate."""

    def __init__(
        self, bind: str, port: int, ws_port: int = 0, on_new_code: Callable[[str], None] | None = None
    ):
        self.bind, self.port, self.ws_port = bind, port, ws_port
        self.pairing = Pairing(on_new_code)
        self.origins: set[str] = set()
        self.fingerprint = ""
        self.addresses = [bind]

    @property
    def secure(self) -> bool:
        return self.bind not in LOOPBACK

    async def start(self) -> None:
        from websockets.asyncio.server import serve

        context = None
        if self.secure:
            from yoke.host.tls import certificate, lan_addresses

            self.addresses = lan_addresses(self.bind)
            context, self.fingerprint = certificate(self.addresses)
        else:
            self.addresses = list(dict.fromkeys([self.bind, "127.0.0.1", "localhost"]))
        self.http = await asyncio.start_server(self._http, self.bind, self.port, ssl=context)
        self.port = self.http.sockets[0].getsockname()[1]
        self.ws = await serve(
            self._relay,
            self.bind,
            self.ws_port,
            max_size=MAX_MESSAGE,
            process_request=self._ws_check,
            ssl=context,
        )
        self.ws_port = next(iter(self.ws.sockets)).getsockname()[1]
        scheme = "https" if self.secure else "http"
        self.origins = {f"{scheme}://{host}:{self.port}" for host in self.addresses}

    @property
    def url(self) -> str:
        return f"{'https' if self.secure else 'http'}://{self.addresses[0]}:{self.port}/"

    # -- the WebSocket ---------------------------------------------------------------------------------
    def _ws_check(self, connection: Any, request: Any) -> Any:
        origin = request.headers.get("Origin")
        if origin is not None and origin not in self.origins:
            return connection.respond(403, "Forbidden origin\n")
        cookie = request.headers.get("Cookie")
        if not self.pairing.authorized(cookie) and self.pairing.viewing(cookie) is None:
            return connection.respond(401, "Unauthorized\n")
        return None

    async def _relay(self, ws: Any) -> None:
        from websockets.exceptions import ConnectionClosed

        cookie = ws.request.headers.get("Cookie")
        watching = None if self.pairing.authorized(cookie) else self.pairing.viewing(cookie)
        reader, writer = await asyncio.open_unix_connection(str(socket_path()), limit=MAX_MESSAGE + 1)

        async def to_page() -> None:
            while line := await reader.readline():
                await ws.send(line.decode().rstrip("\n"))
            await ws.close(1011, "host gone")

        pump = asyncio.get_running_loop().create_task(to_page())
        try:
            async for message in ws:
                text = message if isinstance(message, str) else message.decode()
                if watching is not None:
                    text, refusal = _view_only(text, watching)
                    if refusal:
                        await ws.send(refusal)
                        continue
                writer.write(text.replace("\n", " ").encode() + b"\n")
                await writer.drain()
        except ConnectionClosed:
            pass
        finally:
            pump.cancel()
            writer.close()

    # -- HTTP ------------------------------------------------------------------------------------------
    async def _http(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(10):
                status, headers, body = await self._answer(reader)
        except (TimeoutError, ValueError, asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            status, headers, body = 400, {}, b"Bad request\n"
        head = f"HTTP/1.1 {status} {_REASONS.get(status, 'OK')}\r\nContent-Length: {len(body)}\r\n"
        head += "Connection: close\r\nCache-Control: no-store\r\nX-Frame-Options: DENY\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        with contextlib.suppress(ConnectionError):
            writer.write(head.encode() + b"\r\n" + body)
            await writer.drain()
        writer.close()

    async def _answer(self, reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
        method, target, _ = (await reader.readline()).decode("latin-1").split(" ", 2)
        headers: dict[str, str] = {}
        while (line := (await reader.readline()).decode("latin-1").strip()) != "":
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length") or 0)
        if length > MAX_BODY:
            return 413, {}, b"Too large\n"
        body = await reader.readexactly(length) if length else b""
        path = urllib.parse.urlsplit(target).path
        origin = headers.get("origin")
        if origin is not None and origin not in self.origins:
            return 403, {}, b"Forbidden origin\n"
        if method == "POST" and path == "/pair":
            return self._pair(body)
        if method == "GET" and path.startswith("/share/"):
            return self._share(path[len("/share/") :])
        watching = self.pairing.viewing(headers.get("cookie"))
        if watching is not None:
            return self._view_only_page(method, path, watching)
        if not self.pairing.authorized(headers.get("cookie")):
            return 401, _HTML, _pairing_page().encode()
        if method != "GET":
            return 405, {}, b"Method not allowed\n"
        if path == "/":
            return 200, _HTML, (await self._list_page()).encode()
        if path.startswith("/s/"):
            return 200, _HTML, _session_page(urllib.parse.unquote(path[3:]), self.ws_port).encode()
        return _static(path)

    def _view_only_page(self, method: str, path: str, session: str) -> tuple[int, dict[str, str], bytes]:
        if method != "GET":
            return 405, {}, b"Method not allowed\n"
        if path.startswith("/s/"):
            if urllib.parse.unquote(path[3:]) != session:
                return 403, {}, b"A share link shows one session\n"
            return 200, _HTML, _session_page(session, self.ws_port, read_only=True).encode()
        if path.startswith("/static/"):
            return _static(path)
        return 403, {}, b"A share link shows one session\n"

    def _share(self, token: str) -> tuple[int, dict[str, str], bytes]:
        if self.pairing.limited():
            return 429, {"Retry-After": str(int(FAILURE_WINDOW))}, b"Too many wrong codes; wait a minute\n"
        exchanged = self.pairing.exchange_share(token)
        if exchanged is None:
            return 401, _HTML, _pairing_page("This share link was used already, or is wrong.").encode()
        cookie, session = exchanged
        target = "/s/" + urllib.parse.quote(session)
        # a page, not a redirect: a SameSite=Strict cookie is not sent on a redirect a link elsewhere started
        body = _page("Shared session", f'<p><a id="open" href="{html.escape(target)}">Open the shared session</a></p>'
                     '<script src="/static/share.js"></script>')  # fmt: skip
        return 200, {**_HTML, "Set-Cookie": self._cookie_header(cookie)}, body.encode()

    def _cookie_header(self, cookie: str) -> str:
        return f"{COOKIE}={cookie}; HttpOnly; SameSite=Strict; Path=/" + ("; Secure" if self.secure else "")

    def _pair(self, body: bytes) -> tuple[int, dict[str, str], bytes]:
        if self.pairing.limited():
            return 429, {"Retry-After": str(int(FAILURE_WINDOW))}, b"Too many wrong codes; wait a minute\n"
        code = (urllib.parse.parse_qs(body.decode("utf-8", "replace")).get("code") or [""])[0]
        cookie = self.pairing.exchange(code)
        if cookie is None:
            return 401, _HTML, _pairing_page("Wrong code.").encode()
        return 303, {"Location": "/", "Set-Cookie": self._cookie_header(cookie)}, b""

    async def _list_page(self) -> str:
        reader, writer = await asyncio.open_unix_connection(str(socket_path()), limit=MAX_MESSAGE + 1)
        try:
            line = {"id": "l", "type": "request", "payload": {"method": "list", "params": {}}}
            writer.write((json.dumps(line) + "\n").encode())
            while True:
                reply = json.loads(await asyncio.wait_for(reader.readline(), 10))
                if reply.get("id") == "l":
                    break
        finally:
            writer.close()
        rows = (reply.get("payload") or {}).get("sessions") or []
        items = "".join(
            f'<li><a href="/s/{html.escape(str(r.get("id")))}">{html.escape(str(r.get("name") or r.get("id")))}</a>'
            f' <span class="state">{html.escape(str(r.get("state") or ""))}</span></li>'
            for r in rows
        )
        return _page(
            "Sessions", f"<h1>Sessions</h1><ul id='sessions'>{items or '<li>No sessions.</li>'}</ul>"
        )


_HTML = {"Content-Type": "text/html; charset=utf-8"}
_REASONS = {200: "OK", 303: "See Other", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
            404: "Not Found", 405: "Method Not Allowed", 413: "Payload Too Large", 429: "Too Many Requests"}  # fmt: skip


def _page(title: str, body: str, script: bool = False) -> str:
    js = '<script src="/static/render.js"></script><script src="/static/app.js"></script>' if script else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{html.escape(title)} · Yoke</title><link rel="stylesheet" href="/static/style.css"></head>'
        f"<body>{body}{js}</body></html>"
    )


def _pairing_page(error: str = "") -> str:
    note = f'<p role="alert">{html.escape(error)}</p>' if error else ""
    return _page(
        "Pair",
        "<h1>Pair this browser</h1>" + note + '<form method="post" action="/pair">'
        '<label for="code">Pairing code</label> <input id="code" name="code" autocomplete="off" autofocus>'
        ' <button type="submit">Pair</button></form>',
    )


def _session_page(session: str, ws_port: int, read_only: bool = False) -> str:
    name = html.escape(session)
    controls = (
        ""
        if read_only
        else '<form id="prompt-form"><div id="controls"><label for="prompt">Prompt</label>'
        '<textarea id="prompt" name="prompt" rows="2"></textarea><button type="submit">Send</button>'
        '<button type="button" id="interrupt">Interrupt</button></div></form>'
    )
    back = "<span>read-only</span>" if read_only else '<a href="/">Sessions</a>'
    return _page(
        session,
        f'<header>{back}<strong>{name}</strong><span id="status"></span></header>'
        f'<main id="session" data-session="{name}" data-ws-port="{ws_port}" data-read-only="{int(read_only)}">'
        f'<div id="stream"></div></main>{controls}',
        script=True,
    )


STATIC = {
    "/static/app.js": "text/javascript",
    "/static/render.js": "text/javascript",
    "/static/share.js": "text/javascript",
    "/static/style.css": "text/css",
}


def _static(path: str) -> tuple[int, dict[str, str], bytes]:
    if path not in STATIC:
        return 404, {}, b"Not found\n"
    data = resources.files("yoke.host").joinpath(path.lstrip("/")).read_bytes()
    return 200, {"Content-Type": f"{STATIC[path]}; charset=utf-8"}, data


def _view_only(text: str, session: str) -> tuple[str, str]:
    """A view-only client's request as sent on (attach and detach of its one session, attach as a watcher),
    or the error that refuses it."""
    try:
        message = json.loads(text)
        payload = message["payload"]
        method, params = payload["method"], dict(payload.get("params") or {})
    except (ValueError, KeyError, TypeError):
        bad = {"code": "invalid_request", "message": "not a request"}
        return "", json.dumps({"id": None, "type": "error", "payload": bad})
    if method in ("attach", "detach") and params.get("session") == session:
        if method == "attach":
            params["role"] = "watcher"
        message["payload"] = {"method": method, "params": params}
        return json.dumps(message), ""
    refusal = {"code": "forbidden", "message": "a share link only watches its session"}
    return "", json.dumps({"id": message.get("id"), "type": "error", "payload": refusal})

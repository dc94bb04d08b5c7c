"""The remote-control page (docs/remote.md), served from the session host's own process: `yoke
remote-control` asks the host for it (the `remote_control` method) and it is served while that command stays
connected.

Pages and pairing are served by a small asyncio HTTP server; the page's WebSocket listens on a second port
(the `websockets` package answers only GET, and the pairing form is a POST). Cookies are per host, not per
port, so the session cookie set by the page's port is sent to the WebSocket too. Each WebSocket connection
is one more client of the host (server.Host.serve), one bridge message per text frame: the page speaks the
host's wire unchanged."""

from __future__ import annotations

import asyncio
import contextlib
import html
import ssl
import urllib.parse
from collections.abc import Callable
from typing import Any

from yoke.host.guard import (
    HANDSHAKE_TIMEOUT,
    MAX_HEADER_LINE,
    MAX_HEADERS,
    host_allowed,
    host_names,
    page_policy,
)
from yoke.host.pages import (
    HTML,
    PAIR_FROM_FRAGMENT,
    REASONS,
    page_html,
    pairing_page,
    session_page,
    static,
)
from yoke.host.pairing import COOKIE, COOKIE_LIFETIME, FAILURE_WINDOW, MAX_FAILURES, Pairing
from yoke.host.protocol import MAX_MESSAGE, ProtocolError, encode
from yoke.host.scopes import SCOPES, at_least, scope_of, screen

__all__ = ["COOKIE", "MAX_FAILURES", "RemoteControl"]

MAX_BODY = 4096
LOOPBACK = ("127.0.0.1", "localhost")
REVOKED = 4401  # the WebSocket close code for a revoked device: the page goes back to pairing
REVOCATION_POLL = 0.25  # seconds between looks at the devices file: a revoked socket closes within a second


class RemoteControl:
    """Loopback is served over plain HTTP; any other address over HTTPS with a self-signed certificate."""

    def __init__(
        self,
        host: Any,
        bind: str,
        port: int,
        ws_port: int = 0,
        on_new_code: Callable[[str], None] | None = None,
        scope: str = "drive",
    ):
        self.host = host  # the session host (server.Host) this page is one more client of
        self.bind, self.port, self.ws_port = bind, port, ws_port
        self.pairing = Pairing(on_new_code, scope, secure=bind not in LOOPBACK)
        self.origins: set[str] = set()
        self.fingerprint = ""
        self.addresses = [bind]
        self.sockets: dict[Any, str] = {}  # open WebSockets -> the hash of their device's cookie
        self.co_drive = ""
        self.names: set[str] = set()
        self.policy: dict[
            str, str
        ] = {}  # a session this page's clients may prompt though another client drives it

    @property
    def secure(self) -> bool:
        return self.bind not in LOOPBACK

    async def start(self) -> None:
        from websockets.asyncio.server import serve

        context = None
        if self.secure:
            from yoke.host.tls import certificate, lan_addresses

            self.addresses = lan_addresses(self.bind)
            context, self.fingerprint = await asyncio.to_thread(certificate, self.addresses)
        else:
            self.addresses = list(dict.fromkeys([self.bind, "127.0.0.1", "localhost"]))
        self.http = await asyncio.start_server(
            self._http, self.bind, self.port, ssl=context, limit=MAX_HEADER_LINE,
            ssl_handshake_timeout=HANDSHAKE_TIMEOUT if context else None,
        )  # fmt: skip
        self.port = self.pairing.port = self.http.sockets[0].getsockname()[1]
        self.ws = await serve(
            self._relay,
            self.bind,
            self.ws_port,
            max_size=MAX_MESSAGE,
            process_request=self._ws_check,
            ssl=context,
            ssl_handshake_timeout=HANDSHAKE_TIMEOUT if context else None,
        )
        self.ws_port = next(iter(self.ws.sockets)).getsockname()[1]
        scheme = "https" if self.secure else "http"
        self.origins = {f"{scheme}://{host}:{self.port}" for host in self.addresses}
        self.names = host_names(self.bind, self.addresses)
        ws_scheme = "wss" if self.secure else "ws"
        sockets = [f"{ws_scheme}://{host}:{self.ws_port}" for host in self.addresses]
        self.policy = page_policy(PAIR_FROM_FRAGMENT, sockets)
        self.watcher = asyncio.get_running_loop().create_task(self._close_revoked())

    async def _close_revoked(self) -> None:
        """`yoke remote-control revoke` edits the devices file; a revoked device's sockets close here, all at
        once: each is told (REVOKED) and cut a moment later whether or not its peer answers."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(REVOCATION_POLL)
            self.pairing.devices.refresh()
            for ws, digest in list(self.sockets.items()):
                if digest not in self.pairing.devices.by_hash:
                    self.sockets.pop(ws, None)
                    loop.create_task(_quietly(ws.close(REVOKED, "revoked")))
                    loop.call_later(0.5, ws.transport.abort)

    def close(self) -> None:
        """Stop serving: the listeners and every open page's WebSocket (start may have got part way)."""
        for part in ("watcher", "http", "ws"):
            thing = getattr(self, part, None)
            if thing is not None:
                thing.cancel() if part == "watcher" else thing.close()

    @property
    def url(self) -> str:
        return f"{'https' if self.secure else 'http'}://{self.addresses[0]}:{self.port}/"

    # -- the WebSocket ---------------------------------------------------------------------------------
    def _ws_check(self, connection: Any, request: Any) -> Any:
        if not host_allowed(request.headers.get("Host"), self.names, self.ws_port):
            return connection.respond(421, "Misdirected request\n")
        origin = request.headers.get("Origin")
        if origin is not None and origin not in self.origins:
            return connection.respond(403, "Forbidden origin\n")
        if self.pairing.socket_device(request.headers.get("Cookie"), _key_of(request.path)) is None:
            return connection.respond(401, "Unauthorized\n")
        return None

    async def _relay(self, ws: Any) -> None:
        """The page is a client of the host like any other (one bridge message per text frame), served in
        this process; a view-only cookie's requests are filtered first."""
        from websockets.exceptions import ConnectionClosed

        from yoke.host.page_redact import PageClient
        from yoke.host.server import CLIENT_BUFFER

        device = self.pairing.socket_device(ws.request.headers.get("Cookie"), _key_of(ws.request.path))
        if device is None:  # revoked or expired between the handshake and now
            await ws.close(REVOKED, "revoked")
            return
        self.sockets[ws] = device["hash"]
        client = PageClient(ws, CLIENT_BUFFER)  # what it is sent, secrets masked (page_redact.py)
        client.authenticated = True  # the cookie is this page's authentication
        client.only_session = device.get("session")  # a share link hears of its session only
        if at_least(scope_of(device), "drive") and self.co_drive:
            client.co_drives = {self.co_drive}

        async def messages() -> Any:
            try:
                async for message in ws:
                    text = message if isinstance(message, str) else message.decode("utf-8", "replace")
                    text, refusal = screen(text, device)
                    if refusal:
                        client.send(refusal.encode() + b"\n")
                        continue
                    yield client.restore(text).encode()
            except ConnectionClosed:
                return

        try:
            await self.host.serve(client, messages())
        finally:
            self.sockets.pop(ws, None)
            client.closed = True
            client.ready.set()

    # -- HTTP ------------------------------------------------------------------------------------------
    async def _http(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        try:
            async with asyncio.timeout(10):
                status, headers, body = await self._answer(reader, str(peer[0]) if peer else "")
        except (TimeoutError, ValueError, asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            status, headers, body = 400, {}, b"Bad request\n"
        head = f"HTTP/1.1 {status} {REASONS.get(status, 'OK')}\r\nContent-Length: {len(body)}\r\n"
        head += "Connection: close\r\nCache-Control: no-store\r\nX-Frame-Options: DENY\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in {**self.policy, **headers}.items())
        with contextlib.suppress(ConnectionError):
            writer.write(head.encode() + b"\r\n" + body)
            await writer.drain()
        writer.close()

    async def _answer(self, reader: asyncio.StreamReader, peer: str) -> tuple[int, dict[str, str], bytes]:
        # a line over MAX_HEADER_LINE raises ValueError (the reader's limit), more than MAX_HEADERS is refused:
        # one connection cannot grow the host's memory
        method, target, _ = (await reader.readline()).decode("latin-1").split(" ", 2)
        headers: dict[str, str] = {}
        count = 0
        while (line := (await reader.readline()).decode("latin-1").strip()) != "":
            count += 1
            if count > MAX_HEADERS:
                return 431, {}, b"Too many headers\n"
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if not host_allowed(headers.get("host"), self.names, self.port):
            return 421, {}, b"Misdirected request: the Host names another server\n"
        length = int(headers.get("content-length") or 0)
        if length > MAX_BODY:
            return 413, {}, b"Too large\n"
        body = await reader.readexactly(length) if length else b""
        path = urllib.parse.urlsplit(target).path
        origin = headers.get("origin")
        if origin is not None and origin not in self.origins:
            return 403, {}, b"Forbidden origin\n"
        agent = headers.get("user-agent", "")
        if method == "POST" and path == "/pair":
            return self._pair(body, agent, peer)
        if method == "GET" and path.startswith("/share/"):
            return self._share(path[len("/share/") :], agent)
        watching = self.pairing.viewing(headers.get("cookie"))
        if watching is not None:
            return self._view_only_page(method, path, watching)
        if not self.pairing.authorized(headers.get("cookie")):
            return 401, HTML, pairing_page().encode()
        if path.startswith("/push/"):  # Web Push subscriptions (push.py, docs/notifications.md)
            from yoke.host.push import answer

            device = self.pairing.device(headers.get("cookie"))
            return answer(method, path, body, device, origin or self.url)  # links open where it subscribed
        if method != "GET":
            return 405, {}, b"Method not allowed\n"
        if path == "/":
            return 200, HTML, (await self._list_page()).encode()
        if path.startswith("/s/"):
            return 200, HTML, session_page(urllib.parse.unquote(path[3:]), self.ws_port).encode()
        return static(path)

    def _view_only_page(self, method: str, path: str, session: str) -> tuple[int, dict[str, str], bytes]:
        if method != "GET":
            return 405, {}, b"Method not allowed\n"
        if path.startswith("/s/"):
            if urllib.parse.unquote(path[3:]) != session:
                return 403, {}, b"A share link shows one session\n"
            return 200, HTML, session_page(session, self.ws_port, read_only=True).encode()
        if path.startswith("/static/"):
            return static(path)
        return 403, {}, b"A share link shows one session\n"

    def _share(self, token: str, agent: str) -> tuple[int, dict[str, str], bytes]:
        exchanged = self.pairing.exchange_share(token, agent)
        if exchanged is None:
            return 401, HTML, pairing_page("This share link was used already, or is wrong.").encode()
        cookie, key, session = exchanged
        target = "/s/" + urllib.parse.quote(session) + "#k=" + key  # the page keeps the key (app.js)
        # a page, not a redirect: a SameSite=Strict cookie is not sent on a redirect a link elsewhere started
        body = page_html("Shared session", f'<p><a id="open" href="{html.escape(target)}">Open the shared session</a></p>'
                     '<script src="/static/share.js"></script>')  # fmt: skip
        return 200, {**HTML, "Set-Cookie": self._cookie_header(cookie)}, body.encode()

    def _cookie_header(self, cookie: str) -> str:
        name = self.pairing.cookie_name  # for this port only; __Host- over HTTPS
        head = f"{name}={cookie}; HttpOnly; SameSite=Strict; Path=/; Max-Age={int(COOKIE_LIFETIME)}"
        return head + ("; Secure" if self.secure else "")

    def _pair(self, body: bytes, agent: str, peer: str = "") -> tuple[int, dict[str, str], bytes]:
        if self.pairing.limited(peer):
            return 429, {"Retry-After": str(int(FAILURE_WINDOW))}, b"Too many wrong codes; wait a minute\n"
        form = urllib.parse.parse_qs(body.decode("utf-8", "replace"))
        exchanged = self.pairing.exchange((form.get("code") or [""])[0], agent, peer)
        if exchanged is None:
            return 401, HTML, pairing_page("Wrong code.").encode()
        target = (form.get("next") or ["/"])[0]
        if not (target.startswith("/s/") or target == "/"):  # only a page of this server
            target = "/"
        target = urllib.parse.quote(target, safe="/%")  # no header can be smuggled into Location
        cookie, key = exchanged
        # the page key rides in the fragment: never sent to a server, kept by the page in its own storage
        return 303, {"Location": f"{target}#k={key}", "Set-Cookie": self._cookie_header(cookie)}, b""

    async def _list_page(self) -> str:
        """The list's rows come over the WebSocket (list.js), which needs the page key as well as the
        cookie: a cookie replayed from another port reads no session's name here."""
        body = f'<h1>Sessions</h1><ul id="sessions" data-ws-port="{self.ws_port}"><li>Loading…</li></ul>'
        scripts = '<script src="/static/list.js"></script><script src="/static/push.js"></script>'
        return page_html("Sessions", body + scripts)


def _key_of(path: str) -> str:
    """The page key a WebSocket's URL carries (`/?k=KEY`)."""
    return (urllib.parse.parse_qs(urllib.parse.urlsplit(path).query).get("k") or [""])[0]


async def _quietly(closing: Any) -> None:
    with contextlib.suppress(Exception):
        await closing


async def serve_page_for(host: Any, client: Any, params: dict[str, Any]) -> dict[str, Any]:
    """Serve the remote-control page from this process (docs/remote.md) for as long as `client` stays
    connected; it is told each next pairing code (`remote.code`)."""
    from yoke.host.tls import CertificateError

    if client in host.pages:
        raise ProtocolError("invalid_request", "this connection serves a page already")
    bind, port = str(params.get("bind") or "127.0.0.1"), params.get("port") or 0
    if not isinstance(port, int) or not 0 <= port < 65536:
        raise ProtocolError("invalid_params", "port is a number from 0 to 65535")

    def tell(code: str) -> None:
        client.send(encode("notification", None, {"method": "remote.code", "params": {"code": code}}))

    scope = str(params.get("scope") or "drive")
    if scope not in SCOPES:
        raise ProtocolError("invalid_params", f"scope is one of {', '.join(SCOPES)}")
    page = RemoteControl(host, bind, port, on_new_code=tell, scope=scope)
    if params.get("drive"):  # `--remote-control`: the page prompts this session beside the terminal UI
        page.co_drive = host._session({"session": params["drive"]}).ident
    try:
        await page.start()
    except (CertificateError, OSError) as exc:
        page.close()
        if isinstance(exc, CertificateError):
            raise RuntimeError(str(exc)) from None
        raise RuntimeError(f"cannot listen on {bind}:{port}: {exc.strerror or exc}") from None
    host.pages[client] = page
    share = params.get("share")  # a name or id now; the link is bound to the session it names now
    token = page.pairing.share(host._session({"session": str(share)}).ident) if share else ""
    return {"url": page.url, "code": page.pairing.code, "fingerprint": page.fingerprint,
            "share": f"{page.url}share/{token}" if token else ""}  # fmt: skip

"""The remote-control page (docs/remote.md), served from the session host's own process: `yoke
remote-control` asks the host for it (the `remote_control` method) and it is served while that command stays
connected.

The pages, the pairing form's POST, the static files and the page's WebSocket share ONE port, served by ONE
maintained library: aiohttp (the `remote` extra). Why aiohttp: the `websockets` package answers only GET
(its `process_request` cannot read a request body), and pairing must stay a same-origin POST (a code in a
GET's URL lands in history and logs, and a cross-site `<img>` GET could spend a client's wrong-code budget);
aiohttp is a well-kept asyncio server that does both, with the limits this page needs as its own settings
(request line and header sizes, header count, body size, WebSocket frame size). What aiohttp has no
setting for is kept here: the TLS handshake deadline (asyncio's), and a deadline for a connection that has
not become a WebSocket (REQUEST_DEADLINE, swept with the revocation watcher).

Routes are one table (ROUTES): a route is one line, with who may use it. Before any route, every request
passes the Host check (DNS rebinding, 421) and the Origin check (403); every answer carries the security
headers. A WebSocket is the upgrade of `/` and checks its own credential (the cookie and the page key). Each
WebSocket connection is one more client of the host (server.Host.serve), one bridge message per text frame:
the page speaks the host's wire unchanged."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import html
import time
import urllib.parse
from collections.abc import Awaitable, Callable
from typing import Any

from yoke.host.guard import (
    HANDSHAKE_TIMEOUT,
    MAX_HEADER_LINE,
    MAX_HEADERS,
    host_allowed,
    host_names,
    page_policy,
    public_origin,
)
from yoke.host.page_address import netloc, remember_port, remembered_port
from yoke.host.pages import (
    HTML,
    PAIR_FROM_FRAGMENT,
    PUBLIC,
    list_page,
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
REQUEST_DEADLINE = 10.0  # seconds an HTTP connection may stay open unless it became a WebSocket
LOOPBACK = ("127.0.0.1", "localhost")
REVOKED = 4401  # the WebSocket close code for a revoked device: the page goes back to pairing
REVOCATION_POLL = 0.25  # seconds between looks at the devices file: a revoked socket closes within a second
NEEDS_AIOHTTP = (
    "the remote page needs the `remote` extra (aiohttp): pip install 'yoke[remote]' and run it again"
)

# who may use a route: anyone (pairing and the share link's exchange), a paired device, or also a share
# link's view-only cookie (its own session's page and the static files)
OPEN, PAIRED, SHARED = "open", "paired", "shared"
Answer = tuple[int, dict[str, str], bytes]


# (method, path, handler, who): the one routing table; a new route is one line here. A handler is the name of
# a RemoteControl method, or a function of another module taking (page, request) and giving
# (status, headers, body) (e.g. a push subscription's route).
async def _push(page: Any, request: Any) -> Answer:
    """Web Push subscriptions of a paired device (host/push.py, docs/notifications.md); a push links to the
    origin it was subscribed from."""
    from yoke.host.push import answer

    device = page.pairing.device(request.headers.get("Cookie"))
    origin = request.headers.get("Origin") or page.url
    return answer(request.method, request.path, await request.read(), device, origin)


Handler = str | Callable[[Any, Any], Awaitable[Answer]]
ROUTES: list[tuple[str, str, Handler, str]] = [
    ("POST", "/pair", "_pair", OPEN),
    ("GET", "/share/{token}", "_share", OPEN),
    ("GET", "/", "_list_page", PAIRED),  # its upgrade is the page's WebSocket (`_socket`)
    ("GET", "/s/{session:.+}", "_session_page", SHARED),
    # the stylesheet before pairing, so the pairing page is styled (pages.PUBLIC); no data in it
    *[("GET", path, "_static", OPEN) for path in sorted(PUBLIC)],
    ("GET", "/static/{name}", "_static", SHARED),
    ("GET", "/push/key", _push, PAIRED),
    ("POST", "/push/subscribe", _push, PAIRED),
    ("POST", "/push/unsubscribe", _push, PAIRED),
]


class _Socket:
    """An aiohttp WebSocket as the host's client classes use one (websocket.WebSocketClient): send text,
    close with a code, and abort the transport without waiting on the peer."""

    def __init__(self, response: Any, transport: Any, request: Any):
        self.response, self.transport, self.request = response, transport, request

    async def send(self, text: str) -> None:
        if self.response.closed:
            raise ConnectionResetError("closed")
        await self.response.send_str(text)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        await self.response.close(code=code, message=reason.encode())


class RemoteControl:
    """Loopback is served over plain HTTP; any other address over HTTPS with a self-signed certificate.
    `public` (`--public-url`): the address users reach the page at through their own tunnel or proxy; the
    printed URL is it, and its host and origin pass the checks."""

    def __init__(
        self,
        host: Any,
        bind: str,
        port: int,
        on_new_code: Callable[[str], None] | None = None,
        scope: str = "drive",
        public: str = "",
    ):
        self.host = host  # the session host (server.Host) this page is one more client of
        self.bind, self.port, self.public = bind, port, public
        self.pairing = Pairing(on_new_code, scope, secure=bind not in LOOPBACK)
        self.origins: set[str] = set()
        self.fingerprint = ""
        self.note = ""  # a line for the terminal: lan.NO_LAN when 0.0.0.0 found no address to print
        self.addresses = [bind]
        self.sockets: dict[Any, str] = {}  # open WebSockets -> the hash of their device's cookie
        self.lasting: set[Any] = set()  # connections that became WebSockets: no request deadline
        self.seen: dict[Any, float] = {}  # HTTP connections -> when first seen (the request deadline)
        self.co_drive = ""
        self.names: set[str] = set()
        self.policy: dict[str, str] = {}
        self.public_hosts: set[str] = set()  # the Host headers `--public-url` gives
        self.access: dict[Any, str] = {}  # aiohttp's route -> who may use it (ROUTES)

    @property
    def secure(self) -> bool:
        return self.bind not in LOOPBACK

    async def start(self) -> None:
        try:
            from aiohttp import web
        except ImportError:
            raise RuntimeError(NEEDS_AIOHTTP) from None
        context = None
        if self.secure:
            from yoke.host.lan import lan_addresses
            from yoke.host.tls import certificate

            self.addresses, self.note = await asyncio.to_thread(lan_addresses, self.bind)
            context, self.fingerprint = await asyncio.to_thread(
                certificate, self.addresses + self._tls_names()
            )
        else:
            self.addresses = list(dict.fromkeys([self.bind, "127.0.0.1", "localhost"]))

        @web.middleware
        async def gate(request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
            return await self._gate(request, handler)

        app = web.Application(middlewares=[gate], client_max_size=MAX_BODY)
        for method, path, handler, who in ROUTES:
            answer = getattr(self, handler) if isinstance(handler, str) else functools.partial(handler, self)
            self.access[app.router.add_route(method, path, self._wrap(answer))] = who
        app.on_response_prepare.append(self._headers)
        self.runner = web.AppRunner(
            app, access_log=None, max_line_size=MAX_HEADER_LINE, max_field_size=MAX_HEADER_LINE,
            max_headers=MAX_HEADERS, handle_signals=False,
        )  # fmt: skip
        await self.runner.setup()
        assert self.runner.server is not None  # made by setup
        self.server = self.runner.server
        loop = asyncio.get_running_loop()
        remembered = 0 if self.port else remembered_port(self.bind)
        for port in dict.fromkeys([remembered or self.port, self.port]):  # the remembered one may be taken
            try:
                self.listener = await loop.create_server(
                    self.server, self.bind, port, ssl=context,
                    ssl_handshake_timeout=HANDSHAKE_TIMEOUT if context else None,
                )  # fmt: skip
                break
            except OSError:
                if port == self.port:
                    raise
        self.port = self.pairing.port = self.listener.sockets[0].getsockname()[1]
        remember_port(self.bind, self.port)
        scheme = "https" if self.secure else "http"
        self.origins = {f"{scheme}://{netloc(host, self.port)}" for host in self.addresses}
        self.names = host_names(self.bind, self.addresses)
        sockets = [f"{'wss' if self.secure else 'ws'}://{netloc(host, self.port)}" for host in self.addresses]
        if self.public:
            origin, given = public_origin(self.public)
            self.origins.add(origin)
            name = urllib.parse.urlsplit(origin).hostname or ""  # a proxy's `$host` drops the port
            default = 443 if origin.startswith("https") else 80
            self.public_hosts = {given, name, f"{name}:{default}"}
            sockets.append(("wss" if origin.startswith("https") else "ws") + origin[origin.index(":") :])
        self.pairing.host = self.public_host
        self.policy = page_policy(PAIR_FROM_FRAGMENT, sockets)
        self.watcher = loop.create_task(self._watch())

    def _tls_names(self) -> list[str]:
        """An https `--public-url` this page serves itself (no proxy's TLS in front): its host is in the
        certificate too."""
        parts = urllib.parse.urlsplit(self.public)
        return [parts.hostname] if parts.scheme == "https" and parts.hostname else []

    @property
    def public_host(self) -> str:
        """What the devices paired here are keyed by: the host a browser names (not the port)."""
        return urllib.parse.urlsplit(self.url).hostname or self.bind

    async def _watch(self) -> None:
        """`yoke remote-control revoke` edits the devices file; a revoked device's sockets close here, all at
        once: each is told (REVOKED) and cut a moment later whether or not its peer answers. An HTTP
        connection is cut REQUEST_DEADLINE after it opened unless it became a WebSocket (a slow sender holds
        nothing)."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(REVOCATION_POLL)
            self.pairing.devices.refresh()
            for ws, digest in list(self.sockets.items()):
                if digest not in self.pairing.devices.by_hash:
                    self.sockets.pop(ws, None)
                    loop.create_task(_quietly(ws.close(REVOKED, "revoked")))
                    loop.call_later(0.5, ws.transport.abort)
            now = time.monotonic()
            connections = set(self.server.connections)
            self.seen = {c: t for c, t in self.seen.items() if c in connections}
            self.lasting &= connections
            for connection in connections - self.lasting:
                if now - self.seen.setdefault(connection, now) > REQUEST_DEADLINE:
                    connection.force_close()

    def close(self) -> None:
        """Stop serving: the listener and every open page's WebSocket (start may have got part way)."""
        watcher, listener = getattr(self, "watcher", None), getattr(self, "listener", None)
        if watcher is not None:
            watcher.cancel()
        if listener is not None:
            listener.close()
        for ws in list(self.sockets):
            ws.transport.abort()
        runner = getattr(self, "runner", None)
        if runner is not None:
            asyncio.get_running_loop().create_task(_quietly(runner.cleanup()))

    @property
    def url(self) -> str:
        if self.public:
            return self.public.rstrip("/") + "/"
        return f"{'https' if self.secure else 'http'}://{netloc(self.addresses[0], self.port)}/"

    # -- every request -----------------------------------------------------------------------------------
    async def _headers(self, request: Any, response: Any) -> None:
        response.headers.update(self.policy)
        response.headers["Cache-Control"] = "no-store"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Server"] = "yoke"  # not the library's name and version

    def _wrap(self, handler: Callable[[Any], Awaitable[Answer]]) -> Callable[[Any], Awaitable[Any]]:
        from aiohttp import web

        async def route(request: Any) -> Any:
            status, headers, body = await handler(request)
            return web.Response(status=status, headers=headers, body=body)

        return route

    def _who(self, request: Any) -> str:
        return self.access.get(request.match_info.route, PAIRED)  # no route: 401 before it is 404 or 405

    async def _gate(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        """Host, then Origin, then the route's credential: nothing but pairing is answered before it."""
        from aiohttp import web

        def plain(status: int, text: str, headers: dict[str, str] | None = None) -> Any:
            return web.Response(status=status, text=text, headers=headers)

        given = request.headers.get("Host")
        if (given or "").strip().lower() not in self.public_hosts and not host_allowed(
            given, self.names, self.port
        ):
            return plain(421, "Misdirected request: the Host names another server\n")
        origin = request.headers.get("Origin")
        if origin is not None and origin not in self.origins:
            return plain(403, "Forbidden origin\n")
        if request.headers.get("Upgrade", "").lower() == "websocket" and request.path == "/":
            return await self._socket(request)
        who = self._who(request)
        if who == OPEN:
            return await handler(request)
        cookie = request.headers.get("Cookie")
        watching = self.pairing.viewing(cookie)
        if watching is not None:
            if who != SHARED or request.method != "GET":
                return plain(403, "A share link shows one session\n")
            if request.path.startswith("/s/") and request.match_info.get("session") != watching:
                return plain(403, "A share link shows one session\n")
            request["read_only"] = True
            return await handler(request)
        if not self.pairing.authorized(cookie):
            return web.Response(status=401, headers=HTML, text=pairing_page())
        return await handler(request)

    # -- the routes --------------------------------------------------------------------------------------
    async def _list_page(self, request: Any) -> Answer:
        """The list's rows come over the WebSocket (list.js), which needs the page key as well as the
        cookie: a cookie replayed from another port reads no session's name here."""
        return 200, HTML, list_page(self.port).encode()

    async def _session_page(self, request: Any) -> Answer:
        session = request.match_info["session"]
        return 200, HTML, session_page(session, self.port, read_only=bool(request.get("read_only"))).encode()

    async def _static(self, request: Any) -> Answer:
        return static(request.path)

    async def _share(self, request: Any) -> Answer:
        exchanged = self.pairing.exchange_share(
            request.match_info["token"], request.headers.get("User-Agent", "")
        )
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
        return head + ("; Secure" if self.secure or self.public.startswith("https:") else "")

    async def _pair(self, request: Any) -> Answer:
        peer = request.remote or ""
        if self.pairing.limited(peer):
            return 429, {"Retry-After": str(int(FAILURE_WINDOW))}, b"Too many wrong codes; wait a minute\n"
        form = urllib.parse.parse_qs((await request.read()).decode("utf-8", "replace"))
        exchanged = self.pairing.exchange(
            (form.get("code") or [""])[0], request.headers.get("User-Agent", ""), peer
        )
        if exchanged is None:
            return 401, HTML, pairing_page("Wrong code.").encode()
        target = (form.get("next") or ["/"])[0]
        if not (target.startswith("/s/") or target == "/"):  # only a page of this server
            target = "/"
        target = urllib.parse.quote(target, safe="/%")  # no header can be smuggled into Location
        cookie, key = exchanged
        # the page key rides in the fragment: never sent to a server, kept by the page in its own storage
        return 303, {"Location": f"{target}#k={key}", "Set-Cookie": self._cookie_header(cookie)}, b""

    # -- the WebSocket -----------------------------------------------------------------------------------
    async def _socket(self, request: Any) -> Any:
        """The page is a client of the host like any other (one bridge message per text frame), served in
        this process; a view-only cookie's requests are filtered first."""
        from aiohttp import WSMsgType, web

        from yoke.host.page_redact import PageClient
        from yoke.host.server import CLIENT_BUFFER

        device = self.pairing.socket_device(request.headers.get("Cookie"), request.query.get("k", ""))
        if device is None:
            return web.Response(status=401, text="Unauthorized\n")
        response = web.WebSocketResponse(max_msg_size=MAX_MESSAGE, heartbeat=None)
        await response.prepare(request)
        self.lasting.add(request.protocol)
        ws = _Socket(response, request.transport, request)
        self.sockets[ws] = device["hash"]
        client = PageClient(ws, CLIENT_BUFFER)  # what it is sent, secrets masked (page_redact.py)
        client.authenticated = True  # the cookie and the page key are this page's authentication
        client.only_session = device.get("session")  # a share link hears of its session only
        if at_least(scope_of(device), "drive") and self.co_drive:
            client.co_drives = {self.co_drive}

        async def messages() -> Any:
            async for message in response:
                if message.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
                    return
                data = message.data
                text = data if isinstance(data, str) else data.decode("utf-8", "replace")
                text, refusal = screen(text, device)
                if refusal:
                    client.send(refusal.encode() + b"\n")
                    continue
                yield client.restore(text).encode()

        try:
            await self.host.serve(client, messages())
        finally:
            self.sockets.pop(ws, None)
            client.closed = True
            client.ready.set()
        return response


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
    public = str(params.get("public_url") or "")
    page = RemoteControl(host, bind, port, on_new_code=tell, scope=scope, public=public)
    if params.get("drive"):  # `--remote-control`: the page prompts this session beside the terminal UI
        page.co_drive = host._session({"session": params["drive"]}).ident
    try:
        await page.start()
    except (CertificateError, OSError, ValueError) as exc:
        page.close()
        if isinstance(exc, (CertificateError, ValueError)):
            raise RuntimeError(str(exc)) from None
        raise RuntimeError(f"cannot listen on {bind}:{port}: {exc.strerror or exc}") from None
    host.pages[client] = page
    share = params.get("share")  # a name or id now; the link is bound to the session it names now
    token = page.pairing.share(host._session({"session": str(share)}).ident) if share else ""
    return {"url": page.url, "code": page.pairing.code, "fingerprint": page.fingerprint, "note": page.note,
            "share": f"{page.url}share/{token}" if token else ""}  # fmt: skip

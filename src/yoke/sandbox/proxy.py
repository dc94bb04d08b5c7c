"""The sandbox's way out: a small HTTP proxy that admits only allowed domains.

It speaks HTTP CONNECT (for HTTPS and anything tunnelled) and plain absolute-form HTTP requests, on
127.0.0.1 (macOS: the Seatbelt profile allows only this port) and on a Unix socket (Linux: bind-mounted into
the sandbox, whose own network namespace has nothing else). The host must match `allowedDomains` and none of
`deniedDomains`. A name that resolves to a loopback, link-local or unspecified address is refused unless the
allowlist names that host exactly, so a public name cannot be pointed at services on this machine. Refusals
are `403` with `X-Proxy-Error: blocked-by-yoke-sandbox`.

The proxy runs on its own event loop in a daemon thread, started on first use, so the (synchronous)
`wrap_command` can hand out its address from anywhere.
"""

from __future__ import annotations

import asyncio
import atexit
import ipaddress
import os
import socket
import tempfile
import threading
from collections.abc import Callable
from urllib.parse import urlsplit

from yoke.sandbox.domains import domain_matches, host_allowed, split_host_port

MAX_HEAD_BYTES = 64 * 1024
Resolver = Callable[[str, int], list[str]]


class DomainProxy:
    def __init__(
        self, allowed: tuple[str, ...], denied: tuple[str, ...] = (), *, resolver: Resolver | None = None
    ) -> None:
        self.allowed = tuple(allowed)
        self.denied = tuple(denied)
        self.resolver = resolver or _resolve
        self.tcp_port: int | None = None
        self.unix_path: str | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._servers: list[asyncio.base_events.Server] = []
        self._tmpdir: str | None = None
        # sentinel -> (the real value, the domain patterns it may be sent to): `credentials.py`
        self.secrets: dict[str, tuple[str, tuple[str, ...]]] = {}

    def add_secret(self, sentinel: str, value: str, hosts: tuple[str, ...]) -> None:
        """Substitute `value` for `sentinel` in requests to `hosts` (patterns; empty: every allowed domain)."""
        self.secrets[sentinel] = (value, tuple(hosts) or self.allowed)

    def _injected(self, host: str, port: int) -> list[tuple[bytes, bytes]]:
        """The (sentinel, value) pairs a request to host:port gets."""
        return [
            (s.encode("latin-1"), v.encode("latin-1", errors="replace"))
            for s, (v, hosts) in self.secrets.items()
            if any(domain_matches(p, host, port) for p in hosts)
        ]

    def start(self) -> DomainProxy:
        """Start listening (idempotent); returns self once both listeners are up."""
        if self._thread is not None:
            return self
        ready = threading.Event()
        errors: list[BaseException] = []
        self._tmpdir = tempfile.mkdtemp(prefix="yoke-proxy-")
        self.unix_path = os.path.join(self._tmpdir, "proxy.sock")

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(self._listen())
            except BaseException as exc:  # reported to the starting thread
                errors.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()

        self._thread = threading.Thread(target=run, name="yoke-sandbox-proxy", daemon=True)
        self._thread.start()
        ready.wait(10)
        if errors:
            raise errors[0]
        return self

    async def _listen(self) -> None:
        tcp = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.tcp_port = tcp.sockets[0].getsockname()[1]
        assert self.unix_path is not None
        unix = await asyncio.start_unix_server(self._handle, self.unix_path)
        os.chmod(self.unix_path, 0o666)
        self._servers = [tcp, unix]

    def stop(self) -> None:
        loop = self._loop
        if loop is None:
            return

        async def close() -> None:
            for server in self._servers:
                server.close()

        try:
            asyncio.run_coroutine_threadsafe(close(), loop).result(5)
        except Exception:
            pass
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(5)
        if self.unix_path and os.path.exists(self.unix_path):
            os.unlink(self.unix_path)
        if self._tmpdir:
            try:
                os.rmdir(self._tmpdir)
            except OSError:
                pass
        self._loop = self._thread = None

    # ---- one client ---------------------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        try:
            await self._serve(head, reader, writer)
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def _serve(self, head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3:
            await _reply(writer, 400, "Bad Request", "malformed request line")
            return
        method, target, version = parts
        if method.upper() == "CONNECT":
            host, port = split_host_port(target)
            port = port or 443
            rest = b""
        else:
            url = urlsplit(target)
            if url.scheme != "http" or not url.hostname:
                await _reply(writer, 400, "Bad Request", "only absolute http:// URLs and CONNECT are proxied")
                return
            host, port = url.hostname.lower(), url.port or 80
            path = (url.path or "/") + (f"?{url.query}" if url.query else "")
            headers = [h for h in lines[1:] if h and not h.lower().startswith(("proxy-", "connection:"))]
            rest = "\r\n".join([f"{method} {path} {version}", *headers, "Connection: close", "", ""]).encode(
                "latin-1"
            )
        address = self._admit(host, port)
        if isinstance(address, str) and address.startswith("!"):
            await _reply(writer, 403, "Forbidden", address[1:])
            return
        pairs = self._injected(host, port) if method.upper() == "CONNECT" else []
        if pairs:
            await _inject(host, port, address, version, pairs, reader, writer)
            return
        try:
            up_reader, up_writer = await asyncio.wait_for(asyncio.open_connection(address, port), 30)
        except (OSError, TimeoutError) as exc:
            await _reply(writer, 502, "Bad Gateway", f"cannot reach {host}:{port} ({exc})")
            return
        if method.upper() == "CONNECT":
            writer.write(f"{version} 200 Connection Established\r\n\r\n".encode("latin-1"))
            await writer.drain()
        else:
            up_writer.write(rest)
            await up_writer.drain()
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    def _admit(self, host: str, port: int) -> str:
        """The address to connect to, or "!reason" when the request is refused."""
        if not host_allowed(host, port, self.allowed, self.denied):
            return f"!{host} is not in the sandbox's allowed domains (sandbox.network.allowedDomains)"
        try:
            addresses = self.resolver(host, port)
        except OSError as exc:
            return f"!cannot resolve {host} ({exc})"
        if not addresses:
            return f"!cannot resolve {host}"
        named_exactly = any(domain_matches(p, host, port) and "*" not in p for p in self.allowed)
        for address in addresses:
            ip = ipaddress.ip_address(address.split("%", 1)[0])
            local = ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast
            if local and not named_exactly:
                return f"!{host} resolves to a local address ({address})"
        return addresses[0]


async def _inject(
    host: str,
    port: int,
    address: str,
    version: str,
    pairs: list[tuple[bytes, bytes]],
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
) -> None:
    """A CONNECT to a host that gets real credentials: end the client's TLS here with a certificate of the
    process's authority, put the real values in place of the sentinels in the request head, and send the
    request on over TLS to the real host (its certificate verified as usual). One request per connection."""
    import ssl

    from yoke.sandbox.credentials import authority

    writer.write(f"{version} 200 Connection Established\r\n\r\n".encode("latin-1"))
    await writer.drain()
    await writer.start_tls(authority().server_context(host))
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        return
    for sentinel, value in pairs:
        head = head.replace(sentinel, value)
    lines = [ln for ln in head.split(b"\r\n")[:-2] if not ln.lower().startswith((b"connection:", b"proxy-"))]
    head = b"\r\n".join([*lines, b"Connection: close", b"", b""])
    try:
        up_reader, up_writer = await asyncio.wait_for(
            asyncio.open_connection(address, port, ssl=ssl.create_default_context(), server_hostname=host), 30
        )
    except (OSError, TimeoutError, ssl.SSLError) as exc:
        await _reply(writer, 502, "Bad Gateway", f"cannot reach {host}:{port} ({exc})")
        return
    up_writer.write(head)
    await up_writer.drain()
    await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))


def _resolve(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


async def _reply(writer: asyncio.StreamWriter, status: int, phrase: str, message: str) -> None:
    body = f"Yoke sandbox: {message}\n".encode()
    head = (
        f"HTTP/1.1 {status} {phrase}\r\nX-Proxy-Error: blocked-by-yoke-sandbox\r\n"
        f"Content-Type: text/plain; charset=utf-8\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    writer.write(head.encode("latin-1") + body)
    await writer.drain()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        try:
            if writer.can_write_eof():
                writer.write_eof()
        except (OSError, RuntimeError):
            pass


_shared: dict[tuple[tuple[str, ...], tuple[str, ...]], DomainProxy] = {}
_shared_lock = threading.Lock()


def shared_proxy(allowed: tuple[str, ...], denied: tuple[str, ...]) -> DomainProxy:
    """One running proxy per allowlist for the life of the process (stopped at exit)."""
    key = (tuple(allowed), tuple(denied))
    with _shared_lock:
        proxy = _shared.get(key)
        if proxy is None:
            if not _shared:
                atexit.register(_stop_all)
            proxy = DomainProxy(*key).start()
            _shared[key] = proxy
        return proxy


def _stop_all() -> None:
    for proxy in list(_shared.values()):
        proxy.stop()
    _shared.clear()

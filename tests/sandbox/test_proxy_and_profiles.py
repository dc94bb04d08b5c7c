"""The domain proxy on real sockets, the Seatbelt profile text, and which commands run sandboxed."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from yoke.permissions.sandbox_exclusions import command_excluded
from yoke.sandbox import SandboxSettings, should_sandbox
from yoke.sandbox.bridge import seccomp_program
from yoke.sandbox.macos import seatbelt_profile
from yoke.sandbox.proxy import DomainProxy


@pytest.fixture
def echo_port() -> Iterator[int]:
    """A TCP server that upper-cases what it receives."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                data = conn.recv(1024)
                conn.sendall(data.upper())

    threading.Thread(target=serve, daemon=True).start()
    yield listener.getsockname()[1]
    stop.set()
    listener.close()


@pytest.fixture
def proxy() -> Iterator[DomainProxy]:
    table = {"localhost": ["127.0.0.1"], "exact.test": ["127.0.0.1"], "wild.test": ["127.0.0.1"]}

    def resolver(host: str, port: int) -> list[str]:
        if host not in table:
            raise OSError("unknown host")
        return table[host]

    running = DomainProxy(
        ("localhost", "exact.test", "*.wild.test", "wild.test:1"), ("bad.wild.test",), resolver=resolver
    )
    running.start()
    yield running
    running.stop()


def tunnel(address: tuple | str, target: str, payload: bytes = b"ping") -> bytes:  # type: ignore[type-arg]
    family = socket.AF_UNIX if isinstance(address, str) else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as client:
        client.settimeout(5)
        client.connect(address)
        client.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = client.recv(1024)
            if not chunk:
                break
            head += chunk
        if b" 200 " not in head.split(b"\r\n", 1)[0]:
            return head
        client.sendall(payload)
        return client.recv(1024)


def test_connect_tunnel_to_an_allowed_host(proxy: DomainProxy, echo_port: int) -> None:
    assert proxy.tcp_port is not None and proxy.unix_path is not None
    assert tunnel(("127.0.0.1", proxy.tcp_port), f"localhost:{echo_port}") == b"PING"
    assert tunnel(proxy.unix_path, f"exact.test:{echo_port}") == b"PING"


def test_refusals(proxy: DomainProxy, echo_port: int) -> None:
    assert proxy.tcp_port is not None
    address = ("127.0.0.1", proxy.tcp_port)
    not_listed = tunnel(address, f"127.0.0.1:{echo_port}")
    assert b"403" in not_listed and b"blocked-by-yoke-sandbox" in not_listed
    denied = tunnel(address, f"bad.wild.test:{echo_port}")
    assert b"403" in denied
    wrong_port = tunnel(address, f"wild.test:{echo_port}")
    assert b"403" in wrong_port
    # `*.wild.test` is allowed, but a name it covers that does not resolve is refused, not guessed.
    table_miss = tunnel(address, f"a.wild.test:{echo_port}")
    assert b"403" in table_miss and b"cannot resolve" in table_miss


def test_plain_http_request_is_forwarded(proxy: DomainProxy) -> None:
    import http.server

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = self.path.encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        assert proxy.tcp_port is not None
        with socket.create_connection(("127.0.0.1", proxy.tcp_port), timeout=5) as client:
            port = server.server_address[1]
            client.sendall(f"GET http://localhost:{port}/x?y=1 HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
            reply = b""
            while chunk := client.recv(4096):
                reply += chunk
        assert reply.startswith(b"HTTP/1.0 200") and reply.endswith(b"/x?y=1")
    finally:
        server.shutdown()


def test_wildcard_name_resolving_to_loopback_is_refused() -> None:
    running = DomainProxy(("*.example.test",), resolver=lambda host, port: ["127.0.0.1"]).start()
    try:
        assert running.tcp_port is not None
        reply = tunnel(("127.0.0.1", running.tcp_port), "api.example.test:443")
        assert b"403" in reply and b"local address" in reply
    finally:
        running.stop()


def test_seatbelt_profile(tmp_path: Path) -> None:
    settings = SandboxSettings(
        enabled=True,
        deny_read=("~/private",),
        allow_read=("~/private/ok",),
        allow_unix_sockets=("/var/run/docker.sock",),
        base_dir=tmp_path,
    )
    home = Path("/Users/me")
    profile = seatbelt_profile(
        settings, [tmp_path], home=home, writable=[], proxy_port=4321, tmp_dir="/private/tmp/y"
    )
    lines = profile.splitlines()
    assert lines[:3] == ["(version 1)", "(allow default)", "(deny network*)"]
    assert '(allow network-outbound (remote ip "localhost:4321"))' in lines
    assert lines.index("(deny file-write*)") < next(
        i for i, line in enumerate(lines) if "allow file-write*" in line
    )
    assert f'(subpath "{tmp_path.resolve()}")' in profile
    assert f'(subpath "{tmp_path.resolve()}/.git/hooks")' in profile
    assert '(subpath "/Users/me/.ssh")' in profile and '(subpath "/Users/me/private")' in profile
    assert lines[-1] == '(allow file-read* (subpath "/Users/me/private/ok"))'
    assert 'path-literal "/var/run/docker.sock"' in profile


def test_which_commands_are_sandboxed() -> None:
    off = SandboxSettings()
    on = SandboxSettings(enabled=True, excluded_commands=("docker", "git push *"))
    strict = SandboxSettings(enabled=True, allow_unsandboxed_commands=False)
    excluded = partial(command_excluded, settings=on)  # what the gate hands the sandbox (SessionServices)
    assert not should_sandbox("ls", off)
    assert should_sandbox("ls && make", on, excluded=excluded)
    assert not should_sandbox("docker ps", on, excluded=excluded)
    assert not should_sandbox("make && docker build .", on, excluded=excluded)
    assert not should_sandbox("git push origin", on, excluded=excluded)
    assert should_sandbox("git status", on, excluded=excluded)
    assert should_sandbox("docker ps", on)  # nobody said it is excluded: it stays sandboxed
    assert not should_sandbox("ls", on, dangerously_disable=True)
    assert should_sandbox("ls", strict, dangerously_disable=True)


def test_seccomp_program_shape() -> None:
    program = seccomp_program("x86_64")
    assert len(program) % 8 == 0 and len(program) // 8 == 11
    assert seccomp_program("aarch64") != program

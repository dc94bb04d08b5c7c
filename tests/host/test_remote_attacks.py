# ruff: noqa: F811 - pytest fixtures imported by name
"""Issue 44 items 3, 4, 8 and 9: attacks on the host's listeners, as real processes. Nothing is said before
authentication and nothing but authentication is possible; every listener checks Host and Origin; header
lines are bounded; a silent TLS handshake is dropped; the page carries a CSP and still works under it."""

from __future__ import annotations

import http.client
import http.server
import socket
import subprocess
import sys
import threading
import time

import pytest
from tests.conftest import anthropic_env
from tests.host.conftest import Raw, runtime_of, socket_of, wait_for, yoke_cmd
from tests.host.remote_fixtures import remote_page  # noqa: F401 - a fixture
from tests.host.test_remote_browser import browser  # noqa: F401 - a fixture

from yoke.host.webpage import COOKIE
from yoke.testing import ScriptedServer

SECRET_PROMPT = "the launch code is swordfish"


def _start(env, project, *args) -> str:
    run = yoke_cmd(env, project, "--bg", *args)
    assert run.returncode == 0, run.stderr
    return run.stdout.split("· ")[1].split()[0]


@pytest.fixture
def listening_host(host_env):
    """`yoke host --tcp --ws` on loopback: its environment, TCP port and WebSocket port."""
    env = dict(host_env, YOKE_HOST_HELLO_TIMEOUT="4")
    proc = subprocess.Popen(
        [sys.executable, "-m", "yoke", "host", "--tcp", "127.0.0.1:0", "--ws", "127.0.0.1:0"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    folder = runtime_of(env)
    try:
        tcp = int(wait_for(lambda: (folder / "host.port").exists() and (folder / "host.port").read_text()))
        ws = int(
            wait_for(lambda: (folder / "host.ws-port").exists() and (folder / "host.ws-port").read_text())
        )
        yield env, tcp, ws
    finally:
        proc.kill()
        proc.wait()


def _heard(sock: socket.socket, seconds: float) -> bytes:
    sock.settimeout(0.5)
    said = b""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            continue
        except ConnectionError:
            break
        if not chunk:
            break
        said += chunk
    return said


def test_an_unauthenticated_tcp_client_hears_nothing_and_is_dropped(listening_host, project):
    env, tcp, _ = listening_host
    spy = socket.create_connection(("127.0.0.1", tcp))
    with ScriptedServer([{"content": [{"type": "text", "text": "ok"}]}] * 3) as srv:
        full = dict(env, **anthropic_env(srv))
        _start(full, project, SECRET_PROMPT)
        _start(full, project, SECRET_PROMPT + " again")
        said = _heard(spy, 6)  # past the hello deadline (4 s)
    assert b"swordfish" not in said and b"session.state" not in said, said[:300]
    assert said == b"" or b"unauthorized" in said  # at most the refusal, then the end
    # a request other than hello with the token ends the connection: nothing else is possible
    bad = Raw(("127.0.0.1", tcp))
    reply = bad.call("list")
    assert reply["type"] == "error" and reply["payload"]["code"] == "unauthorized"
    assert bad.read() is None


def _ws_handshake(port: int, headers: dict[str, str]) -> tuple[int, socket.socket]:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    lines = ["GET / HTTP/1.1", "Connection: Upgrade", "Upgrade: websocket",
             "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13"]  # fmt: skip
    lines += [f"{k}: {v}" for k, v in headers.items()]
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            break
        head += chunk
    return int(head.split(b" ")[1]), sock


def test_the_ws_listener_refuses_pages_and_rebinding_and_says_nothing_before_hello(listening_host, project):
    env, _, ws = listening_host
    own = f"127.0.0.1:{ws}"
    assert _ws_handshake(ws, {"Host": own, "Origin": "http://evil.example"})[0] == 403
    assert (
        _ws_handshake(ws, {"Host": own, "Origin": f"http://{own}"})[0] == 403
    )  # any page: it is for programs
    assert _ws_handshake(ws, {"Host": f"rebound.evil.example:{ws}"})[0] == 421
    status, spy = _ws_handshake(ws, {"Host": own})
    assert status == 101  # a program (no Origin) may connect, and must authenticate
    with ScriptedServer([{"content": [{"type": "text", "text": "ok"}]}]) as srv:
        _start(dict(env, **anthropic_env(srv)), project, SECRET_PROMPT)
        said = _heard(spy, 6)
    assert b"swordfish" not in said and b"session.state" not in said, said[:300]


def test_a_cross_origin_page_in_chromium_cannot_read_the_ws_listener(listening_host, project, browser):
    """A web page the user happens to open (served from another 127.0.0.1 port) tries the host's --ws."""
    env, _, ws = listening_host
    evil = (
        "<!doctype html><title>loading</title><script>"
        f"var s = new WebSocket('ws://127.0.0.1:{ws}/'), got = [];"
        "s.onopen = function () { got.push('open'); };"
        "s.onmessage = function (e) { got.push(e.data); };"
        "s.onclose = function () { document.title = 'closed:' + JSON.stringify(got); };"
        "</script>"
    ).encode()

    class Evil(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the standard library's name
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(evil)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Evil)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with ScriptedServer([{"content": [{"type": "text", "text": "ok"}]}]) as srv:
            _start(dict(env, **anthropic_env(srv)), project, SECRET_PROMPT)
            page = browser.new_context().new_page()
            page.goto(f"http://127.0.0.1:{server.server_address[1]}/")
            page.wait_for_function("document.title.startsWith('closed:')", timeout=30_000)
            title = page.title()
    finally:
        server.shutdown()
    assert title == "closed:[]", title  # never opened, never heard a word


def _host_rss(env) -> int:
    pid = Raw(socket_of(env)).call("hello")["payload"]["host"]
    with open(f"/proc/{pid}/status") as handle:
        line = next(line for line in handle if line.startswith("VmRSS:"))
    return int(line.split()[1]) * 1024


def test_a_header_flood_does_not_grow_the_host(host_env, project, remote_page):  # noqa: F811
    page = remote_page(host_env, project)
    before = _host_rss(host_env)
    flood = socket.create_connection(page.address, timeout=30)
    flood.sendall(b"GET / HTTP/1.1\r\nX-Flood: ")
    sent = 0
    try:
        while sent < 200 * 1024 * 1024:
            flood.sendall(b"a" * (1 << 20))
            sent += 1 << 20
    except (ConnectionError, TimeoutError):
        pass  # dropped part way: what should happen
    after = _host_rss(host_env)
    assert after - before < 32 * 1024 * 1024, (before, after, sent)
    assert sent < 200 * 1024 * 1024  # the host stopped reading and closed; the flood did not all go in
    # many short header lines: refused, not stored
    many = socket.create_connection(page.address, timeout=30)
    many.sendall(b"GET / HTTP/1.1\r\n" + b"X-A: b\r\n" * 5000 + b"\r\n")
    assert many.recv(100).split(b" ")[1] in (b"431", b"400")


def test_the_page_checks_host_and_sends_its_security_headers(host_env, project, remote_page):  # noqa: F811
    page = remote_page(host_env, project)
    conn = http.client.HTTPConnection(*page.address, timeout=30)
    conn.request("GET", "/", headers={"Host": f"rebound.evil.example:{page.address[1]}"})
    assert conn.getresponse().status == 421
    conn.close()
    conn = http.client.HTTPConnection(*page.address, timeout=30)
    conn.request("GET", "/")
    response = conn.getresponse()
    assert response.status == 401  # the pairing page
    csp = response.getheader("Content-Security-Policy") or ""
    assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
    assert response.getheader("X-Content-Type-Options") == "nosniff"


def test_a_silent_tls_handshake_is_dropped_quickly(host_env, project, remote_page):  # noqa: F811
    page = remote_page(host_env, project, "--host", "0.0.0.0")
    silent = socket.create_connection(("127.0.0.1", page.address[1]), timeout=60)
    started = time.monotonic()
    try:
        assert silent.recv(100) == b""
    except ConnectionError:
        pass
    assert time.monotonic() - started < 20  # the handshake deadline (5 s), not 60


def test_the_page_works_under_its_csp(host_env, project, remote_page, browser):  # noqa: F811
    """Paired in a plain context (no CSP bypass): the list, a session's events, the prompt box."""
    with ScriptedServer([{"content": [{"type": "text", "text": "the answer under csp"}]}]) as srv:
        env = dict(host_env, **anthropic_env(srv))
        _start(env, project, "csp check")
        server = remote_page(env, project)
        context = browser.new_context()
        errors: list[str] = []
        page = context.new_page()
        page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
        page.set_default_timeout(30_000)
        page.goto(server.url)
        page.get_by_label("Pairing code").fill(server.code)
        page.get_by_role("button", name="Pair").click()
        page.get_by_role("link", name="csp check").click()
        page.get_by_text("the answer under csp").wait_for()
        assert errors == []
        cookie = next(c for c in context.cookies() if c["name"].startswith(COOKIE))
        assert cookie["httpOnly"]


def test_a_cookie_chromium_sends_to_another_port_opens_nothing(host_env, project, remote_page, browser):
    """Paired in Chromium; the same browser then opens a page on another 127.0.0.1 port, which receives the
    cookie (browsers do not separate cookies by port) and replays it to the page's own port: no session's
    name, no WebSocket."""
    captured: list[str] = []

    class Catcher(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the standard library's name
            captured.append(self.headers.get("Cookie") or "")
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"caught")

        def log_message(self, *args):
            pass

    catcher = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Catcher)
    threading.Thread(target=catcher.serve_forever, daemon=True).start()
    try:
        with ScriptedServer([{"content": [{"type": "text", "text": "secret work answer"}]}]) as srv:
            env = dict(host_env, **anthropic_env(srv))
            _start(env, project, "secret project name")
            server = remote_page(env, project)
            page = browser.new_context().new_page()
            page.set_default_timeout(30_000)
            page.goto(server.url)
            page.get_by_label("Pairing code").fill(server.code)
            page.get_by_role("button", name="Pair").click()
            page.get_by_role("link", name="secret project name").wait_for()  # paired: the list is shown
            page.goto(f"http://127.0.0.1:{catcher.server_address[1]}/")
            stolen = captured[-1]
            assert stolen.startswith("yoke_rc_")  # the browser did send it to the other port
            conn = http.client.HTTPConnection(*server.address, timeout=30)
            conn.request("GET", "/", headers={"Cookie": stolen})
            listed = conn.getresponse().read().decode()
            assert "secret project name" not in listed
            ws_port = int(listed.split('data-ws-port="')[1].split('"')[0])
            status, sock = _ws_handshake(ws_port, {"Host": f"127.0.0.1:{ws_port}", "Cookie": stolen})
            sock.close()
            assert status == 401
    finally:
        catcher.shutdown()

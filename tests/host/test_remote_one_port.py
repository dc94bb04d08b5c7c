# ruff: noqa: F811 - pytest fixtures imported by name
"""Issue 44's remainder for the page: the pages, the pairing POST and the WebSocket on ONE port (aiohttp; the
second `websockets` port is gone); a paired device honoured on the next run; `--host ADDR` and `--public-url`
in the printed URL and the QR code, and in the Host/Origin checks. Real `yoke remote-control` processes."""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import urllib.parse

from tests.host.conftest import Raw, socket_of, wait_for
from tests.host.remote_fixtures import remote_page  # noqa: F401 - a fixture
from tests.host.test_remote_credentials import KEYS, _call, _pair, _ws
from tests.host.test_remote_security import _http

from yoke.host.remote_command import pairing_url, qr_text


def _listening_ports(pid: int) -> set[int]:
    """The TCP ports process `pid` listens on (its sockets' inodes against /proc/net/tcp{,6})."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        target = os.readlink(f"/proc/{pid}/fd/{fd}") if os.path.exists(f"/proc/{pid}/fd/{fd}") else ""
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as handle:
            for row in list(handle)[1:]:
                fields = row.split()
                if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                    ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def test_the_page_and_its_websocket_share_one_port(host_env, project, remote_page):
    page = remote_page(host_env, project)
    pid = Raw(socket_of(host_env)).call("hello")["payload"]["host"]
    assert _listening_ports(pid) == {page.address[1]}  # the page's one port: no second WebSocket port
    cookie = _pair(page)
    listed = _http(page, "GET", "/s/anything", headers={"Cookie": cookie})[1].decode()
    assert f'data-ws-port="{page.address[1]}"' in listed  # the page opens its socket on its own port
    with _ws(page.address[1], cookie) as ws:
        assert _call(ws, "h", "hello", {})["type"] == "response"
        assert _call(ws, "l", "list", {})["type"] == "response"
    csp = _http(page, "GET", "/", headers={"Cookie": cookie})[0].getheader("Content-Security-Policy")
    assert f"ws://127.0.0.1:{page.address[1]}" in csp and csp.count("ws://127.0.0.1:") == 1
    page.stop()
    wait_for(lambda: _listening_ports(pid) == set())  # the page's port closes with the command


def test_a_slow_request_is_cut_and_a_body_over_the_limit_refused(host_env, project, remote_page):
    page = remote_page(host_env, project)
    slow = socket.create_connection(page.address, timeout=30)
    slow.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the end of its headers
    assert slow.recv(100) == b""  # cut at the request deadline (10 s), well within the 30 s timeout
    body = urllib.parse.urlencode({"code": page.code, "pad": "x" * 10_000})
    response, _ = _http(page, "POST", "/pair", body, {"Content-Type": "application/x-www-form-urlencoded"})
    assert response.status == 413


def test_a_paired_device_is_honoured_on_the_next_run(host_env, project, remote_page):
    first = remote_page(host_env, project)
    cookie = _pair(first)
    first.stop()
    second = remote_page(host_env, project)  # no --port: the port this address used last
    assert second.address == first.address
    assert _http(second, "GET", "/", headers={"Cookie": cookie})[0].status == 200  # no new pairing
    with _ws(second.address[1], cookie) as ws:
        assert _call(ws, "h", "hello", {})["type"] == "response"
    # a run on another port: the cookie alone opens nothing there, the cookie with its page key does
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        other_port = probe.getsockname()[1]
    third = remote_page(host_env, project, "--port", str(other_port))
    assert _http(third, "GET", "/", headers={"Cookie": cookie})[0].status == 401
    with _ws(third.address[1], cookie) as ws:
        assert _call(ws, "h", "hello", {})["type"] == "response"
    # revoked: honoured nowhere
    from tests.host.conftest import yoke_cmd

    assert yoke_cmd(host_env, project, "remote-control", "revoke", "--all").returncode == 0
    assert _http(second, "GET", "/", headers={"Cookie": cookie})[0].status == 401
    KEYS.pop(cookie, None)


def _printed(env, cwd, *args) -> str:
    """What `yoke remote-control ARGS` prints on its terminal before it waits (URL, code, QR code)."""
    proc = subprocess.Popen([sys.executable, "-m", "yoke", "remote-control", *args], env=env, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)  # fmt: skip
    out = b""
    try:
        while select.select([proc.stdout], [], [], 20)[0]:
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            out += chunk
            if out.count(b"\n") > 8 and select.select([proc.stdout], [], [], 1)[0] == []:
                break  # the QR code is out, the command waits
    finally:
        proc.terminate()
        proc.wait(10)
    return out.decode()


def test_a_non_loopback_address_is_in_the_url_and_the_qr_code(host_env, project):
    text = _printed(host_env, project, "--host", "127.0.0.2")
    url = text.split("Remote control: ")[1].split()[0]
    code = text.split("Pairing code: ")[1].split()[0]
    assert url.startswith("https://127.0.0.2:")
    assert "127.0.0.1" not in text and "localhost" not in text
    drawn = qr_text(pairing_url(url, code))
    assert drawn and drawn in text  # the QR code encodes exactly https://127.0.0.2:PORT/#pair=CODE


def test_a_public_url_is_printed_and_passes_the_host_and_origin_checks(host_env, project, remote_page):
    from websockets.sync.client import connect

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    public = "https://yoke.example.test/"
    page = remote_page(host_env, project, "--port", str(port), "--public-url", public)
    assert page.url == public and page.pair_url == f"{public}#pair={page.code}"
    page.address = ("127.0.0.1", port)  # the proxy's upstream
    proxied = {"Host": "yoke.example.test", "Origin": "https://yoke.example.test",
               "Content-Type": "application/x-www-form-urlencoded"}  # fmt: skip
    body = urllib.parse.urlencode({"code": page.code})
    response, _ = _http(page, "POST", "/pair", body, proxied)
    assert response.status == 303 and "; Secure" in response.getheader("Set-Cookie")
    cookie = response.getheader("Set-Cookie").split(";")[0]
    key = response.getheader("Location").split("#k=")[1]
    upstream = socket.create_connection(("127.0.0.1", port))  # as the proxy connects, naming the public host
    with connect(f"ws://yoke.example.test/?k={key}", sock=upstream, origin="https://yoke.example.test",
                 additional_headers={"Cookie": cookie}) as ws:  # fmt: skip
        ws.send(json.dumps({"id": "h", "type": "request", "payload": {"method": "hello", "params": {}}}))
        assert json.loads(ws.recv(timeout=30))["type"] == "response"
    # another site, or a rebinding name, is still refused
    assert _http(page, "POST", "/pair", body, {**proxied, "Origin": "https://evil.example"})[0].status == 403
    assert _http(page, "GET", "/", headers={"Host": "evil.example"})[0].status == 421


def test_a_public_url_with_a_path_is_one_line(host_env, project):
    from tests.host.conftest import yoke_cmd

    run = yoke_cmd(host_env, project, "remote-control", "--public-url", "https://x.example/yoke/")
    assert run.returncode == 2 and "no path" in run.stderr and "Traceback" not in run.stderr


def test_without_aiohttp_the_command_says_what_to_install(host_env, project, tmp_path):
    from tests.host.conftest import yoke_cmd

    blocked = tmp_path / "blocked" / "aiohttp"
    blocked.mkdir(parents=True)
    (blocked / "__init__.py").write_text("raise ImportError('no aiohttp here')\n")
    env = dict(host_env, PYTHONPATH=f"{blocked.parent}:{host_env.get('PYTHONPATH', '')}".rstrip(":"))
    run = yoke_cmd(env, project, "remote-control", "--json")
    assert run.returncode == 1 and "pip install 'yoke[remote]'" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1

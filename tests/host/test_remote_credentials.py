# ruff: noqa: F811 - pytest fixtures imported by name
"""Issue 44 items 3, 6, 7 and 9: the remote page's credentials are scoped, bound to their port, expiring and
revocable at once; a share link shows one session. Each attack as real processes: `yoke remote-control`
pages, plain HTTP and WebSocket clients."""

from __future__ import annotations

import json
import socket
import time
import urllib.parse

import pytest
from tests.conftest import anthropic_env
from tests.host.conftest import Raw, socket_of, yoke_cmd
from tests.host.remote_fixtures import remote_page  # noqa: F401 - a fixture
from tests.host.test_remote_security import _http
from websockets.sync.client import connect

from yoke.host.scopes import screen
from yoke.testing import ScriptedServer


def _pair(page, agent: str = "test") -> str:
    """Pair with the page's code: the cookie as `name=value`."""
    body = urllib.parse.urlencode({"code": page.code})
    headers = {"Content-Type": "application/x-www-form-urlencoded", "User-Agent": agent}
    response, _ = _http(page, "POST", "/pair", body, headers)
    assert response.status == 303, response.status
    cookie = response.getheader("Set-Cookie").split(";")[0]
    KEYS[cookie] = response.getheader("Location").split("#k=")[1]  # the page key: the page's storage
    return cookie


KEYS: dict[str, str] = {}


def _ws(port: int, cookie: str, key: str | None = None):
    """A WebSocket as the paired page opens it: its cookie, and its key from its own storage."""
    key = KEYS.get(cookie, "") if key is None else key
    return connect(f"ws://127.0.0.1:{port}/?k={key}", additional_headers={"Cookie": cookie})


def _ws_port(page, cookie: str) -> int:
    response, data = _http(page, "GET", "/s/x", headers={"Cookie": cookie})
    assert response.status == 200
    return int(data.decode().split('data-ws-port="')[1].split('"')[0])


def _call(ws, ident: str, method: str, params: dict) -> dict:
    ws.send(json.dumps({"id": ident, "type": "request", "payload": {"method": method, "params": params}}))
    while True:
        message = json.loads(ws.recv(timeout=30))
        if message.get("id") == ident and message["type"] in ("response", "error"):
            return message


def _start(env, project, *args) -> str:
    run = yoke_cmd(env, project, "--bg", *args)
    assert run.returncode == 0, run.stderr
    return run.stdout.split("· ")[1].split()[0]


def test_a_cookie_replayed_from_another_port_is_refused(host_env, project, remote_page):  # noqa: F811
    """A browser sends 127.0.0.1's cookies to every port: whoever listens on another port gets them. The
    cookie is named for its page's port and honoured only there."""
    first = remote_page(host_env, project)
    cookie = _pair(first)
    name, value = cookie.split("=", 1)
    assert name == f"yoke_rc_{first.address[1]}"
    assert _http(first, "GET", "/", headers={"Cookie": cookie})[0].status == 200
    second = remote_page(host_env, project)
    for replayed in (cookie, f"yoke_rc_{second.address[1]}={value}", f"yoke_rc={value}"):
        assert _http(second, "GET", "/", headers={"Cookie": replayed})[0].status == 401, replayed
    ws_port = _ws_port(first, cookie)
    second_ws = int(_http(second, "GET", "/", headers={"Cookie": _pair(second)})[1].decode()
                    .split('data-ws-port="')[1].split('"')[0])  # fmt: skip
    with pytest.raises(Exception, match="401"):
        connect(
            f"ws://127.0.0.1:{second_ws}/",
            additional_headers={"Cookie": f"yoke_rc_{second.address[1]}={value}"},
        )
    # replayed to its own page's port: the cookie alone opens no WebSocket (the key is in the page's storage)
    for key in ("", "guessed"):
        with pytest.raises(Exception, match="401"):
            _ws(ws_port, cookie, key)
    assert "Loading" in _http(first, "GET", "/", headers={"Cookie": cookie})[1].decode()  # no names in it
    with _ws(ws_port, cookie) as ws:
        assert _call(ws, "h", "hello", {})["type"] == "response"


def test_a_paired_device_cannot_start_or_end_sessions_unless_admin(host_env, project, remote_page, tmp_path):  # noqa: F811
    """The default scope (drive) prompts and steers; it cannot start a session with flags or environment,
    nor stop, kill, remove or shut down. A page served with --scope admin can."""
    with ScriptedServer([{"content": [{"type": "text", "text": "ok"}]}] * 4) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "kept alive")
        page = remote_page(env, project)
        cookie = _pair(page)
        marker = tmp_path / "pwned"
        hook = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]}}
        evil = {"cwd": str(project), "prompt": "x", "env": {"PATH": "/tmp"},
                "args": ["--settings", json.dumps(hook), "--dangerously-skip-permissions"]}  # fmt: skip
        with _ws(_ws_port(page, cookie), cookie) as ws:
            for method, params in (("start", evil), ("respawn", {"session": ident}), ("stop", {"session": ident}),
                                   ("kill", {"session": ident}), ("rm", {"session": ident}), ("shutdown", {}),
                                   ("control", {"session": ident, "request": {"subtype": "set_permission_mode",
                                                                               "mode": "bypassPermissions"}})):  # fmt: skip
                refused = _call(ws, method, method, params)
                assert refused["type"] == "error" and refused["payload"]["code"] == "forbidden", (
                    method,
                    refused,
                )
            assert _call(ws, "l", "list", {})["type"] == "response"
        assert not marker.exists()
        assert Raw(socket_of(env)).call("hello")["type"] == "response"  # the host is still up
        admin = remote_page(env, project, "--scope", "admin")
        cookie = _pair(admin)
        with _ws(_ws_port(admin, cookie), cookie) as ws:
            assert _call(ws, "s", "stop", {"session": ident})["type"] == "response"


def test_revocation_closes_silent_sockets_at_once(host_env, project, remote_page):  # noqa: F811
    """A revoked device holding sockets that never answer a close: all are cut within a second or two, not
    ~10 s each."""
    page = remote_page(host_env, project)
    cookie = _pair(page)
    port = _ws_port(page, cookie)
    silent = []
    for _ in range(5):
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.sendall((f"GET /?k={KEYS[cookie]} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                      f"Cookie: {cookie}\r\n\r\n").encode())  # fmt: skip
        assert b" 101 " in sock.recv(4096)
        silent.append(sock)  # and never reads again, never answers a close
    device = json.loads(yoke_cmd(host_env, project, "remote-control", "devices", "--json").stdout)[0]["id"]
    started = time.monotonic()
    assert yoke_cmd(host_env, project, "remote-control", "revoke", device).returncode == 0
    for sock in silent:
        sock.settimeout(30)
        try:
            while sock.recv(65536):
                pass
        except ConnectionError:
            pass
    assert time.monotonic() - started < 5, time.monotonic() - started
    assert _http(page, "GET", "/", headers={"Cookie": cookie})[0].status == 401


def test_a_share_viewer_hears_only_its_session_and_revoke_all_ends_share_links(
    host_env, project, remote_page
):  # noqa: F811
    write = {"type": "tool_use", "id": "toolu_w", "name": "Write",
             "input": {"file_path": str(project / "n.txt"), "content": "x"}}  # fmt: skip
    turns = [{"content": [write]}, {"content": [{"type": "text", "text": "other"}]}]
    with ScriptedServer(turns) as srv:
        env = dict(host_env, **anthropic_env(srv))
        shared = _start(env, project, "alpha shared")
        page = remote_page(env, project, "alpha", "--share")  # a part of the name: bound to the id now
        other = _start(env, project, "alpha secret other")  # matches "alpha" too, later
        response, data = _http(page, "GET", urllib.parse.urlsplit(page.share).path)
        assert response.status == 200 and f"/s/{shared}".encode() in data
        view = response.getheader("Set-Cookie").split(";")[0]
        key = data.decode().split("#k=")[1].split('"')[0]
        heard = []
        with _ws(_ws_port(page, _pair(page)), view, key) as ws:
            assert _call(ws, "a", "attach", {"session": shared, "since": 0})["type"] == "response"
            refused = _call(ws, "b", "attach", {"session": other, "since": 0})
            assert refused["type"] == "error" and refused["payload"]["code"] == "forbidden"
            Raw(socket_of(env)).call("prompt", {"session": other, "text": "queued secret for other"})
            end = time.monotonic() + 4
            while time.monotonic() < end:
                try:
                    heard.append(ws.recv(timeout=0.5))
                except TimeoutError:
                    continue
        text = "\n".join(heard)
        assert other not in text and "queued secret" not in text, text[:500]
        # revoke --all: the share links made before it are dead
        second = remote_page(env, project, shared, "--share")
        assert yoke_cmd(env, project, "remote-control", "revoke", "--all").returncode == 0
        time.sleep(0.3)
        assert _http(second, "GET", urllib.parse.urlsplit(second.share).path)[0].status == 401


def test_lockout_is_per_client_and_a_cross_site_get_cannot_trigger_it(host_env, project, remote_page):  # noqa: F811
    page = remote_page(host_env, project)
    for _ in range(20):  # what an <img src=".../share/x"> on any web page makes a browser send
        headers = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"}
        assert _http(page, "GET", "/share/wrong", headers=headers)[0].status == 401
    assert _pair(page)  # the right code still pairs


def test_device_labels_print_no_escape_sequences(host_env, project, remote_page):  # noqa: F811
    """A User-Agent with C0 controls is not even a valid header: aiohttp refuses it (400) before pairing. One
    with 8-bit controls (C1, e.g. CSI) pairs, and its label prints without them."""
    page = remote_page(host_env, project)
    body = urllib.parse.urlencode({"code": page.code})
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "User-Agent": "\x1b]0;owned\x07\x1b[2JEvil/1.0",
    }
    assert _http(page, "POST", "/pair", body, headers)[0].status == 400
    _pair(page, agent="\x9b2J\x9d0;owned\x9cEvil/1.0")
    run = yoke_cmd(host_env, project, "remote-control", "devices")
    assert run.returncode == 0 and "Evil" in run.stdout, repr(run.stdout)
    assert not any(ch in run.stdout for ch in "\x1b\x07\x9b\x9c\x9d"), repr(run.stdout)


def test_a_cookie_expires(host_env, project, remote_page):  # noqa: F811
    env = dict(host_env, YOKE_REMOTE_COOKIE_SECONDS="2")
    page = remote_page(env, project)  # the host starts here, with this lifetime
    cookie = _pair(page)
    assert _http(page, "GET", "/", headers={"Cookie": cookie})[0].status == 200
    time.sleep(3)
    assert _http(page, "GET", "/", headers={"Cookie": cookie})[0].status == 401


@pytest.mark.parametrize(
    ("scope", "response", "allowed"),
    [
        ("watch", {"behavior": "allow"}, False),
        ("approve", {"behavior": "allow"}, True),
        ("approve", {"behavior": "deny", "message": "no"}, True),
        ("approve", {"behavior": "allow", "updatedInput": {"command": "rm -rf ~"}}, False),
        ("approve", {"behavior": "allow", "updatedPermissions": [{"type": "addRules"}]}, False),
        ("drive", {"behavior": "allow", "updatedInput": {"command": "ls"}}, True),
    ],
)
def test_answers_by_scope(scope, response, allowed):
    request = json.dumps({"id": "1", "type": "request",
                          "payload": {"method": "answer", "params": {"session": "s", "response": response}}})  # fmt: skip
    _, refusal = screen(request, {"scope": scope})
    assert (refusal == "") is allowed


def test_a_cookie_in_use_is_refreshed_and_an_idle_one_expires(tmp_path, monkeypatch):
    """Devices.find moves a used cookie's expiry on (at most once per REFRESH_AFTER); an unused one lapses."""
    from yoke.host import pairing

    monkeypatch.setenv("YOKE_HOST_DIR", str(tmp_path / "rt"))
    monkeypatch.setattr(pairing, "COOKIE_LIFETIME", 100.0)
    monkeypatch.setattr(pairing, "REFRESH_AFTER", 10.0)
    clock = [1000.0]
    monkeypatch.setattr(pairing.time, "time", lambda: clock[0])
    devices = pairing.Devices()
    used, _ = devices.add("used", port=5)
    idle, _ = devices.add("idle", port=5)
    for _ in range(5):  # used every 50 s for 250 s: past its first lifetime, still honoured
        clock[0] += 50
        assert devices.find(used, 5) is not None
    assert devices.find(idle, 5) is None  # 250 s unused: gone
    assert devices.find(used, 6) is None  # another port's page: never

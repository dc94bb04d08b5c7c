"""`yoke remote-control`'s locks, with a plain HTTP client: the cookie, the Origin, the one-time code."""

from __future__ import annotations

import http.client
import urllib.parse

import pytest
from tests.host.remote_fixtures import remote_page  # noqa: F401 - a fixture

from yoke.host.webpage import COOKIE, MAX_FAILURES

ROUTES = ["/", "/s/anything", "/static/app.js", "/static/list.js", "/static/style.css.map", "/nope"]


def _http(page, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection(*page.address, timeout=30)
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response, data


def _pair(page, code, origin=None):
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if origin:
        headers["Origin"] = origin
    return _http(page, "POST", "/pair", urllib.parse.urlencode({"code": code}), headers)


def _ws_port(page, cookie) -> int:
    response, data = _http(page, "GET", "/s/x", headers={"Cookie": cookie})
    assert response.status == 200
    return int(data.decode().split('data-ws-port="')[1].split('"')[0])


def _ws_status(port, headers, key: str = "") -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    upgrade = {
        "Connection": "Upgrade",
        "Upgrade": "websocket",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version": "13",
    }
    conn.request("GET", f"/?k={key}", headers={**upgrade, **headers})
    status = conn.getresponse().status
    conn.close()
    return status


def test_every_route_and_the_websocket_need_the_cookie(host_env, project, remote_page):  # noqa: F811
    page = remote_page(host_env, project)
    for path in ROUTES:
        response, data = _http(page, "GET", path)
        assert response.status == 401, path
        assert b"Pairing code" in data
    # the stylesheet alone is served before pairing (it holds no data), so the pairing page is styled
    response, data = _http(page, "GET", "/static/style.css")
    assert response.status == 200 and response.getheader("Content-Type").startswith("text/css")
    assert b"prefers-color-scheme" in data and _http(page, "POST", "/static/style.css")[0].status == 401
    response, _ = _pair(page, page.code)
    assert response.status == 303
    set_cookie = response.getheader("Set-Cookie")
    assert "HttpOnly" in set_cookie and "SameSite=Strict" in set_cookie and "Path=/" in set_cookie
    cookie = set_cookie.split(";")[0]  # name=value: the name is the port's
    key = response.getheader("Location").split("#k=")[1]  # the page key, in the fragment
    assert _http(page, "GET", "/", headers={"Cookie": cookie})[0].status == 200
    assert _http(page, "GET", "/static/app.js", headers={"Cookie": cookie})[0].status == 200
    port = _ws_port(page, cookie)
    assert _ws_status(port, {}) == 401
    assert _ws_status(port, {"Cookie": f"{COOKIE}_{page.address[1]}=forged"}) == 401
    assert _ws_status(port, {"Cookie": cookie, "Origin": page.origin}) == 401  # the cookie alone: no
    assert _ws_status(port, {"Cookie": cookie, "Origin": page.origin}, "wrong") == 401
    assert _ws_status(port, {"Cookie": cookie, "Origin": page.origin}, key) == 101
    # the code was one-time: a second device cannot reuse it
    assert _pair(page, page.code)[0].status == 401


def test_a_wrong_code_is_rate_limited(host_env, project, remote_page):  # noqa: F811
    page = remote_page(host_env, project)
    for _ in range(MAX_FAILURES):
        assert _pair(page, "WRONG000")[0].status == 401
    limited, _ = _pair(page, page.code)  # even the right code waits out the window
    assert limited.status == 429 and limited.getheader("Retry-After")


@pytest.mark.parametrize("origin", ["http://evil.example", "http://127.0.0.1:1"])
def test_another_origin_is_refused(host_env, project, remote_page, origin):  # noqa: F811
    page = remote_page(host_env, project)
    assert _pair(page, page.code, origin=origin)[0].status == 403
    response, _ = _pair(page, page.code, origin=page.origin)
    cookie = response.getheader("Set-Cookie").split(";")[0]  # name=value: the name is the port's
    assert _http(page, "GET", "/", headers={"Cookie": cookie, "Origin": origin})[0].status == 403
    port = _ws_port(page, cookie)
    assert _ws_status(port, {"Cookie": cookie, "Origin": origin}) == 403


def test_bad_arguments_get_one_line(host_env, project):
    from tests.host.conftest import yoke_cmd

    run = yoke_cmd(host_env, project, "remote-control", "--port", "x")
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "Traceback" not in run.stderr


def test_beyond_loopback_it_is_https_with_the_fingerprint_shown(host_env, project, remote_page):  # noqa: F811
    import hashlib
    import ssl

    page = remote_page(host_env, project, "--host", "0.0.0.0")
    assert page.url.startswith("https://") and page.fingerprint
    pem = ssl.get_server_certificate(("127.0.0.1", page.address[1]))
    digest = hashlib.sha256(ssl.PEM_cert_to_DER_cert(pem)).hexdigest().upper()
    assert page.fingerprint.replace(":", "") == digest
    unverified = ssl._create_unverified_context()
    conn = http.client.HTTPSConnection("127.0.0.1", page.address[1], timeout=30, context=unverified)
    conn.request("GET", "/")
    assert conn.getresponse().status == 401
    conn.close()
    conn = http.client.HTTPSConnection("127.0.0.1", page.address[1], timeout=30, context=unverified)
    body = urllib.parse.urlencode({"code": page.code})
    conn.request("POST", "/pair", body=body, headers={"Content-Type": "application/x-www-form-urlencoded"})
    response = conn.getresponse()
    assert response.status == 303 and "; Secure" in response.getheader("Set-Cookie")
    conn.close()
    # plain HTTP to the HTTPS port gets nothing useful
    plain = http.client.HTTPConnection("127.0.0.1", page.address[1], timeout=30)
    try:
        plain.request("GET", "/")
        assert plain.getresponse().status != 200
    except (ConnectionError, http.client.HTTPException):
        pass


def test_the_share_link_watches_one_session_and_cannot_prompt_or_answer(host_env, project, remote_page):  # noqa: F811
    import json

    from tests.conftest import anthropic_env
    from tests.host.conftest import yoke_cmd
    from websockets.sync.client import connect

    from yoke.testing import ScriptedServer

    write = {"type": "tool_use", "id": "toolu_w", "name": "Write",
             "input": {"file_path": str(project / "n.txt"), "content": "x"}}  # fmt: skip
    with ScriptedServer([{"content": [write]}, {"content": [{"type": "text", "text": "done"}]}]) as srv:
        env = dict(host_env, **anthropic_env(srv))
        run = yoke_cmd(env, project, "--bg", "shared work")
        ident = run.stdout.split("· ")[1].split()[0]
        page = remote_page(env, project, ident, "--share")
        path = urllib.parse.urlsplit(page.share).path
        response, data = _http(page, "GET", path)
        assert response.status == 200 and b"Open the shared session" in data
        cookie = response.getheader("Set-Cookie").split(";")[0]  # name=value: the name is the port's
        assert _http(page, "GET", path)[0].status == 401  # the link works once
        key = data.decode().split("#k=")[1].split('"')[0]  # the page key, in the link's fragment
        view = {"Cookie": cookie}
        shown, body = _http(page, "GET", f"/s/{ident}", headers=view)
        assert shown.status == 200 and b"Send" not in body and b'id="prompt"' not in body
        assert _http(page, "GET", "/", headers=view)[0].status == 403  # not the list
        assert _http(page, "GET", "/s/other", headers=view)[0].status == 403  # nor another session
        assert _http(page, "POST", "/pair", "code=x", headers=view)[0].status in (401, 429)
        port = int(body.decode().split('data-ws-port="')[1].split('"')[0])
        with connect(
            f"ws://127.0.0.1:{port}/?k={key}", additional_headers={**view, "Origin": page.origin}
        ) as ws:

            def call(ident_, method, params):
                ws.send(
                    json.dumps(
                        {"id": ident_, "type": "request", "payload": {"method": method, "params": params}}
                    )
                )
                while True:
                    message = json.loads(ws.recv(timeout=30))
                    if message.get("id") == ident_ and message["type"] in ("response", "error"):
                        return message

            attached = call("a", "attach", {"session": ident, "since": 0, "role": "driver"})
            assert attached["type"] == "response" and attached["payload"]["driver"] is False  # made a watcher
            while not attached["payload"]["pending"]:
                message = json.loads(ws.recv(timeout=30))
                if (message.get("payload") or {}).get("message", {}).get("type") == "control_request":
                    attached["payload"]["pending"] = [message["payload"]["message"]]
            request_id = attached["payload"]["pending"][0]["request_id"]
            for method, params in (
                ("prompt", {"session": ident, "text": "hijack"}),
                ("answer", {"session": ident, "request_id": request_id, "response": {"behavior": "allow"}}),
                ("interrupt", {"session": ident}),
                (
                    "op",
                    {
                        "session": ident,
                        "op": {"op": "reply", "request_id": request_id, "answer": {"behavior": "allow"}},
                    },
                ),  # fmt: skip
                ("op", {"session": ident, "op": {"op": "prompt", "content": "hijack"}}),
                ("list", {}),
            ):
                refused = call(method, method, params)
                assert refused["type"] == "error" and refused["payload"]["code"] == "forbidden", method
        assert not (project / "n.txt").exists()


def test_the_terminal_shows_the_next_code_after_each_pairing(host_env, project):
    import re
    import signal
    import subprocess
    import sys
    from types import SimpleNamespace

    proc = subprocess.Popen([sys.executable, "-m", "yoke", "remote-control"], env=host_env, cwd=project,
                            stdout=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)  # fmt: skip
    try:
        url = proc.stdout.readline().split(": ", 1)[1].strip()
        code = re.search(r"Pairing code: (\w+)", proc.stdout.readline()).group(1)
        parts = urllib.parse.urlsplit(url)
        page = SimpleNamespace(address=(parts.hostname, parts.port))
        assert _pair(page, code)[0].status == 303
        line = proc.stdout.readline()
        while "Next pairing code" not in line:
            line = proc.stdout.readline()
        following = line.rsplit(": ", 1)[1].strip()
        assert following != code and _pair(page, following)[0].status == 303
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(10)


def test_a_paired_page_cannot_ask_the_host_for_more_pages(host_env, project, remote_page):  # noqa: F811
    import json

    from websockets.sync.client import connect

    page = remote_page(host_env, project)
    response, _ = _pair(page, page.code)
    cookie = response.getheader("Set-Cookie").split(";")[0]  # name=value: the name is the port's
    key = response.getheader("Location").split("#k=")[1]
    port = _ws_port(page, cookie)
    headers = {"Cookie": cookie, "Origin": page.origin}
    with connect(f"ws://127.0.0.1:{port}/?k={key}", additional_headers=headers) as ws:
        for ident, method in (("r", "remote_control"), ("l", "list")):
            ws.send(json.dumps({"id": ident, "type": "request",
                                "payload": {"method": method, "params": {"bind": "0.0.0.0"}}}))  # fmt: skip
            reply = json.loads(ws.recv(timeout=30))
            while reply.get("id") != ident:
                reply = json.loads(ws.recv(timeout=30))
            if method == "remote_control":  # a paired device is not given the LAN
                assert reply["type"] == "error" and reply["payload"]["code"] == "forbidden"
            else:  # while the host's other methods are the page's
                assert reply["type"] == "response" and "sessions" in reply["payload"]

# ruff: noqa: F811 - pytest fixtures imported by name
"""docs/remote.md "Behind a tunnel or a reverse proxy", its recipes run: `ssh -R` as what it is to the page (a
byte-for-byte forwarder on another port), and the nginx configuration with nginx itself (skipped with the
reason when nginx is not installed). The browser's Host and Origin name the tunnel or proxy: refused (421)
without `--public-url`, paired and socketed with it."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import threading
import urllib.parse
from pathlib import Path

import pytest
from tests.host.conftest import wait_for
from tests.host.remote_fixtures import remote_page  # noqa: F401 - a fixture
from tests.host.test_remote_security import _http
from websockets.sync.client import connect


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _forward(listen: socket.socket, target: dict[str, int]) -> None:
    """What `ssh -R PORT:127.0.0.1:TARGET` is to the page: bytes in, bytes out, headers untouched."""

    def pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    while True:
        try:
            inbound, _ = listen.accept()
        except OSError:
            return
        outbound = socket.create_connection(("127.0.0.1", target["port"]))  # the page served now
        threading.Thread(target=pipe, args=(inbound, outbound), daemon=True).start()
        threading.Thread(target=pipe, args=(outbound, inbound), daemon=True).start()


class _Via:
    """A page as a browser behind the tunnel or proxy reaches it: its address, Host and Origin."""

    def __init__(self, port: int, public: str, code: str = ""):
        self.address, self.public, self.code = ("127.0.0.1", port), public, code
        self.netloc = urllib.parse.urlsplit(public).netloc

    def pair(self) -> tuple[int, str, str]:
        headers = {"Host": self.netloc, "Origin": self.public.rstrip("/"),
                   "Content-Type": "application/x-www-form-urlencoded"}  # fmt: skip
        response, _ = _http(self, "POST", "/pair", urllib.parse.urlencode({"code": self.code}), headers)
        if response.status != 303:
            return response.status, "", ""
        return (
            303,
            response.getheader("Set-Cookie").split(";")[0],
            response.getheader("Location").split("#k=")[1],
        )

    def hello(self, cookie: str, key: str) -> dict:
        upstream = socket.create_connection(self.address)
        with connect(f"ws://{self.netloc}/?k={key}", sock=upstream, origin=self.public.rstrip("/"),
                     additional_headers={"Cookie": cookie}) as ws:  # fmt: skip
            ws.send(json.dumps({"id": "h", "type": "request", "payload": {"method": "hello", "params": {}}}))
            return json.loads(ws.recv(timeout=30))


def _check(remote_page, env, project, front: int, start_front) -> None:
    """Without --public-url the front's name is refused; with it, pairing and the WebSocket work through it."""
    public = f"http://localhost:{front}/"
    plain = remote_page(env, project)
    start_front(plain.address[1])
    assert _Via(front, public, plain.code).pair()[0] == 421
    plain.stop()
    port = _free_port()
    page = remote_page(env, project, "--port", str(port), "--public-url", public)
    assert page.url == public and page.pair_url.startswith(public)
    start_front(port)
    status, cookie, key = _Via(front, public, page.code).pair()
    assert status == 303
    assert _Via(front, public).hello(cookie, key)["type"] == "response"


def test_the_ssh_tunnel_recipe(host_env, project, remote_page):
    listen = socket.socket()
    listen.bind(("127.0.0.1", 0))
    listen.listen()
    front = listen.getsockname()[1]
    target = {"port": 0}
    listen_thread = threading.Thread(target=_forward, args=(listen, target), daemon=True)

    def start_front(port: int) -> None:
        target["port"] = port
        if not listen_thread.is_alive():
            listen_thread.start()

    try:
        _check(remote_page, host_env, project, front, start_front)
    finally:
        listen.close()


NGINX_CONF = """
daemon off; master_process off; pid {tmp}/nginx.pid; error_log {tmp}/error.log;
events {{}}
http {{
  access_log off; client_body_temp_path {tmp}/body; proxy_temp_path {tmp}/proxy;
  fastcgi_temp_path {tmp}/f; uwsgi_temp_path {tmp}/u; scgi_temp_path {tmp}/s;
  server {{
    listen 127.0.0.1:{front};
    location / {{
      proxy_pass http://127.0.0.1:{upstream};
      proxy_set_header Host $http_host;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection "upgrade";
      proxy_read_timeout 1h;
    }}
  }}
}}
"""


def test_the_nginx_recipe(host_env, project, remote_page, tmp_path: Path):
    nginx = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")
    if nginx is None:
        pytest.skip("nginx is not installed (apt-get install nginx): the reverse-proxy recipe is not run")
    front, running = _free_port(), []

    def start_front(port: int) -> None:
        for proc in running:
            proc.terminate()
            proc.wait(10)
        (tmp_path / "nginx.conf").write_text(NGINX_CONF.format(tmp=tmp_path, front=front, upstream=port))
        proc = subprocess.Popen([nginx, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")],
                                stderr=subprocess.PIPE)  # fmt: skip
        running.append(proc)

        def up() -> bool:
            try:
                socket.create_connection(("127.0.0.1", front), timeout=1).close()
                return True
            except OSError:
                return False

        wait_for(up, timeout=20)

    try:
        _check(remote_page, host_env, project, front, start_front)
    finally:
        for proc in running:
            proc.terminate()
            proc.wait(10)

"""`yoke --remote-control [NAME]` (Claude Code's flag): the session runs in the host and the page is served
for it. From a pipe it prints the URL and code and serves until interrupted (here, Chromium pairs and
watches); in a terminal (tmux) the terminal UI drives the same session while the page is served."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import urllib.parse

from tests.conftest import anthropic_env
from tests.host.conftest import agents, wait_for
from tests.host.test_remote_browser import browser, pytestmark  # noqa: F401
from tests.ui.tmux import Pane, needs_tmux, trusted_home_env

from yoke.testing import ScriptedServer


def _pair(url: str, code: str) -> tuple[int, str]:
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    body = urllib.parse.urlencode({"code": code})
    conn.request("POST", "/pair", body, {"Content-Type": "application/x-www-form-urlencoded"})
    response = conn.getresponse()
    conn.close()
    cookie = (response.getheader("Set-Cookie") or "").split(";")[0]
    KEYS[cookie] = (response.getheader("Location") or "").partition("#k=")[2]  # the page's key
    return response.status, cookie


KEYS: dict[str, str] = {}


def _prompt_from_the_page(url: str, cookie: str, ident: str, text: str) -> dict:
    from websockets.sync.client import connect

    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    conn.request("GET", parts.path, headers={"Cookie": cookie})
    port = int(conn.getresponse().read().decode().split('data-ws-port="')[1].split('"')[0])
    conn.close()
    origin = f"http://{parts.netloc}"
    with connect(
        f"ws://{parts.hostname}:{port}/?k={KEYS.get(cookie, '')}",
        additional_headers={"Cookie": cookie, "Origin": origin},
    ) as ws:
        ws.send(json.dumps({"id": "a", "type": "request", "payload": {"method": "attach",
                            "params": {"session": ident, "role": "driver"}}}))  # fmt: skip
        ws.send(json.dumps({"id": "p", "type": "request", "payload": {"method": "prompt",
                            "params": {"session": ident, "text": text}}}))  # fmt: skip
        while True:
            reply = json.loads(ws.recv(timeout=30))
            if reply.get("id") == "p" and reply["type"] in ("response", "error"):
                return reply


def test_the_flag_runs_the_session_in_the_host_and_serves_its_page(host_env, project, browser):  # noqa: F811
    with ScriptedServer([{"content": [{"type": "text", "text": "hello from a flagged session"}]}]) as srv:
        env = dict(host_env, **anthropic_env(srv))
        proc = subprocess.Popen([sys.executable, "-m", "yoke", "--remote-control", "fixer", "say hello"],
                                env=env, cwd=project, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)  # fmt: skip
        try:
            first = proc.stdout.readline()
            ident = re.search(r"Session (\w+) runs in the host", first).group(1)
            url = proc.stdout.readline().split(": ", 1)[1].strip()
            code = re.search(r"Pairing code: (\w+)", proc.stdout.readline()).group(1)
            assert url.endswith(f"/s/{ident}")
            row = agents(env, project)[0]
            assert row["id"] == ident and row["name"] == "fixer"
            page = browser.new_context().new_page()
            page.set_default_timeout(30_000)
            page.goto(url)
            page.get_by_label("Pairing code").fill(code)
            page.get_by_role("button", name="Pair").click()
            page.get_by_text("hello from a flagged session").wait_for()  # back on the session's page
            assert page.url == url
        finally:
            os.kill(proc.pid, signal.SIGINT)
            assert proc.wait(20) == 0, proc.stderr.read()
        assert "not acted on" not in proc.stderr.read()
        parts = urllib.parse.urlsplit(url)
        wait_for(
            lambda: _refused(parts.hostname, parts.port), timeout=20
        )  # the host stopped serving the page
        assert agents(env, project)[0]["state"] == "idle"  # and the session runs on


@needs_tmux
def test_in_a_terminal_the_ui_drives_the_session_while_the_page_is_served(host_env, project):
    turns = [{"content": [{"type": "text", "text": "typed answer"}]},
             {"content": [{"type": "text", "text": "answer to the phone"}]}]  # fmt: skip
    with ScriptedServer(turns) as srv:
        env = trusted_home_env(dict(host_env, **anthropic_env(srv)), project)
        pane = Pane(["--remote-control", "tui"], env, project, width=120, height=60)
        try:
            screen = pane.wait_for("Pairing code: ")
            url = re.search(r"Remote control: (\S+)", screen).group(1)
            code = re.search(r"Pairing code: (\w+)", screen).group(1)
            status, cookie = _pair(url, code)
            assert status == 303
            pane.wait_for("Next pairing code")  # told in the UI, for the next device
            pane.wait_for("shift+tab to cycle")
            pane.type("hello there")
            pane.keys("Enter")
            pane.wait_for("typed answer")
            row = agents(env, project)[0]
            assert row["name"] == "tui"
            # the UI drives, and the page served for it may prompt too (a plain --bg page could not)
            reply = _prompt_from_the_page(url, cookie, row["id"], "from my phone")
            assert reply["type"] == "response", reply
            wait_for(lambda: len(srv.requests) == 2, timeout=30)  # the session ran it
            assert "from my phone" in json.dumps(srv.requests[-1].body["messages"])
            pane.keys("C-d")
            pane.wait_exit()
        finally:
            pane.close()
        parts = urllib.parse.urlsplit(url)
        wait_for(lambda: _refused(parts.hostname, parts.port), timeout=20)  # leaving the UI stops the page
        assert agents(env, project)[0]["state"] == "idle"  # and the session runs on


def _refused(host, port) -> bool:
    try:
        conn = http.client.HTTPConnection(host, port, timeout=5)
        conn.request("GET", "/")
        conn.getresponse()
        conn.close()
    except OSError:
        return True
    return False

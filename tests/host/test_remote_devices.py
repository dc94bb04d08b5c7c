"""Paired devices in a real browser (Debian's Chromium): pairing by the QR code's URL (the code in the
fragment, gone from the address bar, used up), listing the devices, and revoking one: its next request is 401
and its open WebSocket closes within a second."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time

from tests.conftest import anthropic_env
from tests.host.conftest import runtime_of, yoke_cmd
from tests.host.remote_fixtures import remote_page  # noqa: F401 - a fixture
from tests.host.test_remote_browser import _paired, _start, browser, pytestmark  # noqa: F401

from yoke.testing import ScriptedServer


def _devices(env, project) -> list[dict]:
    run = yoke_cmd(env, project, "remote-control", "devices", "--json")
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_scanning_the_qr_url_pairs_and_leaves_no_code_in_the_url(host_env, project, browser, remote_page):  # noqa: F811
    with ScriptedServer([{"content": [{"type": "text", "text": "scanned in"}]}]) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "qr")
        server = remote_page(env, project, ident)
        pair_url = server.pair_url
        assert pair_url == f"{server.url}#pair={server.code}"
        page = browser.new_context().new_page()
        page.set_default_timeout(30_000)
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        page.goto(pair_url)
        page.get_by_text("scanned in").wait_for()  # paired, and on the session the URL named
        assert page.url == server.url  # the address bar holds no code
        assert server.code not in page.evaluate("location.href + history.length")
        assert not [url for url in requested if server.code in url]  # nor did any request carry it
        # the code is used up: a second browser opening the same URL is not paired
        other = browser.new_context().new_page()
        other.goto(pair_url)
        other.get_by_role("alert").wait_for()
        assert other.get_by_label("Pairing code").count() == 1
        assert "pair=" not in other.url


def test_revoking_a_device_locks_it_out_and_closes_its_socket(host_env, project, browser, remote_page):  # noqa: F811
    with ScriptedServer([{"content": [{"type": "text", "text": "still here"}]}]) as srv:
        env = dict(host_env, **anthropic_env(srv))
        ident = _start(env, project, "kept")
        server = remote_page(env, project)
        page = _paired(browser, server)
        page.goto(server.url + f"s/{ident}")
        page.get_by_text("still here").wait_for()
        page.wait_for_function("window.yokeAttached")
        rows = _devices(env, project)
        path = runtime_of(env) / "remote-devices.json"
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert "yoke_rc" not in path.read_text() and all("hash" not in row for row in rows)
        assert len(rows) == 1, rows
        assert rows[0]["label"].startswith("Chrome") and "Linux" in rows[0]["label"]
        assert abs(rows[0]["paired"] - time.time()) < 600
        listed = yoke_cmd(env, project, "remote-control", "devices")
        assert rows[0]["id"] in listed.stdout and rows[0]["label"] in listed.stdout
        # the page reloads when its socket closes: keep what the close said across the navigation
        page.evaluate("window.yokeSocket().addEventListener('close', e => sessionStorage.setItem("
                      "'closed', JSON.stringify([e.code, Date.now()])))")  # fmt: skip
        run = yoke_cmd(env, project, "remote-control", "revoke", rows[0]["id"])
        revoked_at = time.time() * 1000
        assert run.returncode == 0 and f"revoked {rows[0]['id']}" in run.stdout, run.stderr
        page.get_by_label("Pairing code").wait_for()  # the page went back to pairing
        code, closed_at = json.loads(page.evaluate("sessionStorage.getItem('closed')"))
        assert code == 4401
        assert closed_at - revoked_at < 1000  # within a second of the command's end
        status = page.evaluate("fetch('/').then(r => r.status)")
        assert status == 401
        assert _devices(env, project) == []
        bad = yoke_cmd(env, project, "remote-control", "revoke", "nosuch")
        assert bad.returncode == 1 and len(bad.stderr.strip().splitlines()) == 1 and "nosuch" in bad.stderr


def test_revoke_all(host_env, project, browser, remote_page):  # noqa: F811
    server = remote_page(host_env, project)
    first = _paired(browser, server)
    first.get_by_role("heading", name="Sessions").wait_for()
    assert os.path.exists(runtime_of(host_env) / "remote-devices.json")
    run = yoke_cmd(host_env, project, "remote-control", "revoke", "--all")
    assert run.returncode == 0 and run.stdout.startswith("revoked "), run.stderr
    from playwright.sync_api import Error as PlaywrightError

    with contextlib.suppress(PlaywrightError):  # the page may already be going back to pairing (socket 4401)
        first.reload()
    first.get_by_label("Pairing code").wait_for()
    assert first.evaluate("fetch('/').then(r => r.status)") == 401
    assert _devices(host_env, project) == []

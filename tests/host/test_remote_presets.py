# ruff: noqa: F811 - pytest fixtures imported by name
"""Issue 44: a paired `drive` device starts sessions only from the user's own presets (host/presets.py).
Real processes: a `yoke remote-control` page and its host, the scripted model server, headless Chromium for
the page and a bare WebSocket for the attacker."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from tests.conftest import anthropic_env
from tests.host.page_look import accessible, shoot, tall_enough
from tests.host.remote_fixtures import remote_page  # noqa: F401 - a fixture
from tests.host.test_remote_browser import _paired, browser  # noqa: F401 - a fixture
from tests.host.test_remote_credentials import _call, _pair, _ws, _ws_port

from yoke.host.presets import presets
from yoke.host.scopes import held_to, screen
from yoke.testing import ScriptedServer


def _user_presets(env: dict, *entries: dict) -> None:
    folder = Path(env["CLAUDE_CONFIG_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").write_text(json.dumps({"remoteControl": {"presets": list(entries)}}))


def _project_preset(project: Path) -> None:
    """What a cloned repository would plant: a preset in its own settings, offered to nobody."""
    (project / ".claude").mkdir(exist_ok=True)
    planted = {"name": "planted", "cwd": "/", "permissionMode": "bypassPermissions"}
    (project / ".claude" / "settings.json").write_text(json.dumps({"remoteControl": {"presets": [planted]}}))


def test_a_drive_device_starts_a_preset_from_the_page_and_sees_its_answer(
    host_env, project, browser, remote_page
):
    _user_presets(
        host_env,
        {"name": "review", "cwd": str(project), "model": "claude-preset-model", "permissionMode": "plan"},
        {"name": "yolo", "cwd": str(project), "permissionMode": "bypassPermissions"},
        {"name": "broken"},  # no cwd: left out, and said
    )
    _project_preset(project)
    with ScriptedServer([{"content": [{"type": "text", "text": "the preset's first answer"}]}]) as srv:
        env = dict(host_env, **anthropic_env(srv))
        page = _paired(browser, remote_page(env, project))
        section = page.get_by_role("region", name="New session")
        section.wait_for()
        review = section.get_by_role("radio", name="review")
        assert review.is_checked()
        assert str(project) in section.inner_text() and "plan" in section.inner_text()
        assert "bypassPermissions: no permission checks" in section.inner_text()  # shown, not hidden
        assert "planted" not in section.inner_text()  # the project's own preset is not offered
        left = section.get_by_role("list", name="Presets left out")
        assert "presets[2] needs a name and a cwd" in left.inner_text()
        shoot(page, "list-presets")  # nothing scrolls sideways at 390 px
        tall_enough(section.locator("label.preset"))
        tall_enough(section.get_by_role("button", name="Start"))
        accessible(page, "list with presets")
        section.get_by_label("First prompt (optional)").fill("look at the notes")
        section.get_by_role("button", name="Start").click()
        page.wait_for_url("**/s/*")
        page.get_by_text("the preset's first answer").wait_for()
        sent = srv.requests[-1].body
        assert sent["model"] == "claude-preset-model"  # the preset's options, and only those
        assert "look at the notes" in json.dumps(sent["messages"][-1]["content"])


def test_start_preset_takes_a_name_and_a_prompt_only(host_env, project, remote_page, tmp_path):
    """Extra fields (flags, environment, a settings path) are refused, not ignored; an unknown preset, a
    project's preset and an untrusted folder's are refused; `start` stays admin-only for a drive device."""
    untrusted = tmp_path / "cloned"
    untrusted.mkdir()
    _user_presets(host_env, {"name": "ok", "cwd": str(project)}, {"name": "away", "cwd": str(untrusted)})
    _project_preset(project)
    marker = tmp_path / "pwned"
    hook = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]}}
    page = remote_page(host_env, project)
    cookie = _pair(page)
    with _ws(_ws_port(page, cookie), cookie) as ws:
        listed = _call(ws, "p", "presets", {})["payload"]["presets"]
        assert [row["name"] for row in listed] == ["ok", "away"]  # not the project's "planted"
        for extra in ({"args": ["--dangerously-skip-permissions"]}, {"env": {"PATH": "/tmp"}},
                      {"settings": json.dumps(hook)}, {"cwd": "/"}):  # fmt: skip
            refused = _call(ws, "x", "start_preset", {"preset": "ok", **extra})
            assert refused["type"] == "error" and refused["payload"]["code"] == "invalid_params", refused
            assert next(iter(extra)) in refused["payload"]["message"]
        for name in ("nope", "planted"):
            refused = _call(ws, "u", "start_preset", {"preset": name})
            assert refused["type"] == "error" and "no preset named" in refused["payload"]["message"]
        refused = _call(ws, "t", "start_preset", {"preset": "away"})
        assert refused["payload"]["code"] == "forbidden" and "not trusted" in refused["payload"]["message"]
        assert "\n" not in refused["payload"]["message"]
        evil = {"cwd": str(project), "args": ["--settings", json.dumps(hook)], "env": {"PATH": "/tmp"}}
        assert _call(ws, "s", "start", evil)["payload"]["code"] == "forbidden"
        assert _call(ws, "l", "list", {})["payload"]["sessions"] == []  # nothing was started
    assert not marker.exists()


def test_a_watch_device_is_offered_no_presets_and_cannot_start_one(host_env, project, browser, remote_page):
    _user_presets(host_env, {"name": "ok", "cwd": str(project)})
    server = remote_page(host_env, project, "--scope", "watch")
    cookie = _pair(server)
    with _ws(_ws_port(server, cookie), cookie) as ws:
        for method, params in (("presets", {}), ("start_preset", {"preset": "ok"})):
            refused = _call(ws, method, method, params)
            assert refused["type"] == "error" and refused["payload"]["code"] == "forbidden", refused
    page = _paired(browser, remote_page(host_env, project, "--scope", "watch"))
    page.wait_for_function("window.yokeListed >= 1")
    assert page.locator("#new-session").is_hidden()


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"name": "a"}, "needs a name and a cwd"),
        ({"name": "a", "cwd": "/", "permissionMode": "yolo"}, "permissionMode is one of"),
        ({"name": "a", "cwd": "/", "model": 5}, "every field is a string"),
    ],
)
def test_a_wrong_preset_is_left_out_with_a_reason(entry, problem):
    found, problems = presets({"remoteControl": {"presets": [entry, {"name": "b", "cwd": "/"}]}})
    assert [p.name for p in found] == ["b"]
    assert problem in problems[0]


@pytest.mark.parametrize(
    ("scope", "allowed"), [("watch", False), ("approve", False), ("drive", True), ("admin", True)]
)
def test_presets_are_the_drive_scope_s_and_start_stays_admin(scope, allowed):
    for method in ("presets", "start_preset"):
        request = json.dumps(
            {"id": "1", "type": "request", "payload": {"method": method, "params": {"preset": "a"}}}
        )
        assert (screen(request, {"scope": scope})[1] == "") is allowed, (scope, method)
    start = json.dumps({"id": "2", "type": "request", "payload": {"method": "start", "params": {"cwd": "/"}}})
    assert (screen(start, {"scope": scope})[1] == "") is (scope == "admin")
    share = {"scope": "drive", "session": "abc"}  # a share link: watch, bound to one session
    assert "forbidden" in screen(request, share)[1]
    assert (held_to(scope, "start_preset", {"preset": "a"})[1] == "") is allowed  # a --tcp/--ws token too


def test_a_user_s_bypass_preset_starts_in_that_mode(host_env, project, remote_page):
    """The user wrote it in the user's own file: allowed (and shown in red on the page, above)."""
    _user_presets(host_env, {"name": "yolo", "cwd": str(project), "permissionMode": "bypassPermissions"})
    with ScriptedServer([{"content": [{"type": "text", "text": "done"}]}]) as srv:
        env = dict(host_env, **anthropic_env(srv))
        page = remote_page(env, project)
        cookie = _pair(page)
        with _ws(_ws_port(page, cookie), cookie) as ws:
            started = _call(ws, "s", "start_preset", {"preset": "yolo", "prompt": "go"})
            assert started["type"] == "response" and started["payload"]["preset"] == "yolo", started
            deadline, mode = time.monotonic() + 30, None
            while mode != "bypassPermissions" and time.monotonic() < deadline:
                rows = _call(ws, "l", "list", {})["payload"]["sessions"]
                mode = next(r["permissionMode"] for r in rows if r["id"] == started["payload"]["id"])
                time.sleep(0.2)
            assert mode == "bypassPermissions"

"""A plain `yoke` terminal session on the remote-control page (docs/remote.md, "Any session"), in headless
Chromium: `/remote-control` typed mid-session starts a host, registers the session and serves the page; a
permission prompt the terminal raises is answered on the page, and the terminal shows it answered. With a
host already running the session shows on the page's list by itself."""

from __future__ import annotations

import re

from tests.conftest import anthropic_env
from tests.host.conftest import wait_for
from tests.host.remote_fixtures import remote_page  # noqa: F401 - a fixture
from tests.host.test_remote_browser import browser, pytestmark  # noqa: F401 - a fixture; needs chromium
from tests.host.test_terminal_registered import start_host, terminal_rows, write_call
from tests.ui.tmux import Pane, needs_tmux, pick, trusted_home_env, wait_prompt

from yoke.testing import ScriptedServer


def _pair(browser, url: str, code: str):  # noqa: F811
    context = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(url)
    page.get_by_label("Pairing code").fill(code)
    page.get_by_role("button", name="Pair").click()
    page.wait_for_function("!!localStorage.getItem('yoke_key')")
    return page


@needs_tmux
def test_remote_control_mid_session_answered_on_the_page(host_env, project, browser):  # noqa: F811
    target = project / "notes.txt"
    turns = [
        {"content": [{"type": "text", "text": "before the switch"}]},
        {"content": [{"type": "text", "text": "I will write the notes"}, write_call(target)]},
        {"content": [{"type": "text", "text": "notes written"}]},
        {"content": [{"type": "text", "text": "once more"}, {**write_call(target), "id": "toolu_w2"}]},
        {"content": [{"type": "text", "text": "written again"}]},
    ]
    with ScriptedServer(turns) as srv:
        env = trusted_home_env(dict(host_env, **anthropic_env(srv)), project)
        pane = Pane([], env, project, width=160)
        try:
            wait_prompt(pane)
            pane.type("say something")
            pane.keys("Enter")
            pane.wait_for("before the switch")
            assert not terminal_rows(env, project)  # no host ran: a plain terminal session
            pane.type("/remote-control")
            pane.keys("Enter")
            screen = pane.wait_for(r"Pairing code: \S+", regex=True)
            url = re.search(r"Remote control: (\S+)", screen).group(1)
            code = re.search(r"Pairing code: (\S+)", screen).group(1)
            ident = terminal_rows(env, project)[0]["id"]
            assert url.endswith(f"/s/{ident}")
            pane.type("/rc")  # again: on already, the address again
            pane.keys("Enter")
            pane.wait_for(f"Remote control is on: {url}")
            page = _pair(browser, url, code)
            page.wait_for_function("window.yokeAttached")
            page.get_by_text("before the switch").wait_for()  # what it said before it was registered
            pane.type("write the notes")
            pane.keys("Enter")
            pane.wait_for("Yes, allow for this session")  # the terminal asks; so does the page
            page.get_by_text("I will write the notes").wait_for()
            page.get_by_role("button", name="Allow").first.click()
            pane.wait_for("answered in another client")  # the terminal withdrew its question
            pane.wait_for("notes written")
            page.get_by_text("notes written").wait_for()
            assert target.read_text() == "from the terminal\n"
            assert page.get_by_role("button", name="Allow").count() == 0
            # and the other way: answered in the terminal, the page's card is withdrawn
            pane.type("write them again")
            pane.keys("Enter")
            page.get_by_role("button", name="Allow").first.wait_for()
            pick(pane, "Yes")
            page.get_by_text("written again").wait_for()
            page.get_by_role("button", name="Allow").first.wait_for(state="detached")
            pane.keys("C-d")
            pane.wait_exit()
        finally:
            pane.close()
        wait_for(lambda: not terminal_rows(env, project))


@needs_tmux
def test_with_a_host_running_it_is_on_the_page_list(host_env, project, browser, remote_page):  # noqa: F811
    with ScriptedServer([{"content": [{"type": "text", "text": "hi"}]}]) as srv:
        env = trusted_home_env(dict(host_env, **anthropic_env(srv)), project)
        start_host(env, project)
        pane = Pane([], env, project)
        try:
            pane.wait_for("in the session host as")
            server = remote_page(env, project)
            page = _pair(browser, server.url, server.code)
            page.get_by_role("link", name=f"{project.name} (terminal)").wait_for()
            pane.keys("C-d")
            pane.wait_exit()
            page.get_by_role("link", name=f"{project.name} (terminal)").wait_for(state="detached")
        finally:
            pane.close()

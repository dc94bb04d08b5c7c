"""Where the money went: a real `yoke -p` session of three turns against the scripted server; the third turn
runs with a changed tool list, and its cache miss is reported with that cause. The dollar figures of the
drill-down add up to the session's total to the cent, and the stats page shows it in headless Chromium."""

from __future__ import annotations

import json
import os

import pytest
from tests.conftest import anthropic_env
from tests.host.test_remote_browser import CHROMIUM, browser  # noqa: F401 - a fixture

from yoke.testing import ScriptedServer

MODEL = {"ANTHROPIC_MODEL": "claude-sonnet-4-5"}


def _turn(text: str, usage: dict[str, int]) -> list[dict]:
    return [{"content": [{"type": "text", "text": text}], "usage": usage}]


def _session(yoke) -> tuple[str, float]:
    usages = [
        {"input_tokens": 900, "output_tokens": 120, "cache_creation_input_tokens": 6000},
        {"input_tokens": 150, "output_tokens": 80, "cache_read_input_tokens": 6900},
        {"input_tokens": 200, "output_tokens": 90, "cache_creation_input_tokens": 7100},
    ]
    session, total = "", 0.0
    for n, usage in enumerate(usages, 1):
        flags = ["--disallowedTools", "Glob"] if n == 3 else []  # the third turn's tool list differs
        with ScriptedServer(_turn(f"answer {n}", usage)) as srv:
            run = yoke(
                "-p",
                f"question number {n}",
                *(["-c"] if n > 1 else []),
                *flags,
                "--output-format",
                "json",
                env=dict(anthropic_env(srv), **MODEL),
            )
        assert run.code == 0, run.stderr
        result = json.loads(run.stdout)
        session, total = result["session_id"], result["total_cost_usd"]
    return session, total


def test_a_changed_tool_list_is_the_cache_miss_and_the_dollars_add_up(yoke):
    session, total = _session(yoke)
    run = yoke("stats", "--session", session, "--json")
    assert run.code == 0, run.stderr
    data = json.loads(run.stdout)
    misses = data["cache_misses"]
    assert len(misses) == 1, misses
    assert misses[0]["turn"] == "question number 3"
    assert [c["kind"] for c in misses[0]["causes"]] == ["tool_list"]
    assert misses[0]["causes"][0]["detail"] == "-Glob"
    # to the cent: the turns, the causes and the session's result line
    assert round(sum(t["cost_usd"] for t in data["turns"]), 2) == round(total, 2)
    assert round(sum(w["cost_usd"] for w in data["why"]), 2) == round(total, 2)
    assert round(data["total_cost_usd"], 2) == round(total, 2) > 0
    assert [t["prompt"] for t in data["turns"]] == [f"question number {n}" for n in (1, 2, 3)]
    assert data["why"][0]["cause"] in (
        "cache miss: the tool list changed",
        "first request: nothing cached yet",
    )
    text = yoke("stats", "--session", session).stdout
    assert "Why was this expensive" in text and "tool_list: -Glob" in text
    overview = yoke("stats").stdout  # the overview names the costliest session and what cost most in it
    assert "Costliest sessions" in overview and session[:8] in overview


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="needs Debian's chromium")
def test_the_stats_page_drills_into_a_session(yoke, tmp_path, browser):  # noqa: F811
    session, _ = _session(yoke)
    out = tmp_path / "stats.html"
    assert yoke("stats", "--html", str(out)).code == 0
    page = browser.new_page()
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
    page.goto(out.as_uri())
    details = page.locator(f'details[data-session="{session}"]')
    assert not details.locator("table.misses").is_visible()
    details.locator("summary").click()
    misses = details.locator("table.misses")
    misses.wait_for()
    assert "tool_list: -Glob" in misses.inner_text() and "question number 3" in misses.inner_text()
    assert "question number 1" in details.locator("table.turns").inner_text()
    assert "cache miss: the tool list changed" in details.inner_text()


def _by_agent(body: dict) -> dict:
    """The answer for whichever agent asks (their requests may come in either order). The sub-agent runs in
    the background: its end is a task notification, which starts a follow-up query of the main agent."""
    last = json.dumps(body["messages"][-1])
    answered = "tool_result" in last or "task-notification" in last
    if "look around" in json.dumps(body["messages"][0]):  # the sub-agent
        if answered:
            return {"content": "sub done", "usage": {"input_tokens": 900, "output_tokens": 30}}
        call = {"type": "tool_use", "id": "toolu_b", "name": "Bash", "input": {"command": "echo hi"}}
        return {"content": [call], "usage": {"input_tokens": 800}}
    if answered:
        return {"content": "all done", "usage": {"input_tokens": 1200, "cache_read_input_tokens": 900}}
    agent = {"description": "look", "prompt": "look around", "subagent_type": "general-purpose"}
    return {
        "content": [{"type": "tool_use", "id": "toolu_a", "name": "Agent", "input": agent}],
        "usage": {"input_tokens": 1000},
    }


def test_sub_agents_and_tool_results_are_attributed_and_add_up(yoke):
    turns = [_by_agent] * 5
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p",
            "go",
            "--permission-mode",
            "bypassPermissions",
            "--output-format",
            "json",
            env=dict(anthropic_env(srv), **MODEL),
        )
    assert run.code == 0, run.stderr
    result = json.loads(run.stdout)
    data = json.loads(yoke("stats", "--session", result["session_id"], "--json").stdout)
    assert [row["type"] for row in data["subagents"].values()] == ["general-purpose"]
    assert set(data["tools"]) == {"Agent"}  # the sub-agent's Bash result is in the sub-agent's cost
    assert all(row["cost_usd"] > 0 for row in [*data["subagents"].values(), *data["tools"].values()])
    assert round(sum(w["cost_usd"] for w in data["why"]), 2) == round(result["total_cost_usd"], 2)
    assert round(sum(t["cost_usd"] for t in data["turns"]), 6) == round(result["total_cost_usd"], 6)
    assert any(w["cause"] == "sub-agent: general-purpose" for w in data["why"])
    causes = {t["cause"] for t in data["turns"]}
    assert causes == {"user_prompt", "background_notice"}  # the notice's follow-up query is its own turn

"""`yoke stats --html` at a phone's and a desktop's size, in headless Chromium through Playwright: no sideways
scroll at 390 px, costs under a cent with enough digits, error rates as rates (one error in two calls is half a
bar, not a full one), a timeline of cost and tokens per day stacked by model and by project, and axe-core's
accessibility check. Screenshots go to the test artefacts folder (printed)."""

from __future__ import annotations

from tests.host.page_look import PHONE, accessible, no_sideways_scroll, shoot
from tests.host.test_remote_browser import browser, pytestmark  # noqa: F401
from tests.telemetry.test_stats import USAGE_A, edit_script, run_json, two_projects  # noqa: F401

from yoke.cli.stats_html import render_page
from yoke.cli.stats_svg import money


def _figures(cost: float, tokens: int) -> dict:
    return {
        "cost_usd": cost,
        "input": tokens,
        "output": tokens // 10,
        "cache_read": tokens,
        "cache_creation": 0,
    }


def _data() -> dict:
    days = [f"2026-11-{d:02d}" for d in range(10, 25)]
    long_project = "/home/someone/work/a-project-with-a-rather-long-folder-name/and/more"
    return {
        "since": None, "project": None, "sessions": 4, "total": _figures(5.4034, 400000), "cache_hit_rate": 0.6,
        "by_day": {d: _figures(0.3, 20000) for d in days},
        "by_day_model": {d: {"claude-sonnet-4-5": _figures(0.3, 9000), "claude-haiku-4-5": _figures(0.0034, 11000)}
                         for d in days},
        "by_day_project": {d: {"/home/someone/alpha": _figures(0.2, 5000), long_project: _figures(0.1, 15000)}
                           for d in days},
        "by_model": {"claude-sonnet-4-5": _figures(5.4, 200000), "claude-haiku-4-5": _figures(0.0034, 200000)},
        "by_project": {"/home/someone/alpha": _figures(5.4, 1000), long_project: _figures(0.0034, 1000)},
        "tools": {"Read": {"calls": 2, "errors": 1}, "Bash": {"calls": 40, "errors": 2}, "Edit": {"calls": 9, "errors": 0}},
        "slowest_sessions": [{"id": "0123456789abcdef", "project": long_project, "started": "2026-11-20T10:00:00",
                              "duration_s": 1234.5, "cost_usd": 0.0042}],
        "costliest_sessions": [],
    }  # fmt: skip


def test_costs_keep_their_digits():
    assert [money(x) for x in (0, 0.00001, 0.0034, 0.0042, 0.5, 12.3456, 1234.5)] == [
        "$0.00", "<$0.0001", "$0.00340", "$0.00420", "$0.500", "$12.35", "$1,234.50"]  # fmt: skip


def test_the_stats_page_fits_a_phone(browser, tmp_path):  # noqa: F811
    page_file = tmp_path / "stats.html"
    page_file.write_text(render_page(_data()))
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(page_file.as_uri())
    no_sideways_scroll(page)
    text = page.inner_text("body")
    assert "$0.00340" in text and "$0.00420" in text and "$0.00\n" not in text
    # the error rates: one in two is 50 %, half of the bar's width; not relative to the largest rate
    read = page.locator("table.rates tr", has_text="Read")
    assert "50%" in read.inner_text() and "1 of 2" in read.inner_text()
    bar = read.locator("rect.err").bounding_box()
    track = read.locator("rect.track").bounding_box()
    assert bar and track and abs(bar["width"] / track["width"] - 0.5) < 0.02
    # the timeline: a column a day, stacked by model and by project, in both metrics
    timeline = page.get_by_role("img", name="Per day, by model: cost")
    assert timeline.locator("rect.s0").count() == 15 and timeline.locator("rect.s1").count() == 15
    assert page.locator('svg[aria-label="Per day, by project: tokens"]').count() == 1  # shown by the button
    assert page.locator(".legend").first.inner_text().split("\n") == ["claude-sonnet-4-5", "claude-haiku-4-5"]
    page.get_by_role("button", name="Tokens").click()
    assert page.get_by_role("img", name="Per day, by model: tokens").is_visible()
    assert not timeline.is_visible()
    page.get_by_role("button", name="Cost").click()
    shoot(page, "stats")
    accessible(page, "stats")
    page.emulate_media(color_scheme="dark")
    accessible(page, "stats, dark")


def test_the_cli_page_of_real_runs_fits_a_phone(yoke, two_projects, browser, tmp_path):  # noqa: F811
    alpha, _ = two_projects
    run_json(yoke, alpha, edit_script(alpha, USAGE_A), "fix the notes")
    page_file = tmp_path / "stats.html"
    assert yoke("stats", "--html", str(page_file), cwd=alpha).code == 0
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(page_file.as_uri())
    no_sideways_scroll(page)
    assert page.get_by_role("img", name="Per day, by project: cost").locator("rect.bar").count() == 1
    read = page.locator("table.rates tr", has_text="Read")  # one of the two Reads failed (a missing file)
    assert "50%" in read.inner_text() and "1 of 2" in read.inner_text()
    shoot(page, "stats-cli")
    accessible(page, "stats of real runs")

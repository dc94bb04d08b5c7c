"""`yoke stats` over transcripts written by real scripted `yoke -p` runs: its figures equal the runs' result
lines, `/cost` and the exported cost metric (to the cent; in fact to the float), and its HTML page renders in
headless Chromium without a single network request."""

from __future__ import annotations

import http.server
import json
import re
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from tests.conftest import anthropic_env

from yoke.cli.stats_svg import money
from yoke.testing import ScriptedServer

USAGE_A = {
    "input_tokens": 2000,
    "output_tokens": 400,
    "cache_read_input_tokens": 9000,
    "cache_creation_input_tokens": 1000,
}
USAGE_B = {
    "input_tokens": 500,
    "output_tokens": 50,
    "cache_read_input_tokens": 0,
    "cache_creation_input_tokens": 0,
}


def edit_script(folder: Path, usage: dict) -> list[dict]:
    target = str(folder / "notes.txt")
    return [
        {
            "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": target}}],
            "usage": usage,
        },
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "t2",
                    "name": "Edit",
                    "input": {"file_path": target, "old_string": "teh", "new_string": "the"},
                }
            ],
            "usage": usage,
        },
        {
            "content": [
                {"type": "tool_use", "id": "t3", "name": "Read", "input": {"file_path": str(folder / "nope")}}
            ]
        },
        {"content": [{"type": "text", "text": "Done."}], "usage": usage},
    ]


def run_json(yoke, folder: Path, script: list[dict], *args: str, extra_env: dict | None = None) -> dict:
    with ScriptedServer(script) as srv:
        env = {**anthropic_env(srv), **(extra_env or {})}
        run = yoke(
            "-p", *args, "--permission-mode", "acceptEdits", "--output-format", "json", env=env, cwd=folder
        )
    assert run.code == 0, run.stderr
    return json.loads(run.stdout)


@pytest.fixture
def two_projects(tmp_path: Path) -> tuple[Path, Path]:
    folders = []
    for name in ("alpha", "beta"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "notes.txt").write_text("teh notes\n")
        folders.append(folder)
    return folders[0], folders[1]


def test_stats_equal_the_result_lines_cost_and_the_metric(yoke, two_projects):
    pytest.importorskip("opentelemetry.sdk")  # the `otel` extra (in the dev extra)
    from tests.telemetry.otlp_receiver import OtlpReceiver

    alpha, beta = two_projects
    with OtlpReceiver() as receiver:
        otel = {
            "CLAUDE_CODE_ENABLE_TELEMETRY": "1",
            "OTEL_METRICS_EXPORTER": "otlp",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
            "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
        }
        first = run_json(yoke, alpha, edit_script(alpha, USAGE_A), "fix the notes", extra_env=otel)
    metric = sum(p["value"] for p in receiver.metrics() if p["name"] == "claude_code.cost.usage")
    (beta / "notes.txt").write_text("teh notes\n")
    second = run_json(yoke, beta, edit_script(beta, USAGE_B), "fix the notes")
    # a second query in the first session: its result line is the session's running total
    resumed = run_json(
        yoke, alpha, [{"content": "ok", "usage": USAGE_B}], "--resume", first["session_id"], "one more thing"
    )
    cost = yoke("-p", "/cost", "--resume", first["session_id"], cwd=alpha)
    shown = float(re.search(r"Total cost:\s+\$([0-9.]+)", cost.stdout).group(1))

    stats = yoke("stats", "--json", cwd=alpha)
    assert stats.code == 0, stats.stderr
    data = json.loads(stats.stdout)
    assert data["sessions"] == 2
    expected = resumed["total_cost_usd"] + second["total_cost_usd"]
    assert abs(data["total"]["cost_usd"] - expected) < 1e-9
    assert (
        round(metric, 2) == round(first["total_cost_usd"], 2) and abs(metric - first["total_cost_usd"]) < 1e-9
    )
    assert round(shown, 2) == round(resumed["total_cost_usd"], 2)
    projects = data["by_project"]
    assert abs(projects[str(alpha)]["cost_usd"] - resumed["total_cost_usd"]) < 1e-9
    assert abs(projects[str(beta)]["cost_usd"] - second["total_cost_usd"]) < 1e-9
    model = next(iter(first["modelUsage"]))
    usage_total = {
        k: first["usage"][k] + second["usage"][k] + USAGE_B[k]
        for k in ("output_tokens", "cache_read_input_tokens")
    }
    assert data["by_model"][model]["output"] == usage_total["output_tokens"]
    assert data["by_model"][model]["cache_read"] == usage_total["cache_read_input_tokens"]
    prompt = data["total"]["input"] + data["total"]["cache_read"] + data["total"]["cache_creation"]
    assert data["cache_hit_rate"] == pytest.approx(data["total"]["cache_read"] / prompt)
    assert data["tools"]["Read"] == {"calls": 4, "errors": 2}  # the missing file, in each project
    assert data["tools"]["Edit"] == {"calls": 2, "errors": 0}
    assert {s["id"] for s in data["slowest_sessions"]} == {first["session_id"], second["session_id"]}

    only_beta = json.loads(yoke("stats", "--json", "--project", "beta", cwd=alpha).stdout)
    assert (
        only_beta["sessions"] == 1 and abs(only_beta["total"]["cost_usd"] - second["total_cost_usd"]) < 1e-9
    )
    future = json.loads(yoke("stats", "--json", "--since", "2999-01-01", cwd=alpha).stdout)
    assert future["sessions"] == 0 and future["total"]["cost_usd"] == 0
    recent = json.loads(yoke("stats", "--json", "--since", "1d", cwd=alpha).stdout)
    assert abs(recent["total"]["cost_usd"] - expected) < 1e-9

    text = yoke("stats", cwd=alpha, env={"COLUMNS": "120"})
    assert text.code == 0
    assert money(expected) in text.stdout and "Per model" in text.stdout and "Read" in text.stdout
    assert money(expected) != "$0.00" and expected > 0  # a paid run never reads as nothing
    assert re.search(r"Read\s+4\s+█+\s+2 \(50%\)", text.stdout), text.stdout


def test_bad_since_is_one_line(yoke, project):
    run = yoke("stats", "--since", "last tuesday")
    assert run.code == 2
    assert run.stderr.strip().count("\n") == 0 and "--since" in run.stderr and "7d" in run.stderr


@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs chromium (make system-deps)")
def test_the_html_page_renders_its_charts_offline(yoke, two_projects, tmp_path):
    alpha, _ = two_projects
    run_json(yoke, alpha, edit_script(alpha, USAGE_A), "fix the notes")
    page = tmp_path / "stats.html"
    out = yoke("stats", "--html", str(page), cwd=alpha)
    assert out.code == 0, out.stderr
    html = page.read_text()
    assert "http://" not in html and "https://" not in html and "src=" not in html  # nothing to fetch
    # Every request the browser makes goes to this proxy, which refuses it and writes it down.
    seen: list[str] = []

    class Refuse(http.server.BaseHTTPRequestHandler):
        def _refuse(self) -> None:
            seen.append(f"{self.command} {self.path}")
            self.send_response(403)
            self.send_header("content-length", "0")
            self.end_headers()

        do_GET = do_POST = do_CONNECT = do_HEAD = _refuse

        def log_message(self, *args: object) -> None:
            pass

    proxy = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    control = tmp_path / "control.html"  # proves a page's request would be seen
    control.write_text('<img src="http://yoke-control.test/pixel.png">')
    try:
        proc = _chromium(page, tmp_path / "profile", proxy.server_address[1])
        _chromium(control, tmp_path / "profile2", proxy.server_address[1])
    finally:
        proxy.shutdown()
    dom = proc.stdout
    assert dom.count("<svg") >= 5, proc.stderr[-2000:]
    assert dom.count('class="bar"') >= 5
    assert 'data-for="cost" class="on"' in dom  # the inline script ran
    assert 'data-metric="tokens" style="display: none;"' in dom
    # Chromium's own background calls (update checks, network time, accounts) go to Google's hosts
    page_requests = [line for line in seen if not BROWSER_OWN.search(line)]
    assert page_requests == ["GET http://yoke-control.test/pixel.png"], seen


BROWSER_OWN = re.compile(r"(googleapis|google|gvt1|gstatic)\.com[:/]")


def _chromium(page: Path, profile: Path, proxy_port: int) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            f"--proxy-server=http://127.0.0.1:{proxy_port}",
            "--proxy-bypass-list=<-loopback>",
            "--virtual-time-budget=2000",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_claude_codes_own_transcripts_are_priced_once_per_message(yoke, home, project):
    from yoke.providers.base import Usage
    from yoke.providers.pricing import cost_usd

    folder = home / ".claude" / "projects" / "-work-app"
    folder.mkdir(parents=True)
    usage = {
        "input_tokens": 3000,
        "output_tokens": 700,
        "cache_read_input_tokens": 20000,
        "cache_creation_input_tokens": 0,
    }
    message = {"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage}
    records = [
        {
            "type": "user",
            "cwd": "/work/app",
            "timestamp": "2026-11-20T10:00:00Z",
            "message": {"role": "user", "content": "hi"},
        },
        # one record per content block, each repeating the message's usage (as Claude Code writes them)
        {
            **{"type": "assistant", "cwd": "/work/app", "timestamp": "2026-11-20T10:00:05Z"},
            "message": {**message, "content": [{"type": "text", "text": "Reading."}]},
        },
        {
            **{"type": "assistant", "cwd": "/work/app", "timestamp": "2026-11-20T10:00:05Z"},
            "message": {
                **message,
                "content": [{"type": "tool_use", "id": "tu1", "name": "Read", "input": {}}],
            },
        },
        {
            "type": "user",
            "cwd": "/work/app",
            "timestamp": "2026-11-20T10:00:09Z",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "tu1", "is_error": True}],
            },
        },
    ]
    (folder / "cc-session.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    data = json.loads(yoke("stats", "--json").stdout)
    expected = cost_usd("claude-sonnet-4-5", Usage(3000, 700, 20000, 0))
    assert expected > 0
    assert data["sessions"] == 1 and abs(data["total"]["cost_usd"] - expected) < 1e-12
    assert data["total"]["cache_read"] == 20000
    assert data["by_day"]["2026-11-20"]["output"] == 700
    assert data["tools"] == {"Read": {"calls": 1, "errors": 1}}
    assert data["slowest_sessions"][0]["duration_s"] == 9.0

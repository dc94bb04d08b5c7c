"""The headless protocol next to Claude Code 2.1.330 on the same scripts.

Each scenario of `cc_2_1_330/scenarios.json` was run with the bundled Claude Code against the scripted
server (`scripts/capture_cc.py`); `cc_2_1_330/<name>.json` holds what it wrote, reduced to a skeleton (line
kinds and the fields that say what happened, no prose, ids or timestamps). Here Yoke runs the same script and
its skeleton must be the same, line for line. Where Yoke knowingly differs, `KNOWN` says how and why.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from yoke.testing.side_by_side import background_split, denied_tools, request_fields, run_scenario, skeleton

HERE = Path(__file__).resolve().parent / "cc_2_1_330"
SCENARIOS = json.loads((HERE / "scenarios.json").read_text())
YOKE = f"{sys.executable} -m yoke"
# Lines 2.1.330 wrote that Yoke knowingly does not, per scenario, with the reason.
KNOWN: dict[str, tuple[str, str]] = {
    # Claude Code runs no classifier against an endpoint other than Anthropic's own; it says so in an
    # informational line and denies the call. Yoke asks its classifier through the session's provider (the
    # scenario's side answer blocks the call), so the denial is the classifier's and there is nothing to say.
    "auto_mode_risky": ("system/informational", "classifier unavailable off Anthropic's API"),
    # stdin arrives all at once here: 2.1.332 answered set_model as it read it, before the first query's
    # lines (the switch still took effect after that query), while Yoke answers it in turn, after the running
    # query, as a program that waits for each result sees both do. The requests (`request_fields`) and the
    # other lines must match.
    "set_model_defaults_follow": ("control_response", "answered on arrival vs in turn"),
    "set_model_effort_asked": ("control_response", "answered on arrival vs in turn"),
    # --safe-mode (every run) and --bare (some runs) make 2.1.332 write a `system/ui_invalidate` (`ui.render`)
    # line before init, a redraw signal for its own UI after the settings reload; Yoke does not act on either
    # flag (it says so on stderr) and writes no such line. Every other line must match.
    "safe_mode_plain": ("system/ui_invalidate", "a redraw signal for Claude Code's UI"),
    "bare_plain": ("system/ui_invalidate", "a redraw signal for Claude Code's UI"),
}


def _observed(result: dict) -> dict:
    return {
        "code": result["code"],
        "stdout_empty": not result["stdout"].strip(),
        "lines": skeleton(result["stdout"]) if result["stdout"].lstrip().startswith("{") else [],
    }


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_yoke_writes_what_claude_code_wrote(name, base_env):
    check_scenario(name, YOKE, base_env)


def check_scenario(name: str, executable: str, base_env: dict[str, str]) -> None:
    """`executable` writes for the scenario what 2.1.330 wrote (test_headless_warm.py: forked warm)."""
    scenario = SCENARIOS[name]
    captured = json.loads((HERE / f"{name}.json").read_text())
    result = run_scenario(executable, scenario, env=base_env)
    mine = _observed(result)
    theirs = {k: captured[k] for k in ("code", "stdout_empty", "lines")}
    if name in KNOWN:
        theirs["lines"] = [line for line in theirs["lines"] if line["line"] != KNOWN[name][0]]
        if KNOWN[name][0] == "control_response":  # a matter of order: left out on both sides
            mine["lines"] = [line for line in mine["lines"] if line["line"] != "control_response"]
    from itertools import zip_longest

    side_by_side = "\n".join(
        f"{json.dumps(a) if a else '':70} | {json.dumps(b) if b else ''}"
        for a, b in zip_longest(mine["lines"], theirs["lines"])
    )
    if scenario.get("loose_background_order"):  # its interleaving varies per run (side_by_side.py)
        mine["lines"] = background_split(mine["lines"])
        theirs["lines"] = background_split(theirs["lines"])
    assert mine == theirs, (
        f"yoke (left) vs 2.1.330 (right), stderr: {result['stderr'][-300:]}\n{side_by_side}"
    )
    assert len(result["requests"]) == captured["requests"]
    if "denied" in captured:  # the tools each result lists as refused (permission_denials)
        assert denied_tools(result["stdout"]) == captured["denied"]
    if scenario.get("request_fields"):  # thinking, effort, max_tokens and model, request by request
        assert request_fields(result["requests"], scenario["request_fields"]) == captured["request_fields"]
    for path, text in (scenario.get("expect_file") or {}).items():
        assert (result["project"] / path).read_text() == text

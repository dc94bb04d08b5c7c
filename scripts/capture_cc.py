"""Capture what Claude Code writes on each headless scenario of tests/cli/cc_2_1_330/scenarios.json.

    .venv/bin/python scripts/capture_cc.py [NAME ...]

Runs the bundled CLI of the `claude-agent-sdk` wheel (or $CLAUDE) against the scripted server and stores,
per scenario, `<name>.json`: the exit code, whether stdout/stderr were empty, the requests' count, and the
stdout skeleton (yoke.testing.side_by_side): observations of behaviour, no prose from Claude Code.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
from pathlib import Path

from yoke.testing.side_by_side import denied_tools, request_fields, run_scenario, skeleton

HERE = Path(__file__).resolve().parent.parent / "tests" / "cli" / "cc_2_1_330"


def bundled_claude() -> str | None:
    if os.environ.get("CLAUDE"):
        return os.environ["CLAUDE"]
    import site

    for base in site.getsitepackages():
        found = glob.glob(os.path.join(base, "claude_agent_sdk", "_bundled", "claude"))
        if found:
            return found[0]
    return None


def observe(result: dict, scenario: dict) -> dict:
    observed = {
        "code": result["code"],
        "stdout_empty": not result["stdout"].strip(),
        "stderr_empty": not result["stderr"].strip(),
        "requests": len(result["requests"]),
        "lines": skeleton(result["stdout"]) if result["stdout"].lstrip().startswith("{") else [],
    }
    if scenario.get("control_answers") is not None:  # what the answers refused, per result
        observed["denied"] = denied_tools(result["stdout"])
    if scenario.get("request_fields"):  # what each model request asked for (thinking, effort, ...)
        observed["request_fields"] = request_fields(result["requests"], scenario["request_fields"])
    return observed


def dump(observed: dict) -> str:
    """One skeleton line per text line, so a change in a capture reads as a diff of lines."""
    head = {k: v for k, v in observed.items() if k != "lines"}
    lines = ",\n".join("  " + json.dumps(line) for line in observed["lines"])
    return json.dumps(head)[:-1] + ', "lines": [\n' + lines + "\n]}\n"


def main(names: list[str]) -> int:
    claude = bundled_claude()
    if claude is None:
        print(
            "capture_cc: no bundled Claude Code found (install the dev extra, or set CLAUDE)", file=sys.stderr
        )
        return 1
    version = subprocess.run([claude, "--version"], capture_output=True, text=True).stdout.strip()
    scenarios = json.loads((HERE / "scenarios.json").read_text())
    for name, scenario in scenarios.items():
        if names and name not in names:
            continue
        observed = observe(run_scenario(claude, scenario), scenario)
        observed["version"] = version
        (HERE / f"{name}.json").write_text(dump(observed))
        print(f"{name}: exit {observed['code']}, {len(observed['lines'])} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

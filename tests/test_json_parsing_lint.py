"""`make lint`'s JSON rule, as a developer and an attacker meet it: a direct `json.loads` outside
jsonsafe.py fails the check, and the readers it forced through jsonsafe take a 100,000-deep line as one bad
line, not a RecursionError."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECK = ROOT / "scripts" / "check_json_parsing.py"
DEEP = "[" * 100_000 + "]" * 100_000


def _check(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(CHECK), str(root)], capture_output=True, text=True, timeout=60)


def test_the_checkout_parses_outside_json_only_through_jsonsafe():
    run = _check(ROOT)
    assert run.returncode == 0, run.stdout


def test_a_new_direct_parse_fails_the_check_and_the_reason_marker_lets_it_pass(tmp_path):
    # the module planted in, alone (the rule reads each module on its own; the checkout is the test above)
    target = tmp_path / "src" / "yoke" / "cli" / "stats_command.py"
    target.parent.mkdir(parents=True)
    shutil.copy(ROOT / "src" / "yoke" / "cli" / "stats_command.py", target)
    original = target.read_text()
    for added in ("import json as j\n\nX = j.loads('1')\n", "from json import loads\n"):
        target.write_text(original + "\n" + added)
        run = _check(tmp_path)
        assert run.returncode == 1 and "stats_command.py" in run.stdout, added
    target.write_text(original + "\nimport json\n\n# json-ours: a literal\nX = json.loads('1')\n")
    assert _check(tmp_path).returncode == 0


def test_stats_reads_a_transcript_with_a_100000_deep_line_as_one_bad_line(yoke, home):
    folder = home / ".claude" / "projects" / "-work-app"
    folder.mkdir(parents=True)
    user = {"type": "user", "cwd": "/work/app", "timestamp": "2026-11-20T10:00:00Z",
            "message": {"role": "user", "content": "hi"}}  # fmt: skip
    (folder / "s.jsonl").write_text(json.dumps(user) + "\n" + DEEP + "\n")
    run = yoke("stats", "--json")
    assert run.code == 0 and "RecursionError" not in run.stderr, run.stderr
    assert json.loads(run.stdout)["sessions"] == 1


def test_batch_task_file_with_a_deep_line_says_which_line(yoke, project):
    tasks = project / "tasks.jsonl"
    tasks.write_text(DEEP + "\n")
    run = yoke("batch", str(tasks), "--out", str(project / "out"))
    assert run.code != 0 and "Traceback" not in run.stderr and "RecursionError" not in run.stderr
    assert "line 1: not JSON (nested deeper than 500 levels" in run.stderr, run.stderr

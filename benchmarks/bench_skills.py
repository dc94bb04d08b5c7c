"""Start-up cost of skills: one-turn `yoke -p` wall time with 50 skills (and 10 commands) configured vs none.

Run: `python benchmarks/bench_skills.py` (part of `make bench`). Prints the median of several alternating runs
of each and the difference. Target (not a test): with 50 skills, within 10% of none. Half the skills use
flat frontmatter, half nested YAML (`hooks`), so both frontmatter readers are exercised; the warm-up run
fills the frontmatter cache (`~/.yoke/cache/frontmatter.json`), as a user's first session does.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from yoke.testing import ScriptedServer

REPEATS = int(os.environ.get("YOKE_BENCH_REPEATS", "9"))
TEXT = {"content": [{"type": "text", "text": "done"}], "usage": {"input_tokens": 100, "output_tokens": 2}}


def make_skills(project: Path, count: int) -> None:
    for i in range(count):
        folder = project / ".claude" / "skills" / f"skill-{i:02d}"
        folder.mkdir(parents=True)
        extra = (
            "hooks:\n  PostToolUse:\n    - matcher: Edit\n      hooks:\n        - type: command\n"
            "          command: echo formatted\n"
            if i % 2
            else "allowed-tools: Bash(git status:*) Read\n"
        )
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{i:02d}\ndescription: Does task number {i} for the project when asked to\n"
            f"argument-hint: '[target]'\n{extra}---\nDo task {i} on $ARGUMENTS carefully.\n",
            encoding="utf-8",
        )
    commands = project / ".claude" / "commands"
    commands.mkdir(parents=True, exist_ok=True)
    for i in range(count // 5):
        (commands / f"cmd-{i}.md").write_text(f"Command {i}: $ARGUMENTS\n", encoding="utf-8")


def one_turn(env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "yoke", "-p", "hi"],
        env=env,
        cwd=cwd,
        capture_output=True,
        stdin=subprocess.DEVNULL,
    )
    if proc.returncode != 0:
        raise SystemExit(f"benchmark run failed: {proc.stderr.decode()}")
    return time.perf_counter() - start


def main() -> None:
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        plain, skilled, home = root / "plain", root / "skilled", root / "home"
        for folder in (plain, skilled, home):
            folder.mkdir()
        make_skills(skilled, 50)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "YOKE_", "CLAUDE_"))}
        env.update(HOME=str(home), YOKE_HOME=str(home / ".yoke"), CLAUDE_CONFIG_DIR=str(home / ".claude"))
        with ScriptedServer([TEXT] * (2 * REPEATS + 2)) as srv:
            env.update(ANTHROPIC_BASE_URL=srv.url, ANTHROPIC_API_KEY="sk-bench")
            one_turn(env, plain)  # warm the file cache
            one_turn(env, skilled)
            times: dict[str, list[float]] = {"none": [], "50 skills": []}
            for _ in range(REPEATS):
                times["none"].append(one_turn(env, plain))
                times["50 skills"].append(one_turn(env, skilled))
    base = statistics.median(times["none"])
    with_skills = statistics.median(times["50 skills"])
    print(f"one-turn yoke -p, no skills:          {base * 1000:7.1f} ms (median of {REPEATS})")
    print(f"one-turn yoke -p, 50 skills+10 cmds:  {with_skills * 1000:7.1f} ms")
    print(f"difference: {100 * (with_skills - base) / base:+.1f}% (target: within +10%)")


if __name__ == "__main__":
    main()

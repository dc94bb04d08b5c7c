"""Hook overhead: what 20 configured hooks cost a session that does not trigger them, and what one does.

Run: `python benchmarks/bench_hooks.py`. Prints the median of several runs of:
- reading 20 hooks from a settings file and building the listener (once per session);
- one announcement that none of the 20 hooks matches (per tool call: matcher checks only);
- one announcement running one trivial command hook (`true`): the process spawn dominates;
- the same with 20 matching hooks run in parallel;
- a one-turn `yoke -p` with 20 configured (user-settings) hooks that the turn does not trigger, against none.
Targets (not tests): load <= 5 ms, non-matching announcement <= 50 us, one hook <= 20 ms, one-turn wall
time with 20 hooks within 10% of none.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from yoke.config.settings import load_settings
from yoke.hooks.build import build_hook_listener
from yoke.loop.lifecycle import Lifecycle

REPEATS = int(os.environ.get("YOKE_BENCH_REPEATS", "15"))


def settings_with_hooks(folder: Path, matcher: str) -> None:
    groups = [
        {
            "matcher": f"{matcher}{i}" if matcher != "Bash" else "Bash",
            "hooks": [{"type": "command", "command": "true"}],
        }
        for i in range(20)
    ]
    hooks = {
        "PreToolUse": [
            dict(g, hooks=[{"type": "command", "command": f"true {i}"}]) for i, g in enumerate(groups)
        ]
    }
    (folder / ".claude").mkdir(parents=True, exist_ok=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:.3f} ms"


async def announce_times(lifecycle: Lifecycle, n: int) -> list[float]:
    out = []
    for _ in range(n):
        start = time.perf_counter()
        await lifecycle.announce(
            "PreToolUse", tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="t"
        )
        out.append(time.perf_counter() - start)
    return out


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, matcher in (("nomatch", "Other"), ("match", "Bash")):
            folder = root / name
            folder.mkdir()
            settings_with_hooks(folder, matcher)
        loads = []
        for _ in range(REPEATS):
            start = time.perf_counter()
            loaded = load_settings(root / "nomatch", home=root, managed_paths=[])
            listener = build_hook_listener(loaded, trusted=True)
            loads.append(time.perf_counter() - start)
        assert listener is not None
        lifecycle = Lifecycle(lambda: {"session_id": "bench", "cwd": tmp})
        lifecycle.add(listener)
        idle = asyncio.run(announce_times(lifecycle, REPEATS * 20))
        one_folder = root / "one"
        (one_folder / ".claude").mkdir(parents=True)
        (one_folder / ".claude" / "settings.json").write_text(
            json.dumps(
                {
                    "hooks": {
                        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]
                    }
                }
            )
        )
        one = Lifecycle(lambda: {"session_id": "bench", "cwd": tmp})
        one.add(build_hook_listener(load_settings(one_folder, home=root, managed_paths=[]), trusted=True))
        single = asyncio.run(announce_times(one, REPEATS))
        many = Lifecycle(lambda: {"session_id": "bench", "cwd": tmp})
        many.add(
            build_hook_listener(load_settings(root / "match", home=root, managed_paths=[]), trusted=True)
        )
        twenty = asyncio.run(announce_times(many, REPEATS))
    with_hooks, without = one_turn_walls()
    print(f"load 20 hooks + build listener:        {median_ms(loads)}")
    print(f"announcement, none of 20 hooks match:  {statistics.median(idle) * 1e6:.1f} us")
    print(f"announcement running 1 command hook:   {median_ms(single)}")
    print(f"announcement running 20 hooks at once: {median_ms(twenty)}")
    print(f"one-turn yoke -p, no hooks:            {without * 1000:.1f} ms")
    print(
        f"one-turn yoke -p, 20 hooks configured: {with_hooks * 1000:.1f} ms ({with_hooks / without - 1:+.1%})"
    )


def one_turn_walls() -> tuple[float, float]:
    """Median wall time of a one-turn `yoke -p` with 20 idle hooks in ~/.claude/settings.json, and without,
    measured alternately so that a busy machine affects both alike."""
    from run import YOKE, measure

    from yoke.testing import ScriptedServer

    walls: dict[bool, list[float]] = {True: [], False: []}
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        settings = home / ".claude" / "settings.json"
        settings.parent.mkdir()
        hooks = {
            "PreToolUse": [
                {"matcher": f"Tool{i}", "hooks": [{"type": "command", "command": f"true {i}"}]}
                for i in range(20)
            ]
        }
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("ANTHROPIC_", "OPENAI_", "YOKE_", "CLAUDE_"))
        }
        env.update({"HOME": str(home), "YOKE_HOME": str(home / ".yoke")})
        for _ in range(REPEATS):
            for configured in (False, True):
                settings.write_text(json.dumps({"hooks": hooks} if configured else {}))
                with ScriptedServer([{"content": "hi"}], validate_requests=False) as srv:
                    run_env = dict(env, ANTHROPIC_BASE_URL=srv.url, ANTHROPIC_API_KEY="bench")
                    wall, _, _ = measure([YOKE, "-p", "go", "--no-session-persistence"], run_env, home)
                walls[configured].append(wall)
    return statistics.median(walls[True]), statistics.median(walls[False])


if __name__ == "__main__":
    main()

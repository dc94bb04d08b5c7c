"""Prompt-cache prefix stability and compaction ratios. Run: `python benchmarks/bench_prefix.py`.

1. Prefix stability: a 50-turn scripted `yoke -p` session (each turn one tool call: Read, Grep or Bash, one
   of them with an output large enough to be snipped) against the local scripted server. For each request,
   the share of its bytes that are a prefix of the next request's bytes, with cache_control markers removed
   (the cache key ignores them; the markers themselves move every turn by design). Target: >= 99%.
   Also reported: where the first differing byte falls, for the worst request.
2. Compaction ratios: a 400-turn session at the compaction layer (200K window, a scripted summarizer),
   reporting for each level how often it fired and its mean tokens after / before.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

TURNS = 50


def yoke_command() -> list[str]:
    exe = Path(sys.executable).parent / "yoke"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "yoke"]


def scripted_turns(cwd: Path) -> list[dict]:
    turns = []
    for i in range(TURNS - 1):
        if i % 3 == 0:
            call = {"name": "Read", "input": {"file_path": str(cwd / f"src/mod{i % 7}.py")}}
        elif i % 3 == 1:
            call = {"name": "Grep", "input": {"pattern": f"def f{i % 11}", "path": str(cwd)}}
        else:
            command = "seq 1 20000" if i == 20 else f"ls src | head -n {i % 5 + 1}"
            call = {"name": "Bash", "input": {"command": command, "description": "look around"}}
        turns.append(
            {
                "content": [
                    {"type": "text", "text": f"Step {i}."},
                    {"type": "tool_use", "id": f"toolu_{i:03d}", **call},
                ]
            }
        )
    turns.append({"content": [{"type": "text", "text": "All done."}]})
    return turns


def make_project(cwd: Path) -> None:
    (cwd / "src").mkdir()
    for n in range(7):
        body = "".join(f"def f{k}(x):\n    return x * {k} + {n}\n\n" for k in range(40))
        (cwd / "src" / f"mod{n}.py").write_text(body)
    (cwd / "CLAUDE.md").write_text("Run the tests with `python -m pytest` before finishing.\n")


def strip_cache_control(value):
    if isinstance(value, dict):
        return {k: strip_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip_cache_control(v) for v in value]
    return value


def request_bytes(body: dict) -> bytes:
    """The parts the prompt cache keys on, in wire order: tools, system, messages."""
    keyed = {k: body.get(k) for k in ("tools", "system", "messages")}
    return json.dumps(strip_cache_control(keyed), ensure_ascii=False, separators=(",", ":")).encode()


def common_prefix(a: bytes, b: bytes) -> int:
    n = min(len(a), len(b))
    lo, hi = 0, n
    while lo < hi:  # binary search on equal prefixes (fast on long bodies)
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def prefix_stability() -> None:
    from yoke.testing import ScriptedServer

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cwd = root / "project"
        cwd.mkdir()
        make_project(cwd)
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("ANTHROPIC_", "OPENAI_", "YOKE_", "CLAUDE_"))
        }
        with ScriptedServer(scripted_turns(cwd)) as srv:
            env.update(
                HOME=str(root),
                YOKE_HOME=str(root / ".yoke"),
                CLAUDE_CONFIG_DIR=str(root / ".claude"),
                ANTHROPIC_BASE_URL=srv.url,
                ANTHROPIC_API_KEY="bench",
            )
            argv = [
                *yoke_command(),
                "-p",
                "explore the project",
                "--max-turns",
                str(TURNS + 5),
                "--permission-mode",
                "bypassPermissions",
                "--output-format",
                "json",
            ]
            proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
            bodies = [r.body for r in srv.requests if r.body and "messages" in r.body]
        if proc.returncode != 0:
            raise SystemExit(f"yoke -p failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
    blobs = [request_bytes(b) for b in bodies]
    shares = [common_prefix(a, b) / len(a) for a, b in zip(blobs, blobs[1:], strict=False)]
    marks = [json.dumps(b).count('"cache_control"') for b in bodies]
    worst = min(range(len(shares)), key=shares.__getitem__)
    print(f"prefix stability over {len(bodies)} requests ({len(shares)} pairs)")
    print(f"  mean {statistics.mean(shares) * 100:7.3f}%   min {min(shares) * 100:7.3f}%   target >= 99%")
    cut = common_prefix(blobs[worst], blobs[worst + 1])
    context = blobs[worst][max(0, cut - 60) : cut + 60].decode(errors="replace")
    print(
        f"  worst pair: request {worst} -> {worst + 1}, first difference at byte {cut:,} of {len(blobs[worst]):,}:"
    )
    print(f"    ...{context}...")
    print(f"  cache_control markers per request: {sorted(set(marks))}")


async def compaction_ratios() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    from yoke.context.compaction import Compactor
    from yoke.providers.base import Usage
    from yoke.providers.tokens import estimate_messages

    async def summarize(messages, instruction):
        return "<summary>" + "A faithful summary of the work so far. " * 40 + "</summary>"

    with tempfile.TemporaryDirectory() as tmp:
        compactor = Compactor("claude-bench", summarize, Path(tmp), env={}, overhead_tokens=8_000)
        messages = [{"role": "user", "content": "GOAL: refactor the storage layer"}]
        usage = None
        ratios: dict[int, list[float]] = defaultdict(list)
        for turn in range(400):
            result = await compactor.prepare(messages, usage)
            for boundary in result.boundaries:
                meta = boundary["compactMetadata"]
                ratios[meta["level"]].append(meta["postTokens"] / max(1, meta["preTokens"]))
            messages = result.messages
            usage = Usage(input_tokens=estimate_messages(messages) + 8_000, output_tokens=80)
            size = 400 + (turn * 7919) % 12_000 * (8 if turn % 37 == 0 else 1)
            tool_id = f"toolu_{turn:04d}"
            messages = [
                *messages,
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "text",
                            "text": "reasoning " * (200 + turn % 5 * 150),
                        },  # prose stays: collapse/autocompact
                        {
                            "type": "tool_use",
                            "id": tool_id,
                            "name": "Read" if turn % 2 else "Bash",
                            "input": {"file_path": f"/f{turn}"},
                        },
                    ],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": "x" * size}],
                },
            ]
    names = {0: "drop-oldest", 1: "snip", 2: "microcompact", 3: "collapse", 4: "autocompact"}
    print("compaction over a 400-turn session (200K window)")
    for level in sorted(ratios):
        values = ratios[level]
        print(
            f"  level {level} {names[level]:13} fired {len(values):4d}x   tokens after/before mean {statistics.mean(values):.3f}"
        )


def main() -> None:
    prefix_stability()
    asyncio.run(compaction_ratios())


if __name__ == "__main__":
    main()

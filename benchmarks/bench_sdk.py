"""Per-turn overhead of the ways a program drives Yoke, against the local scripted server: `yoke.sdk` in
process against the official `claude-agent-sdk` driving the `yoke` command (`cli_path`). Each runs a
20-prompt conversation in one client; prints the median time per prompt after the first.
Run: `python benchmarks/bench_sdk.py` (skips the official SDK when it is not installed)."""

from __future__ import annotations

import asyncio
import importlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from yoke.testing import ScriptedServer

PROMPTS = 20


async def per_prompt(sdk_name: str, root: Path) -> float:
    sdk = importlib.import_module(sdk_name)
    with ScriptedServer(default_turn={"content": [{"type": "text", "text": "ok"}]}) as srv:
        env = {
            "ANTHROPIC_BASE_URL": srv.url,
            "ANTHROPIC_API_KEY": "sk-bench",
            "HOME": str(root),
            "YOKE_HOME": str(root / ".yoke"),
            "CLAUDE_CONFIG_DIR": str(root / ".claude"),
        }
        yoke = str(Path(sys.executable).parent / "yoke")
        options = sdk.ClaudeAgentOptions(cli_path=yoke, cwd=str(root), env=env)
        times = []
        async with sdk.ClaudeSDKClient(options=options) as client:
            for i in range(PROMPTS):
                started = time.perf_counter()
                await client.query(f"prompt {i}")
                _ = [m async for m in client.receive_response()]
                times.append(time.perf_counter() - started)
    return statistics.median(times[1:])


def main() -> None:
    for key in [k for k in os.environ if k.startswith(("ANTHROPIC_", "OPENAI_", "YOKE_"))]:
        del os.environ[key]
    with tempfile.TemporaryDirectory() as tmp:
        inproc = asyncio.run(per_prompt("yoke.sdk", Path(tmp)))
        print(f"yoke.sdk in process:            {inproc * 1000:.1f} ms per prompt")
        try:
            importlib.import_module("claude_agent_sdk")
        except ImportError:
            print("claude-agent-sdk driving yoke:  skipped (not installed)")
            return
        cli = asyncio.run(per_prompt("claude_agent_sdk", Path(tmp)))
        print(f"claude-agent-sdk driving yoke:  {cli * 1000:.1f} ms per prompt ({cli / inproc:.1f}x)")


if __name__ == "__main__":
    main()

"""Sub-agents in parallel: one `yoke -p` whose model starts N agents in one message, each running 20 Read
turns, against the local scripted server. Prints wall time for 1 and for 10 agents (the ratio shows how
much of the work overlaps) and peak RSS. Run: `python benchmarks/bench_agents.py`."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from yoke.testing import ScriptedServer

sys.path.insert(0, str(Path(__file__).parent))
from run import measure  # noqa: E402

TURNS = 20


def router(agents: int, target: Path):
    def answer(body: dict) -> dict:
        first = body["messages"][0]["content"]
        prompt = first if isinstance(first, str) else json.dumps(first)
        steps = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if "WORKER" not in prompt:  # the parent: start every agent at once, then finish
            if steps:
                return {"content": [{"type": "text", "text": "all done"}]}
            calls = [
                {
                    "type": "tool_use",
                    "id": f"toolu_agent_{i}",
                    "name": "Agent",
                    "input": {"description": f"worker {i}", "prompt": f"WORKER {i}"},
                }
                for i in range(agents)
            ]
            return {"content": calls}
        if steps >= TURNS - 1:
            return {"content": [{"type": "text", "text": "worker done"}]}
        read = {"file_path": str(target), "offset": steps % 30 + 1, "limit": 5}
        return {"content": [{"type": "tool_use", "id": f"toolu_r{steps}", "name": "Read", "input": read}]}

    return answer


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        target = root / "data.txt"
        target.write_text("".join(f"line {i}\n" for i in range(100)))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "YOKE_"))}
        env.update(HOME=str(root), YOKE_HOME=str(root / ".yoke"), CLAUDE_CONFIG_DIR=str(root / ".claude"))
        figures = {}
        for agents in (1, 10):
            with ScriptedServer(default_turn=router(agents, target)) as srv:
                env.update(ANTHROPIC_BASE_URL=srv.url, ANTHROPIC_API_KEY="sk-bench")
                argv = [sys.executable, "-m", "yoke", "-p", "go", "--permission-mode", "bypassPermissions"]
                figures[agents] = measure(argv, env, root)
        one, ten = figures[1], figures[10]
        print(f"sub-agents, {TURNS} turns each:")
        print(f"  1 agent:   {one[0]:.2f} s wall, peak RSS {one[1]:.0f} MB")
        print(
            f"  10 agents: {ten[0]:.2f} s wall, peak RSS {ten[1]:.0f} MB ({ten[0] / one[0]:.1f}x the time of one)"
        )


if __name__ == "__main__":
    main()

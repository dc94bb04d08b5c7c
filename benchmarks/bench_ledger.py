"""The compaction ledger's size against the history it stands for, and the time to extract it.

Run: `python benchmarks/bench_ledger.py`. Builds a 200-turn history of the usual shape (a prompt, an answer
with a Bash or Read call, its result of a few kilobytes, a closing answer; a constraint, a decision and a
figure now and then), drops the oldest 150 turns as a compaction would, and prints the dropped history's
size, the ledger's entries and the size of its text in the summary message, and the extraction time.
"""

from __future__ import annotations

import json
import time

from yoke.context.ledger import extract_ledger, ledger_text

TURNS, DROPPED = 200, 150


def history() -> list[dict]:
    messages: list[dict] = []
    for n in range(TURNS):
        prompt = f"Step {n}: look at src/module_{n}.py and tell me what it does."
        if n % 10 == 3:
            prompt += f" The API must never return more than {n} items per page."
        messages.append({"role": "user", "content": prompt})
        call = (
            {
                "type": "tool_use",
                "id": f"t{n}",
                "name": "Bash",
                "input": {"command": f"pytest tests/test_{n}.py -q"},
            }
            if n % 2
            else {
                "type": "tool_use",
                "id": f"t{n}",
                "name": "Read",
                "input": {"file_path": f"src/module_{n}.py"},
            }
        )
        messages.append({"role": "assistant", "content": [{"type": "text", "text": "Let me check."}, call]})
        body = "\n".join(f"line {i}: value = compute({i}, {n})  # a comment" for i in range(80))
        messages.append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": body}]}
        )
        answer = f"module_{n} computes values; the run took {n * 3 + 7} ms."
        if n % 10 == 5:
            answer += f" I decided to use a cache instead of recomputing in module_{n}."
        messages.append({"role": "assistant", "content": [{"type": "text", "text": answer}]})
    return messages


def main() -> None:
    messages = history()
    dropped = messages[: DROPPED * 4]
    uuids = [f"uuid-{i:05d}" for i in range(len(dropped))]
    started = time.perf_counter()
    entries = extract_ledger(dropped, uuids)
    text = ledger_text(entries)
    elapsed = (time.perf_counter() - started) * 1000
    size = len(json.dumps(dropped))
    kinds = {
        k: sum(1 for e in entries if e["kind"] == k)
        for k in ("constraint", "decision", "figure", "command", "file")
    }
    print(f"ledger: {DROPPED} dropped turns, {size:,} characters of history")
    print(
        f"ledger: {len(entries)} entries {kinds}; its text {len(text):,} characters ({len(text) / size:.1%} of the history)"
    )
    print(f"ledger: extracted in {elapsed:.1f} ms")


if __name__ == "__main__":
    main()

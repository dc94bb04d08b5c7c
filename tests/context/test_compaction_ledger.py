"""Compaction with a ledger, through the real command: a 40-turn stream-json session against the scripted
server whose turn 3 states a constraint (in the model's answer, so the summary's verbatim user prompts do
not keep it); compaction at turn 20 drops it (the stream says compaction is
coming first, with the window used); the summary message carries the ledger, and at turn 40 the model's
Recall call gets the constraint back word for word. Then /uncompact brings the full history back."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

CONSTRAINT = "The billing service must never call the payments API more than 3 times per minute."
TURNS = 40
COMPACT_AT = 20  # the request of this turn is preceded by the compaction's summary request


def _script() -> list[dict]:
    script: list[dict] = []
    for n in range(1, TURNS + 1):
        if n == COMPACT_AT:
            script.append(
                {"content": "Summary: we worked on the billing service.", "usage": {"input_tokens": 500}}
            )
        if n == TURNS:
            call = {
                "type": "tool_use",
                "id": "toolu_recall",
                "name": "Recall",
                "input": {"query": "payments API per minute"},
            }
            script.append({"content": [call], "usage": {"input_tokens": 3000}})
            script.append({"content": "Found it.", "usage": {"input_tokens": 3100}})
            script.append(
                {"content": "With everything back.", "usage": {"input_tokens": 3200}}
            )  # after /uncompact
            continue
        # the answer before the compaction says the window is nearly full (the collapse threshold)
        used = 9000 if n == COMPACT_AT - 1 else 2000 + 50 * n
        text = f"Ops told us: {CONSTRAINT}" if n == 3 else f"Answer {n}."
        script.append({"content": text, "usage": {"input_tokens": used, "output_tokens": 20}})
    return script


def _prompt(n: int) -> str:
    if n == 3:
        return "What limit did ops give us for the payments API?"
    return f"Step {n}: continue with the billing service."


def test_a_constraint_dropped_by_compaction_is_recalled_word_for_word(project, base_env, home):
    with ScriptedServer(_script()) as srv:
        env = dict(base_env, **anthropic_env(srv), YOKE_AUTOCOMPACT_WINDOW="20000")
        prompts = [*(_prompt(n) for n in range(1, TURNS + 1)), "/uncompact", "And now?"]
        lines = "".join(
            json.dumps({"type": "user", "message": {"role": "user", "content": text}}) + "\n"
            for text in prompts
        )
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "yoke",
                "-p",
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-json",
                "--verbose",
            ],
            cwd=project,
            env=env,
            input=lines,
            capture_output=True,
            text=True,
            timeout=120,
        )
        requests = [r.body for r in srv.requests]
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]

    # the notice comes before the compaction's work, with the window used
    coming = [o for o in out if o.get("subtype") == "status" and o.get("context_tokens")]
    assert coming, [o.get("subtype") for o in out]
    notice = out.index(coming[0])
    boundary = next(i for i, o in enumerate(out) if o.get("subtype") == "compact_boundary")
    assert notice < boundary and coming[0]["context_window"] == 20000 and coming[0]["context_tokens"] >= 9000

    # the compaction request was the summary; the turn after it no longer carries turn 3's answer, but the
    # summary message's ledger quotes it, with the range it came from
    after = requests[COMPACT_AT]
    summary, ledger = after["messages"][0]["content"]
    assert CONSTRAINT not in json.dumps(after["messages"][1:]) and CONSTRAINT not in summary["text"]
    assert ledger["text"].startswith("Ledger of the compacted turns")
    assert f"- constraint: Ops told us: {CONSTRAINT} [" in ledger["text"]
    assert "Recall" in [t["name"] for t in after["tools"]]
    assert "Recall" not in [t["name"] for t in requests[COMPACT_AT - 2]["tools"]]  # offered after compaction

    # turn 40: the model calls Recall; its result holds the constraint word for word
    result = next(
        b
        for o in out
        if o.get("type") == "user"
        for b in o["message"]["content"]
        if isinstance(b, dict) and b.get("tool_use_id") == "toolu_recall"
    )
    text = result["content"] if isinstance(result["content"], str) else result["content"][0]["text"]
    assert CONSTRAINT in text and not result.get("is_error")
    assert "Step 40" in json.dumps(requests[-3]["messages"][-1])

    # /uncompact: the full history is back (it fits the window), so the next request carries turn 3 again
    results = [o for o in out if o.get("type") == "result"]
    assert results[-2]["result"].startswith("Restored the full history") and not results[-2]["is_error"]
    full = json.dumps(requests[-1]["messages"])
    assert f"Ops told us: {CONSTRAINT}" in full and "Ledger of the compacted turns" not in full

    # a resume follows the uncompact record: the full history again
    from yoke.session.store import latest_session, load_conversation

    path = latest_session(project, home / ".yoke")
    assert path is not None
    assert f"Ops told us: {CONSTRAINT}" in json.dumps(load_conversation(path).messages)

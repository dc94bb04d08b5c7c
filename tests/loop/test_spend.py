"""The cache-miss causes `loop/spend.py` reads off two requests' fingerprints, and the usage that counts
as a miss."""

from __future__ import annotations

from yoke.loop.spend import CACHE_TTL_S, SpendTracker, fingerprint, miss_causes
from yoke.providers.base import ToolSpec, Usage

SYSTEM = [
    {"type": "text", "text": "You are Yoke.\nRules..."},
    {"type": "text", "text": "# Environment\ncwd: /x"},
]
TOOLS = [ToolSpec("Read", "read a file", {"type": "object"}), ToolSpec("Bash", "run", {"type": "object"})]


def _kinds(before, now, idle=1.0, compacted=False, kept=True):
    return [(c["kind"], c["detail"]) for c in miss_causes(before, now, idle, compacted, kept)]


def test_each_cause_is_named():
    base = fingerprint("claude-sonnet-4-5", SYSTEM, TOOLS)
    assert _kinds(base, base) == []
    assert _kinds(base, fingerprint("claude-opus-4-1", SYSTEM, TOOLS)) == [
        ("model_switch", "claude-sonnet-4-5 -> claude-opus-4-1")
    ]
    changed = [SYSTEM[0], {"type": "text", "text": "# Environment\ncwd: /y"}]
    assert _kinds(base, fingerprint("claude-sonnet-4-5", changed, TOOLS)) == [
        ("system_prompt", "block 2: # Environment")
    ]
    fewer = fingerprint("claude-sonnet-4-5", SYSTEM, TOOLS[:1])
    assert _kinds(base, fewer) == [("tool_list", "-Bash")]
    described = [TOOLS[0], ToolSpec("Bash", "run a command", {"type": "object"})]
    assert _kinds(base, fingerprint("claude-sonnet-4-5", SYSTEM, described)) == [("tool_list", "~Bash")]
    assert _kinds(base, base, idle=CACHE_TTL_S + 60)[0][0] == "ttl_expired"
    assert _kinds(base, base, compacted=True) == [("compaction", "the history was summarized")]
    assert _kinds(base, base, kept=False)[0][0] == "history_changed"


def test_a_miss_is_a_request_that_reads_little_of_the_previous_prompt_from_the_cache():
    spend = SpendTracker()
    history = [{"role": "user", "content": "hi"}]
    spend.sending("m", SYSTEM, TOOLS, history)
    first = spend.answered(Usage(100, 10, 0, 5000), {"role": "assistant", "content": "a"})
    assert first["cacheMiss"][0]["kind"] == "first_request"
    history += [{"role": "assistant", "content": "a"}, {"role": "user", "content": "more"}]
    spend.sending("m", SYSTEM, TOOLS, history)
    hit = spend.answered(Usage(50, 10, 5100, 0), {"role": "assistant", "content": "b"})
    assert "cacheMiss" not in hit
    history += [{"role": "assistant", "content": "b"}, {"role": "user", "content": "again"}]
    spend.sending("m", SYSTEM, TOOLS[:1], history)
    missed = spend.answered(Usage(5200, 10, 0, 0), {"role": "assistant", "content": "c"})
    assert [c["kind"] for c in missed["cacheMiss"]] == ["tool_list"]
    # a resumed process compares its first request with the transcript's last one
    again = SpendTracker()
    again.resume(
        {"shape": missed["shape"], "sentAt": missed["sentAt"], "promptTokens": missed["promptTokens"]}
    )
    again.sending("m", SYSTEM, TOOLS[:1], history)
    assert "cacheMiss" not in again.answered(Usage(10, 10, 5300, 0), {"role": "assistant", "content": "d"})

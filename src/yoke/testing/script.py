"""Scripts for the scripted server: turns, faults, and loading them from files.

One model request consumes one turn, rendered in whichever wire format the request used:

    {"content": [{"type": "text", "text": "..."},                 # or just "content": "some text"
                 {"type": "thinking", "thinking": "...", "signature": "..."},
                 {"type": "redacted_thinking", "data": "..."},     # Anthropic only
                 {"type": "tool_use", "id": "toolu_01", "name": "Read", "input": {...}},
                 {"type": "tool_use", "name": "Bash", "raw_input": "{\"command\": "}],  # sent verbatim
     "stop_reason": "end_turn" | "tool_use" | "max_tokens" | ...,  # default from the content
     "stop_sequence": None,
     "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 0,
               "cache_creation_input_tokens": 0},                 # defaults estimated from sizes
     "delay": 0.0,                     # seconds between stream frames (once, for non-streaming)
     "interleave_tool_calls": False,   # OpenAI streams: alternate argument fragments between calls
     "block_reason": "SAFETY",         # Gemini: the prompt is blocked (no candidates)
     "fault": {...}}

A fault holds the turn back for its first `times` requests (default 1, or "always"), then the turn is
served (a list of faults applies them one after another, e.g. a broken stream and then 529s): {"status": 429, "retry_after": 1} (also 400 + "prompt_too_long": true, 401, 403, 404, 500, 529; "type"
and "message" override the error body, "should_retry" sets x-should-retry), or, for streaming requests only,
{"cut_after": N}, {"idle_after": N, "idle_seconds": S} or {"stream_error_after": N}.

A turn is written as a plain dict (or JSON); `parse_turn` checks it once, up front, so a typo in a test's
script fails with a message naming the turn instead of as a confusing wire error later.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TurnSource = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]

BLOCK_TYPES = ("text", "thinking", "redacted_thinking", "tool_use")
STREAM_FAULT_KEYS = ("cut_after", "idle_after", "stream_error_after")
FAULT_KEYS = {"status", "retry_after", "times", "prompt_too_long", "type", "message", "should_retry"}
FAULT_KEYS |= set(STREAM_FAULT_KEYS) | {"idle_seconds"}
TURN_KEYS = {"content", "stop_reason", "stop_sequence", "usage", "fault", "delay", "interleave_tool_calls"}
TURN_KEYS |= {"block_reason"}


class ScriptError(ValueError):
    """A turn or script file that cannot be used; the message says what to fix."""


@dataclass(frozen=True, slots=True)
class Fault:
    """What goes wrong for the first `times` requests that reach a turn (`times=None`: every request)."""

    times: int | None = 1
    status: int | None = None
    retry_after: float | None = None
    prompt_too_long: bool = False
    error_type: str | None = None
    message: str | None = None
    should_retry: bool | None = None
    cut_after: int | None = None
    idle_after: int | None = None
    idle_seconds: float = 5.0
    stream_error_after: int | None = None

    @property
    def streaming_only(self) -> bool:
        """Stream faults have nothing to act on in a non-streaming response, so they are skipped there."""
        return self.status is None


@dataclass(frozen=True, slots=True)
class Turn:
    """One scripted model answer, independent of wire format."""

    content: list[dict[str, Any]]
    stop_reason: str
    stop_sequence: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    faults: tuple[Fault, ...] = ()  # applied in order, each to its `times` requests
    delay: float = 0.0
    interleave_tool_calls: bool = False
    block_reason: str | None = None  # Gemini: the prompt itself is blocked (promptFeedback.blockReason)

    @property
    def fault(self) -> Fault | None:
        return self.faults[0] if self.faults else None

    def fault_for(self, served: int) -> Fault | None:
        """The fault for the next request, given how many faulted requests this turn has served."""
        for fault in self.faults:
            if fault.times is None or served < fault.times:
                return fault
            served -= fault.times
        return None

    @property
    def tool_uses(self) -> list[dict[str, Any]]:
        return [b for b in self.content if b["type"] == "tool_use"]


def parse_turn(raw: dict[str, Any], where: str = "turn") -> Turn:
    """Validate one turn dict and fill in its defaults."""
    if not isinstance(raw, dict):
        raise ScriptError(f"{where}: expected an object, got {type(raw).__name__}")
    unknown = set(raw) - TURN_KEYS
    if unknown:
        raise ScriptError(f"{where}: unknown key(s) {sorted(unknown)}; allowed: {sorted(TURN_KEYS)}")
    content = raw.get("content", [])
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        raise ScriptError(f"{where}: 'content' must be a list of blocks or a string")
    blocks = [_parse_block(b, f"{where}.content[{i}]") for i, b in enumerate(content)]
    has_tools = any(b["type"] == "tool_use" for b in blocks)
    stop_reason = raw.get("stop_reason") or ("tool_use" if has_tools else "end_turn")
    usage = raw.get("usage") or {}
    if not isinstance(usage, dict) or not all(isinstance(v, int) for v in usage.values()):
        raise ScriptError(f"{where}: 'usage' must map token counter names to integers")
    delay = raw.get("delay", 0)
    if not isinstance(delay, int | float) or delay < 0:
        raise ScriptError(f"{where}: 'delay' must be a non-negative number of seconds")
    raw_faults = raw.get("fault") or []
    raw_faults = raw_faults if isinstance(raw_faults, list) else [raw_faults]
    faults = tuple(_parse_fault(f, f"{where}.fault[{i}]") for i, f in enumerate(raw_faults))
    return Turn(
        content=blocks,
        stop_reason=str(stop_reason),
        stop_sequence=raw.get("stop_sequence"),
        usage=dict(usage),
        faults=faults,
        delay=float(delay),
        interleave_tool_calls=bool(raw.get("interleave_tool_calls", False)),
        block_reason=raw.get("block_reason"),
    )


def load_script(path: str | Path) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Read turns from a JSON file (a list, or {"turns": [...], "default_turn": {...}}) or a JSONL file.

    Returns (turns, default_turn). Every turn is validated so a bad file fails before serving starts.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScriptError(f"cannot read script {path}: {exc.strerror or exc}") from None
    default_turn = None
    try:
        # json-ours: test harness (the scripted server, side-by-side runs)
        data: Any = json.loads(text)
    except json.JSONDecodeError:
        data = _parse_jsonl(text, path)
    if isinstance(data, dict) and "turns" in data:
        default_turn = data.get("default_turn")
        data = data["turns"]
    elif isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise ScriptError(f"{path}: expected a list of turns or an object with a 'turns' list")
    for i, turn in enumerate(data):
        parse_turn(turn, f"{path}: turn {i}")
    if default_turn is not None:
        parse_turn(default_turn, f"{path}: default_turn")
    return data, default_turn


def _parse_jsonl(text: str, path: Path) -> list[Any]:
    turns = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            # json-ours: test harness (the scripted server, side-by-side runs)
            turns.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ScriptError(f"{path}:{lineno}: not valid JSON or JSONL ({exc.msg})") from None
    return turns


def _parse_block(raw: Any, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict) or raw.get("type") not in BLOCK_TYPES:
        raise ScriptError(f"{where}: a block needs 'type' set to one of {list(BLOCK_TYPES)}")
    block = dict(raw)
    kind = block["type"]
    if kind == "text" and not isinstance(block.get("text"), str):
        raise ScriptError(f"{where}: a text block needs a string 'text'")
    if kind == "thinking":
        if not isinstance(block.get("thinking"), str):
            raise ScriptError(f"{where}: a thinking block needs a string 'thinking'")
        block.setdefault("signature", "")
    if kind == "redacted_thinking" and not isinstance(block.get("data"), str):
        raise ScriptError(f"{where}: a redacted_thinking block needs a string 'data'")
    if kind == "tool_use":
        if not isinstance(block.get("name"), str) or not block["name"]:
            raise ScriptError(f"{where}: a tool_use block needs a 'name'")
        if "raw_input" in block:
            if not isinstance(block["raw_input"], str):
                raise ScriptError(f"{where}: 'raw_input' must be a string (sent verbatim as the JSON)")
        elif not isinstance(block.get("input", {}), dict):
            raise ScriptError(f"{where}: 'input' must be an object (use 'raw_input' for malformed JSON)")
        else:
            block.setdefault("input", {})
    return block


def _parse_fault(raw: Any, where: str) -> Fault:
    if not isinstance(raw, dict):
        raise ScriptError(f"{where}: expected an object")
    unknown = set(raw) - FAULT_KEYS
    if unknown:
        raise ScriptError(f"{where}: unknown key(s) {sorted(unknown)}; allowed: {sorted(FAULT_KEYS)}")
    kinds = [k for k in ("status", *STREAM_FAULT_KEYS) if raw.get(k) is not None]
    if len(kinds) != 1:
        raise ScriptError(f"{where}: give exactly one of 'status', {', '.join(map(repr, STREAM_FAULT_KEYS))}")
    kind = kinds[0]
    if not isinstance(raw[kind], int) or raw[kind] < 0:
        raise ScriptError(f"{where}: '{kind}' must be a non-negative integer")
    times = raw.get("times", 1)
    if times != "always" and (not isinstance(times, int) or times < 1):
        raise ScriptError(f"{where}: 'times' must be a positive integer or \"always\"")
    return Fault(
        times=None if times == "always" else times,
        status=raw.get("status"),
        retry_after=raw.get("retry_after"),
        prompt_too_long=bool(raw.get("prompt_too_long", False)),
        error_type=raw.get("type"),
        message=raw.get("message"),
        should_retry=raw.get("should_retry"),
        cut_after=raw.get("cut_after"),
        idle_after=raw.get("idle_after"),
        idle_seconds=float(raw.get("idle_seconds", 5.0)),
        stream_error_after=raw.get("stream_error_after"),
    )

"""Making one provider's history readable by another: for mid-session model switches and fallbacks.

The history is Anthropic-shaped (see messages.py). Other providers keep their model-bound material in it
too, tagged so everyone can tell whose it is: a thinking block's `signature` (and the `signature` a Gemini
function call or text part carries) is `"<provider>:<opaque>"` for providers other than Anthropic, whose own
signatures stay verbatim (they are base64 and never contain a colon). Opaque material is valid only for the
model that produced it, so a switch drops it:

    convert_history(messages, "gemini")                  # what Gemini can read, nothing it cannot
    switch_provider(messages, from_model=..., to_model=..., to_provider=...)  # the above + a notice

Every wire builder also skips foreign material on its own (so a history that was not converted still
makes a valid request); converting once at the switch keeps the transcript and the token estimates honest
and says what was dropped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from typing import Any

from yoke.messages import Block, Message
from yoke.records import Record, dataclass

FALLBACK_RESULT = "Model fallback triggered"
FAMILIES = {
    "anthropic": "anthropic",
    "bedrock": "anthropic",
    "vertex": "anthropic",
    "foundry": "anthropic",
    "replay": "anthropic",
    "gemini": "gemini",
    "openai-responses": "openai-responses",
    "openai": "openai",
    "grok": "openai",
}
ANTHROPIC_ONLY_BLOCKS = (
    "redacted_thinking",
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
)


def family_of(provider: str) -> str:
    return FAMILIES.get(provider, provider)


def tag_signature(origin: str, opaque: str) -> str:
    return f"{origin}:{opaque}" if opaque else ""


def signature_origin(signature: str) -> str | None:
    """Which provider family made a signature (None for no signature)."""
    if not signature:
        return None
    head, colon, _ = signature.partition(":")
    return head if colon else "anthropic"


def untagged(signature: str, origin: str) -> str | None:
    """The opaque part of a signature made by `origin`, or None when it is someone else's (or absent)."""
    if signature_origin(signature) != origin:
        return None
    return signature if origin == "anthropic" else signature.split(":", 1)[1]


class Conversion(Record):
    __slots__ = ("messages", "dropped")

    messages: list[Message]
    dropped: Counter  # what was removed, by kind

    def summary(self) -> str:
        if not self.dropped:
            return "nothing was dropped"
        names = {
            "thinking": "thinking block",
            "signature": "model-bound signature",
            "redacted_thinking": "redacted thinking block",
            "server_block": "server tool block",
            "dangling": "unanswered tool call (answered now)",
        }
        parts = []
        for kind, count in sorted(self.dropped.items()):
            name = names.get(kind, kind)
            parts.append(f"{count} {name}{'' if count == 1 else 's'}")
        return "dropped " + ", ".join(parts)

    def __init__(self, messages: list[Message], dropped: Counter | None = None) -> None:
        self.messages = messages
        self.dropped = Counter() if dropped is None else dropped


def convert_history(
    messages: list[Message], target: str, *, strip_signatures: bool | Collection[str] = False
) -> Conversion:
    """A copy of `messages` holding only what `target` (a provider or family name) can read.

    `strip_signatures` also drops the target's own model-bound material (a different model of the same
    provider cannot verify it): True drops all of it, a collection only those signatures. Messages that need
    no change are passed through as the same objects.
    """
    family = family_of(target)
    conversion = Conversion([])
    for message in messages:
        if message["role"] != "assistant" or isinstance(message["content"], str):
            conversion.messages.append(message)
            continue
        blocks = [_convert_block(b, family, strip_signatures, conversion.dropped) for b in message["content"]]
        kept = [b for b in blocks if b is not None]
        if len(kept) == len(message["content"]) and all(
            a is b for a, b in zip(kept, message["content"], strict=True)
        ):
            conversion.messages.append(message)
            continue
        if not kept:
            kept = [{"type": "text", "text": "(no content)"}]
        conversion.messages.append({"role": "assistant", "content": kept})
    return conversion


def _convert_block(
    block: Block, family: str, strip_all: bool | Collection[str], dropped: Counter
) -> Block | None:
    kind = block.get("type")
    signature = str(block.get("signature") or block.get("data") or "")
    strip = strip_all is True or (not isinstance(strip_all, bool) and signature in strip_all)
    if kind == "thinking":
        if family == "openai" or strip or signature_origin(signature) != family:
            dropped["thinking"] += 1
            return None
        return block
    if kind in ANTHROPIC_ONLY_BLOCKS and family != "anthropic":
        dropped["redacted_thinking" if kind == "redacted_thinking" else "server_block"] += 1
        return None
    if kind == "redacted_thinking" and strip:
        dropped["redacted_thinking"] += 1
        return None
    foreign = strip or family != "gemini" or signature_origin(signature) != "gemini"
    if "signature" in block and foreign:  # a Gemini function call's or text part's thought signature
        dropped["signature"] += 1
        return {k: v for k, v in block.items() if k != "signature"}
    return block


def answer_dangling(messages: list[Message], text: str = FALLBACK_RESULT) -> tuple[list[Message], int]:
    """Give every tool call that has no result one (an error result saying `text`), so any provider accepts
    the history. Returns the new list and how many calls were answered."""
    from yoke.messages import tool_result_block, tool_uses

    work = list(messages)
    answered = 0
    i = -1
    while i + 1 < len(work):
        i += 1
        message = work[i]
        if message["role"] != "assistant":
            continue
        wanted = [u["id"] for u in tool_uses(message)]
        following = work[i + 1] if i + 1 < len(work) else None
        have = set() if following is None or following["role"] != "user" else _result_ids(following)
        missing = [w for w in wanted if w not in have]
        if not missing:
            continue
        answered += len(missing)
        results = [tool_result_block(w, text, True) for w in missing]
        if following is None or following["role"] != "user":
            work.insert(i + 1, {"role": "user", "content": results})
        else:
            content = following["content"]
            rest = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
            work[i + 1] = {"role": "user", "content": [*results, *rest]}
    return work, answered


def _result_ids(message: Message) -> set[str]:
    content = message["content"]
    if isinstance(content, str):
        return set()
    return {str(b.get("tool_use_id")) for b in content if b.get("type") == "tool_result"}


@dataclass(slots=True, frozen=True)
class Switch:
    messages: list[Message]
    notice: str
    dropped: dict[str, int]


def switch_provider(
    messages: list[Message],
    *,
    from_model: str,
    to_model: str,
    to_provider: str,
    from_provider: str | None = None,
    reason: str | None = None,
) -> Switch:
    """Prepare a history for a different model (and perhaps provider), taking effect on the next request.

    Drops what the new side cannot read (foreign thinking, model-bound signatures), answers tool calls left
    without results, and says what happened in one line for every front-end (`Switch.notice`).
    """
    strip = from_model != to_model
    conversion = convert_history(messages, to_provider, strip_signatures=strip)
    repaired, answered = answer_dangling(conversion.messages)
    if answered:
        conversion.dropped["dangling"] += answered
    where = f" ({from_provider} → {to_provider})" if from_provider and from_provider != to_provider else ""
    head = reason or f"Switched model from {from_model} to {to_model}{where}"
    notice = f"{head}; {conversion.summary()}." if conversion.dropped else f"{head}."
    return Switch(repaired, notice, dict(conversion.dropped))


def sanitize_for_anthropic(messages: list[Any]) -> list[Any]:
    """The Anthropic wire's own guard: drop thinking it cannot verify and other providers' signature keys.
    Returns `messages` itself when there is nothing foreign (the common case, checked cheaply)."""
    if any(foreign_to_anthropic(m) for m in messages):
        return convert_history(messages, "anthropic").messages
    return messages


def foreign_to_anthropic(message: Any) -> bool:
    """Whether an assistant message holds thinking or signatures the Anthropic API would not accept."""
    content = message.get("content")
    return (
        message.get("role") == "assistant"
        and isinstance(content, list)
        and any(_foreign_to_anthropic(b) for b in content)
    )


def _foreign_to_anthropic(block: Block) -> bool:
    if block.get("type") == "thinking":
        return signature_origin(str(block.get("signature") or "")) != "anthropic"
    return "signature" in block


def signatures_in(messages: list[Message]) -> set[str]:
    """Every model-bound signature (thinking, redacted thinking, Gemini parts) in a history."""
    found: set[str] = set()
    for message in messages:
        content = message["content"]
        if message["role"] != "assistant" or isinstance(content, str):
            continue
        for block in content:
            value = block.get("signature") or (
                block.get("data") if block.get("type") == "redacted_thinking" else None
            )
            if value:
                found.add(str(value))
    return found

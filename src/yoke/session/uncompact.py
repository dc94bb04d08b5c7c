"""`/uncompact`: the full history back in place of the compaction summaries, when the window allows.

The transcript keeps every message a compaction summarized away, so the whole conversation (rewinds
applied) can be put back. It is, when its estimate (with the system prompt and tools) stays under the
autocompact threshold: otherwise the next request would compact it again at once. An `uncompact` record
tells a resume to rebuild the full history too (`store.py`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from yoke import events as ev

if TYPE_CHECKING:
    from yoke.session.engine import Session


def uncompact_route(session: Session, prompt: Any) -> AsyncIterator[ev.Event] | None:
    """`/uncompact` sent as a prompt (headless, stream-json, the terminal)."""
    if not isinstance(prompt, str) or prompt.strip() != "/uncompact":
        return None
    return _uncompact(session)


async def _uncompact(session: Session) -> AsyncIterator[ev.Event]:
    import time

    from yoke.skills.builtin_commands import local_result

    started = time.monotonic()
    text, ok = uncompact(session)
    yield local_result(session.agent, text, started, is_error=not ok)


def uncompact(session: Session) -> tuple[str, bool]:
    """Put the full history back; (what happened, whether it was done)."""
    from yoke.providers.tokens import estimate_messages
    from yoke.session.store import load_conversation

    agent = session.agent
    loaded = load_conversation(session.transcript_path, full=True)
    if loaded.compactions == 0 or len(loaded.messages) <= len(agent.messages):
        return "Nothing to uncompact: this conversation has not been compacted.", False
    keeper = agent.keeper
    thresholds = getattr(keeper, "thresholds", None)
    limit = thresholds.autocompact if thresholds is not None else 0
    overhead = int(getattr(keeper, "_overhead", 0))
    needed = estimate_messages(loaded.messages) + overhead
    if limit and needed >= limit:
        return (
            f"The full history needs about {needed:,} tokens; the window allows {limit:,} before it would be "
            "compacted again. Kept compacted.",
            False,
        )
    agent.messages[:] = loaded.messages
    agent.recorder.system(
        {"type": "system", "subtype": "uncompact", "content": "The full history was restored"}
    )
    agent.last_usage = None  # the next request's size is estimated afresh
    return f"Restored the full history: {len(loaded.messages)} messages, about {needed:,} tokens.", True

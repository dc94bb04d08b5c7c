"""A model call with no tools that returns text: what compaction uses to summarize history."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import aclosing
from typing import TYPE_CHECKING

from yoke.messages import Message, text_of, user_message
from yoke.providers import base as pb

if TYPE_CHECKING:
    from yoke.loop.turn import Agent

Summarize = Callable[[list[Message], str], Awaitable[str]]


def make_summarizer(agent: Agent, model: str | None = None) -> Summarize:
    """`summarize(messages, instruction)`: the messages plus the instruction as a last user turn, answered
    by the session's provider (or `model`, e.g. a small fast one) without tools; returns the text."""

    async def summarize(messages: list[Message], instruction: str) -> str:
        history = list(messages)
        if history and history[-1]["role"] == "user":
            last = history.pop()
            content = last["content"]
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
            history.append(user_message([*blocks, {"type": "text", "text": instruction}]))
        else:
            history.append(user_message(instruction))
        request = pb.ModelRequest(
            model=model or agent.settings.model,
            messages=history,
            system=agent.system,
            tools=agent.executor.registry.specs(),  # the history holds tool calls; same tools keep the cache
            max_tokens=min(agent.settings.max_tokens, 20000),
        )
        async with aclosing(agent.provider.stream(request)) as stream:  # closed here, never by the GC
            async for event in stream:
                if isinstance(event, pb.MessageStop):
                    agent.ledger.add(
                        event.model or request.model, event.usage, "compaction", {"agentId": agent.agent_id}
                    )
                    return text_of(event.message)
        raise pb.ProviderError("connection", "the summary request ended without an answer")

    return summarize

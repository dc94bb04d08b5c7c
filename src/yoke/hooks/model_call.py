"""The small-model call prompt hooks make, through the session's own provider.

Claude Code asks a fast model (Haiku unless the hook names one) to judge the hook input; providers without
Claude aliases fall back to the session's model. No tools, no history: one user message in, text out.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import aclosing
from typing import Any

from yoke.hooks.runners import PromptModel

SYSTEM = (
    "You evaluate a hook in a coding agent's lifecycle. Read the hook input and the instruction, then "
    "answer with exactly one JSON object."
)
CLAUDE_PROVIDERS = ("anthropic", "bedrock", "vertex")


def provider_prompt_model(
    provider: Any, provider_name: str, session_model: str, env: Mapping[str, str]
) -> PromptModel:
    from yoke.messages import text_of, user_message
    from yoke.providers import base as pb
    from yoke.providers.select import resolve_model_alias

    def choose(model: str | None) -> str:
        if model:
            return resolve_model_alias(provider_name, model, env)
        if provider_name in CLAUDE_PROVIDERS:
            return resolve_model_alias(provider_name, "haiku", env)
        return session_model

    async def call(prompt: str, model: str | None, timeout: float) -> str:
        request = pb.ModelRequest(
            model=choose(model),
            messages=[user_message(prompt)],
            system=[{"type": "text", "text": SYSTEM}],
            max_tokens=1024,
        )
        async with aclosing(provider.stream(request)) as stream:
            async for event in stream:
                if isinstance(event, pb.MessageStop):
                    return text_of(event.message)
        raise RuntimeError("the model call ended without an answer")

    return call

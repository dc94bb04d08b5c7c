"""The output budget for OpenAI-compatible servers (vLLM, llama.cpp, LM Studio, Ollama, OpenRouter...).

Yoke asks for a generous `max_tokens`; a local server with a small window rejects a request whose prompt
plus that budget does not fit ("maximum context length is 32768 tokens ... you requested 34000"). So:
1. a 400 that says the budget does not fit is answered by asking again with what does fit (once per call,
   only while the budget is worth lowering: a prompt that fills the window stays "Prompt is too long");
   the window comes from the error's own text, else from the server's `/models` listing where it says
   (`max_model_len`, `context_length`, `max_context_length`, `meta.n_ctx_train` ...);
2. the window learnt is remembered, so later requests are sized to fit it from the start.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from yoke.providers.base import ModelRequest, ProviderError

if TYPE_CHECKING:
    from yoke.prefix import PrefixMemo

MIN_OUTPUT_TOKENS = 1024  # below this a smaller budget would not help: the prompt itself is the problem
SAFETY_MARGIN = 256  # the local estimate of the prompt's tokens is rough
WINDOW_KEYS = ("max_model_len", "context_length", "max_context_length", "context_window", "n_ctx",
               "n_ctx_train", "max_input_tokens")  # fmt: skip


def window_from_models(body: Any, model: str) -> int | None:
    """The context window a `/models` listing gives for `model` (None when it does not say)."""
    data = body.get("data") if isinstance(body, dict) else body
    if not isinstance(data, list):
        return None
    entries = [e for e in data if isinstance(e, dict)]
    chosen = next((e for e in entries if e.get("id") == model), None)
    if chosen is None and len(entries) == 1:
        chosen = entries[0]  # a one-model local server often names it differently
    if chosen is None:
        return None
    for scope in (chosen, chosen.get("meta"), chosen.get("top_provider")):
        if isinstance(scope, dict):
            for key in WINDOW_KEYS:
                value = scope.get(key)
                if isinstance(value, int) and value > 0:
                    return value
    return None


def fitted(
    request: ModelRequest, window: int | None, estimates: PrefixMemo[int] | None = None
) -> ModelRequest:
    """The request with its output budget lowered to what the window leaves after the prompt. `estimates`
    (the provider's memo of `estimate_message`) spares re-estimating the history every request."""
    if not window:
        return request
    from yoke.providers.tokens import estimate_json, estimate_message

    if estimates is not None:
        estimates.values(request.messages)
        prompt = estimates.total()
    else:
        prompt = sum(map(estimate_message, request.messages))
    prompt += estimate_json(request.system)
    prompt += sum(estimate_json(t.input_schema) + len(t.description) // 4 for t in request.tools)
    room = window - prompt - SAFETY_MARGIN
    if room >= request.max_tokens or room < MIN_OUTPUT_TOKENS:
        return request
    return request.replace(max_tokens=room)


_MAX_CONTEXT = re.compile(r"maximum context length is (\d+)", re.IGNORECASE)
_PROMPT_TOKENS = re.compile(
    r"(\d+) (?:tokens )?in the messages|(\d+) input tokens|prompt contains (\d+)", re.I
)


def is_budget_rejection(error: ProviderError) -> bool:
    if error.status != 400 and error.kind not in ("prompt_too_long", "invalid_request"):
        return False
    lowered = str(error).lower()
    return any(w in lowered for w in ("max_tokens", "maximum context", "context length", "completion"))


def window_in_error(error: ProviderError) -> int | None:
    match = _MAX_CONTEXT.search(str(error)) if is_budget_rejection(error) else None
    return int(match.group(1)) if match else None


def after_rejection(request: ModelRequest, error: ProviderError, window: int | None) -> ModelRequest | None:
    """A smaller-budget request when `error` says prompt plus budget exceed the window, else None."""
    if not is_budget_rejection(error):
        return None
    prompt = _PROMPT_TOKENS.search(str(error))
    if window and prompt:
        used = int(next(g for g in prompt.groups() if g))
        budget = window - used - SAFETY_MARGIN // 4
    elif window:
        budget = fitted(request, window).max_tokens
    else:
        budget = request.max_tokens // 2
    if budget < MIN_OUTPUT_TOKENS or budget >= request.max_tokens:
        return None
    return request.replace(max_tokens=budget)

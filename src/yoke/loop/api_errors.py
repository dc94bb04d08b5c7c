"""A failed model call as Claude Code shows it: the error's text as the answer of a synthetic assistant
message (model `<synthetic>`, stop reason `stop_sequence`, an `error` kind), and that text as the result."""

from __future__ import annotations

import re

from yoke import events as ev
from yoke.ids import new_uuid, random_hex
from yoke.providers import base as pb

SYNTHETIC_MODEL = "<synthetic>"
SYNTHETIC_STOP_REASON = "stop_sequence"
PROMPT_TOO_LONG = "Prompt is too long"

_ERROR_KINDS = {401: "authentication_failed", 403: "authentication_failed", 404: "model_not_found",
                429: "rate_limit", 529: "overloaded", 400: "invalid_request", 413: "invalid_request"}  # fmt: skip


def error_kind(status: int | None) -> str:
    if status is None:
        return "unknown"
    return _ERROR_KINDS.get(status, "server_error" if status >= 500 else "unknown")


def result_text(error: pb.ProviderError) -> str:
    """The line Claude Code would print for this failure (Yoke's detail kept where Claude Code has none)."""
    text = str(error)
    if error.kind == "prompt_too_long":
        return text if text.lower().startswith(PROMPT_TOO_LONG.lower()) else f"{PROMPT_TOO_LONG}: {text}"
    if error.status is None and error.kind == "authentication":  # no key at all: nothing was sent
        return text if text.startswith("Not logged in") else f"Not logged in · {text}"
    if error.status == 401 or error.kind == "authentication":
        return text if text.startswith(("Invalid API key", "Not logged in")) else f"Invalid API key · {text}"
    if error.status == 529 or error.kind == "overloaded":
        return "API Error: Repeated 529 Overloaded errors"
    if error.status is not None:
        # "The API rejected the request (400): detail" -> "API Error: 400 detail"
        detail = re.sub(r"^[^()]*\(\d{3}\):\s*", "", text)
        return f"API Error: {error.status} {detail}"
    return f"API Error: {text}"


def synthetic_message(text: str, status: int | None) -> ev.AssistantMessage:
    return ev.AssistantMessage(
        {"role": "assistant", "content": [{"type": "text", "text": text}]},
        f"msg_{random_hex(24)}",
        SYNTHETIC_MODEL,
        SYNTHETIC_STOP_REASON,
        pb.Usage(),
        new_uuid(),
        error=error_kind(status),
    )

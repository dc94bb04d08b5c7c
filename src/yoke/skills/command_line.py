"""`/name args` recognised in a prompt. Apart from the expander so that every prompt can be checked without
loading it (and what it imports): most prompts are not commands."""

from __future__ import annotations

import re
from typing import Any

_COMMAND = re.compile(r"^/([A-Za-z0-9_][A-Za-z0-9_.:-]*)(?:[ \t]+(.*))?$", re.S)


def parse_command(prompt: Any) -> tuple[str, str] | None:
    """(name, args) when the prompt is `/name [args]`, else None."""
    text = _prompt_text(prompt)
    if text is None:
        return None
    match = _COMMAND.match(text.strip())
    if not match:
        return None
    return match.group(1), (match.group(2) or "").strip()


def _prompt_text(prompt: Any) -> str | None:
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], dict):
        block = prompt[0]
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            return block["text"]
    return None

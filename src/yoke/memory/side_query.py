"""Recall by a side query to a model (Claude Code's way), the option to the full-text index.

`"autoMemoryRecall": "model"` in settings: before each prompt, one small request (no tools, 256 output
tokens) shows the model the prompt and every memory's file name, name, type and description, and asks for
the file names of at most 5 that clearly help, as JSON. Memories already surfaced in the session and
expired ones are not offered. `autoMemoryRecallModel` picks the model (default: the session's). A request
that fails or answers nonsense falls back to the index. It costs a model round trip per prompt; the
index costs about two milliseconds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from yoke.jsonsafe import loads as safe_json
from yoke.memory.recall import MAX_RESULTS, Hit
from yoke.memory.store import Memory

SYSTEM = """\
You select memories for a coding agent. Given the user's request and a list of saved memories (file, name, \
type, description), answer with the files of at most 5 memories that would clearly help with this request, \
most useful first. Leave out memories that are only loosely related; an empty list is a good answer. \
Answer with one JSON object and nothing else: {"memories": ["file.md", ...]}"""


def selection_prompt(prompt: str, memories: Iterable[Memory], root: str) -> str:
    lines = []
    for memory in memories:
        rel = (
            memory.path.as_posix()[len(root) + 1 :]
            if memory.path.as_posix().startswith(root)
            else memory.path.name
        )
        lines.append(
            json.dumps(
                {"file": rel, "name": memory.name, "type": memory.type, "description": memory.description}
            )
        )
    return f"<request>\n{prompt}\n</request>\n\n<memories>\n" + "\n".join(lines) + "\n</memories>"


def parse_selection(text: str, offered: dict[str, Memory]) -> list[Memory] | None:
    """The chosen memories, in order (None when the answer is not the JSON asked for)."""
    match = re.search(r"\{.*\}", text, re.DOTALL)
    if not match:
        return None
    try:
        data = safe_json(match.group(0))
    except json.JSONDecodeError:
        return None
    files = data.get("memories") if isinstance(data, dict) else None
    if not isinstance(files, list):
        return None
    chosen = [offered[f] for f in dict.fromkeys(f for f in files if isinstance(f, str)) if f in offered]
    return chosen[:MAX_RESULTS]


async def model_recall(
    agent: Any, model: str | None, prompt: str, memories: list[Memory], root: str
) -> list[Hit] | None:
    """Ask the model; None when the request fails or its answer cannot be used."""
    from yoke.messages import text_of, user_message
    from yoke.providers import base as pb

    if not memories:
        return []
    offered = {m.path.as_posix()[len(root) + 1 :]: m for m in memories}
    request = pb.ModelRequest(
        model=model or agent.settings.model,
        messages=[user_message(selection_prompt(prompt, memories, root))],
        system=[{"type": "text", "text": SYSTEM}],
        max_tokens=256,
    )
    answer = None
    try:
        async for event in agent.provider.stream(request):
            if isinstance(event, pb.MessageStop):
                agent.ledger.add(event.model or request.model, event.usage, "memory_selection")
                answer = text_of(event.message)
    except pb.ProviderError:
        return None
    chosen = parse_selection(answer or "", offered)
    if chosen is None:
        return None
    return [Hit(m.path, m.name, m.description, m.type, m.body, 0.0) for m in chosen]

"""The prompts a session accepted but never began: its transcript's `queue-operation` records (an `enqueue`
per accepted prompt, a `dequeue` when its turn began, as Claude Code writes them), read back for a resume."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from yoke.session.transcript import load_records


def pending_prompts(path: Path) -> list[Any]:
    """The contents of the prompts enqueued and not dequeued, oldest first (the queue is first in, first out)."""
    queue: list[Any] = []
    for record in load_records(path):
        if record.get("type") != "queue-operation":
            continue
        if record.get("operation") == "enqueue" and "content" in record:
            queue.append(record["content"])
        elif record.get("operation") == "dequeue" and queue:
            queue.pop(0)
    return queue

"""What a typed message becomes: collapsed pastes expanded, image file paths attached as images."""

from __future__ import annotations

import base64
import os
import re
import shlex
from typing import Any

PASTE_LINES = 12  # a paste longer than this is shown as one placeholder line
PASTE_CHARS = 2000
MAX_IMAGE_BYTES = 5 * 1024 * 1024
IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
PLACEHOLDER = re.compile(r"\[Pasted text #(\d+) \+\d+ lines\]")


class Pastes:
    def __init__(self) -> None:
        self.items: dict[int, str] = {}

    def collapse(self, text: str) -> str:
        """The text to insert for a paste: itself, or a placeholder for a long one."""
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = len(text.splitlines()) or 1  # 50 lines ending in a newline are 50, not 51
        if lines <= PASTE_LINES and len(text) <= PASTE_CHARS:
            return text
        number = len(self.items) + 1
        self.items[number] = text
        return f"[Pasted text #{number} +{lines} lines]"

    def expand(self, text: str) -> str:
        expanded = PLACEHOLDER.sub(lambda m: self.items.get(int(m.group(1)), m.group(0)), text)
        self.items.clear()
        return expanded


def with_images(text: str, cwd: str) -> str | list[dict[str, Any]]:
    """The prompt, with any existing image file named in it (a path dragged or pasted into the terminal)
    attached as an image block; the text alone when there is none."""
    try:
        words = shlex.split(text, posix=True)
    except ValueError:
        words = text.split()
    blocks: list[dict[str, Any]] = []
    for word in words:
        kind = IMAGE_TYPES.get(os.path.splitext(word)[1].lower())
        if kind is None:
            continue
        path = os.path.expanduser(word.removeprefix("@"))
        path = path if os.path.isabs(path) else os.path.join(cwd, path)
        try:
            if os.path.getsize(path) > MAX_IMAGE_BYTES:
                continue
            with open(path, "rb") as handle:
                data = base64.b64encode(handle.read()).decode("ascii")
        except OSError:
            continue
        blocks.append({"type": "image", "source": {"type": "base64", "media_type": kind, "data": data}})
    if not blocks:
        return text
    return [*blocks, {"type": "text", "text": text}]

"""Completion in the prompt: `/` commands with their descriptions, `@` file paths."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from prompt_toolkit.completion import Completer, Completion
from prompt_toolkit.document import Document

MAX_PATHS = 50
SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".pytest_cache"}


class PromptCompleter(Completer):
    def __init__(self, ui: Any):
        self.ui = ui

    def get_completions(self, document: Document, complete_event: Any) -> Iterator[Completion]:
        text = document.text_before_cursor
        if text.startswith("/") and " " not in text and "\n" not in text:
            yield from self._commands(text[1:])
            return
        word = text.split()[-1] if text and not text[-1].isspace() else ""
        if word.startswith("@"):
            yield from self._paths(word[1:])

    def _commands(self, typed: str) -> Iterator[Completion]:
        from yoke.ui.commands import command_table

        for name, description in command_table(self.ui.cwd, self.ui.session_commands):
            if name.startswith(typed):
                # A fully typed name completes to itself plus a space: a completion that adds nothing is
                # dropped by prompt_toolkit, and the entry (with its description) would vanish from the menu.
                value = "/" + name + (" " if name == typed else "")
                yield Completion(
                    value, start_position=-len(typed) - 1, display="/" + name, display_meta=description
                )

    def _paths(self, typed: str) -> Iterator[Completion]:
        root = Path(self.ui.cwd)
        folder, _, stem = typed.rpartition("/")
        base = (root / folder) if folder else root
        try:
            entries = sorted(os.scandir(base), key=lambda e: e.name)
        except OSError:
            return
        shown = 0
        for entry in entries:
            if not entry.name.startswith(stem) or entry.name in SKIP_DIRS:
                continue
            if entry.name.startswith(".") and not stem.startswith("."):
                continue
            is_dir = entry.is_dir(follow_symlinks=True)
            value = f"{folder + '/' if folder else ''}{entry.name}{'/' if is_dir else ''}"
            yield Completion("@" + value, start_position=-len(typed) - 1, display=value)
            shown += 1
            if shown >= MAX_PATHS:
                return

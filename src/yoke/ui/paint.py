"""Rich renderables to ANSI text, at the terminal's width and colour depth (NO_COLOR and dumb terminals
get plain text). One console is reused: building a Console per render costs more than the render."""

from __future__ import annotations

import io
import os
from typing import Any


class Painter:
    def __init__(self, width: int = 80, env: dict[str, str] | None = None):
        env = dict(os.environ if env is None else env)
        self.no_color = bool(env.get("NO_COLOR")) or env.get("TERM") == "dumb"
        self.dumb = env.get("TERM") == "dumb"
        self._truecolor = "truecolor" in env.get("COLORTERM", "")
        self._width = max(20, width)
        self._buffer = io.StringIO()
        self._console: Any = None  # made at the first render: rich is not needed to draw the first prompt

    @property
    def console(self) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(
                file=self._buffer,
                force_terminal=not self.dumb,
                no_color=self.no_color,
                color_system=None if self.dumb else "truecolor" if self._truecolor else "256",
                width=self._width,
                highlight=False,
                emoji=False,
                legacy_windows=False,
                soft_wrap=False,
            )
        return self._console

    @property
    def width(self) -> int:
        return self._width

    def resize(self, width: int) -> None:
        self._width = max(20, width)
        if self._console is not None:
            self._console.width = self._width

    def ansi(self, *renderables: Any, width: int | None = None) -> str:
        """Render to a string of ANSI text ending with a newline."""
        if width is not None and width != self.console.width:
            saved, self.console.width = self.console.width, max(20, width)
        else:
            saved = None
        self._buffer.seek(0)
        self._buffer.truncate()
        try:
            for item in renderables:
                self.console.print(item)
        finally:
            if saved is not None:
                self.console.width = saved
        return self._buffer.getvalue()

    def markdown(self, text: str, width: int | None = None) -> str:
        if not text.strip():
            return ""
        from rich.markdown import Markdown  # markdown_it and pygments: not needed for the first prompt

        return self.ansi(Markdown(text, code_theme="monokai", hyperlinks=False), width=width)

    def line(self, text: Any, style: str = "") -> str:
        from rich.text import Text

        return self.ansi(Text(text, style=style) if isinstance(text, str) else text)

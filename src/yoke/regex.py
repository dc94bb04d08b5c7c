"""`lazy_compile`: a module-level regular expression compiled on first use.

Compiling a pattern costs a tenth of a millisecond or more, and start-up compiled dozens that a run mostly
never uses (front matter, command expansion, MCP configuration, summaries). The stand-in compiles on its
first method call and then delegates; it is for patterns used through their methods (`X.match(...)`), not
passed to `re` functions.
"""

from __future__ import annotations

import re
from typing import Any


class _LazyPattern:
    __slots__ = ("_source", "_flags", "_compiled")

    def __init__(self, source: str, flags: int) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:  # match, search, sub, fullmatch, pattern, ...
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self._source, self._flags)
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_compile({self._source!r})"


def lazy_compile(source: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(source, flags)`, done when the pattern is first used."""
    return _LazyPattern(source, flags)  # type: ignore[return-value]

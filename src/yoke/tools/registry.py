"""The tool registry the loop receives: lookup by current or legacy name, and the specs the model sees."""

from __future__ import annotations

from collections.abc import Iterable

from yoke.providers.base import ToolSpec
from yoke.tools.base import Tool


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool] = ()):
        self._tools: dict[str, Tool] = {}
        self._aliases: dict[str, str] = {}
        self._specs: list[ToolSpec] | None = None
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        self._tools[tool.name] = tool
        for alias in tool.aliases:
            self._aliases[alias] = tool.name
        self._specs = None

    def remove(self, name: str) -> None:
        tool = self.get(name)
        if tool is None:
            return
        del self._tools[tool.name]
        self._aliases = {a: n for a, n in self._aliases.items() if n != tool.name}
        self._specs = None

    def get(self, name: str) -> Tool | None:
        """The tool called `name`, accepting legacy aliases (e.g. BashOutput -> TaskOutput)."""
        tool = self._tools.get(name)
        if tool is None and name in self._aliases:
            tool = self._tools.get(self._aliases[name])
        return tool

    def names(self) -> list[str]:
        return list(self._tools)

    def __iter__(self):
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def refresh(self) -> None:
        """Recompute the specs on next use (a tool's schema, description or deferral changed)."""
        self._specs = None

    def specs(self) -> list[ToolSpec]:
        """The tools as the model sees them (computed once; schema generation is not free). A deferred tool
        (tool search) is known to the model by name only until ToolSearch loads it."""
        if self._specs is None:
            searchable = "ToolSearch" in self._tools  # without it a deferred tool could never be loaded
            self._specs = [
                ToolSpec(t.name, t.description, t.input_schema())
                for t in self._tools.values()
                if not (searchable and is_deferred(t))
            ]
        return self._specs


def is_deferred(tool: Tool) -> bool:
    """Set on a tool's instance (MCP tools, `tools/search.py`); read without `getattr`, which would make a
    lazy built-in load."""
    return bool(vars(tool).get("deferred", False)) if hasattr(tool, "__dict__") else False

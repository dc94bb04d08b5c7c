"""When MCP tools are deferred behind tool search (`yoke.tools.search`): with many MCP tools only their
names reach the model, and `ToolSearch` loads a tool's full schema on demand. `ENABLE_TOOL_SEARCH`: `true`
always defers MCP tools, `false` never, unset or `auto` defers once their schemas pass 10% of the context
window (`auto:N` for N%).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from yoke.tools.search import ToolSearch

__all__ = ["ToolSearch", "schema_tokens", "should_defer"]

CONTEXT_TOKENS = 200_000
DEFAULT_PERCENT = 10


def schema_tokens(tools: list[Any]) -> int:
    return sum(len(t.name) + len(t.description) + len(json.dumps(t.input_schema())) for t in tools) // 4


def should_defer(tools: list[Any], env: Mapping[str, str]) -> bool:
    setting = (env.get("ENABLE_TOOL_SEARCH") or "auto").strip().lower()
    if setting in ("false", "0", "no", "off"):
        return False
    if setting in ("true", "1", "yes", "on"):
        return True
    percent = DEFAULT_PERCENT
    if setting.startswith("auto:"):
        try:
            percent = max(0, int(setting[5:]))
        except ValueError:
            pass
    return schema_tokens(tools) > CONTEXT_TOKENS * percent / 100

"""Yoke's built-in tools. Each module defines one tool or a small family; `builtin_tools()` builds them all."""

from __future__ import annotations

from yoke.tools.base import Tool


def builtin_tools() -> list[Tool]:
    """One instance of every built-in tool, in the order the model sees them."""
    from yoke.tools.builtin.ask import AskUserQuestionTool
    from yoke.tools.builtin.bash import BashTool
    from yoke.tools.builtin.edit import EditTool, MultiEditTool
    from yoke.tools.builtin.glob import GlobTool
    from yoke.tools.builtin.grep import GrepTool
    from yoke.tools.builtin.plan import ExitPlanModeTool
    from yoke.tools.builtin.read import ReadTool
    from yoke.tools.builtin.tasks import TaskOutputTool, TaskStopTool
    from yoke.tools.builtin.todo import TodoWriteTool
    from yoke.tools.builtin.web_fetch import WebFetchTool
    from yoke.tools.builtin.web_search import WebSearchTool
    from yoke.tools.builtin.write import WriteTool

    return [
        BashTool(),
        GlobTool(),
        GrepTool(),
        ReadTool(),
        EditTool(),
        MultiEditTool(),
        WriteTool(),
        TaskOutputTool(),
        TaskStopTool(),
        WebFetchTool(),
        WebSearchTool(),
        TodoWriteTool(),
        AskUserQuestionTool(),
        ExitPlanModeTool(),
    ]

"""Yoke's built-in tools. Each module defines one tool or a small family; `builtin_tools()` builds them all.

Tools come as lazy stand-ins built from `manifest.json` (see `yoke.tools.lazy`), so a run imports a tool's
module, and pydantic, only once the model calls it. After changing a tool, regenerate the manifest with
`python -m yoke.tools.builtin.manifest` (a test checks it is current; a stale one just loads eagerly).
"""

from __future__ import annotations

from pathlib import Path

from yoke.tools.base import Tool

MANIFEST = Path(__file__).with_name("manifest.json")

# (module, class), in the order the model sees the tools.
BUILTIN_TOOLS: tuple[tuple[str, str], ...] = (
    ("yoke.tools.builtin.bash", "BashTool"),
    ("yoke.tools.builtin.glob", "GlobTool"),
    ("yoke.tools.builtin.grep", "GrepTool"),
    ("yoke.tools.builtin.read", "ReadTool"),
    ("yoke.tools.builtin.edit", "EditTool"),
    ("yoke.tools.builtin.edit", "MultiEditTool"),
    ("yoke.tools.builtin.write", "WriteTool"),
    ("yoke.tools.builtin.notebook", "NotebookEditTool"),
    ("yoke.tools.builtin.tasks", "TaskOutputTool"),
    ("yoke.tools.builtin.tasks", "TaskStopTool"),
    ("yoke.tools.builtin.monitor", "MonitorTool"),
    ("yoke.tools.builtin.cron", "CronCreateTool"),
    ("yoke.tools.builtin.cron", "CronDeleteTool"),
    ("yoke.tools.builtin.cron", "CronListTool"),
    ("yoke.tools.builtin.cron", "ScheduleWakeupTool"),
    ("yoke.tools.builtin.report_findings", "ReportFindingsTool"),
    ("yoke.tools.builtin.push_notification", "PushNotificationTool"),
    ("yoke.tools.builtin.web_fetch", "WebFetchTool"),
    ("yoke.tools.builtin.web_search", "WebSearchTool"),
    ("yoke.tools.builtin.todo", "TodoWriteTool"),
    ("yoke.tools.builtin.ask", "AskUserQuestionTool"),
    ("yoke.tools.builtin.plan", "ExitPlanModeTool"),
)


def builtin_tools(lazy: bool = True) -> list[Tool]:
    """One instance of every built-in tool, in the order the model sees them."""
    if lazy:
        from yoke.tools.lazy import LazyTool, load_manifest

        entries = load_manifest(MANIFEST)
        if entries is not None and [(e["module"], e["class"]) for e in entries] == list(BUILTIN_TOOLS):
            return [LazyTool(e) for e in entries]
    return eager_tools()


def eager_tools() -> list[Tool]:
    import importlib

    return [getattr(importlib.import_module(module), cls)() for module, cls in BUILTIN_TOOLS]

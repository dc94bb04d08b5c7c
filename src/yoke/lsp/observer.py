"""The file tools' calls, as the language servers need to hear of them: a Read warms the file's server, an
edit (Edit, MultiEdit, Write, NotebookEdit: any call of kind "edit") notes the diagnostics before and reports
the new ones after, appended to its result; the terminal gets a one-line summary (a `diagnostics` notice)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from yoke.lsp.diagnostics import FileReport, model_note, summary
from yoke.lsp.manager import LspManager


class LspObserver:
    def __init__(self, manager: LspManager) -> None:
        self.manager = manager

    def _paths(self, tool: Any, input: dict[str, Any], ctx: Any) -> list[Path]:
        out = []
        for raw in tool.paths(input):
            path = Path(os.path.expanduser(raw))
            path = path if path.is_absolute() else Path(ctx.cwd) / path
            resolved = path.resolve()
            if self.manager.spec_for(resolved) is not None:
                out.append(resolved)
        return out

    # the sync seam every observer has
    def before_change(self, tool: Any, input: dict[str, Any], ctx: Any) -> None:
        return None

    def after_success(self, tool: Any, input: dict[str, Any], ctx: Any) -> str | None:
        if getattr(tool, "kind", "") == "read":
            for path in self._paths(tool, input, ctx):
                self.manager.touch(path)
        return None

    # the async seam (loop/calls.py ChangeReviewer)
    async def prepare_change(self, tool: Any, input: dict[str, Any], ctx: Any) -> None:
        if getattr(tool, "kind", "") != "edit":
            return
        for path in self._paths(tool, input, ctx):
            await self.manager.before_edit(path)

    async def review_change(self, tool: Any, input: dict[str, Any], ctx: Any) -> str | None:
        if getattr(tool, "kind", "") != "edit":
            return None
        reports: list[FileReport] = []
        for path in self._paths(tool, input, ctx):
            report = await self.manager.after_edit(path)
            if report is not None:
                reports.append(report)
        line = summary(reports)
        if line and ctx.emit is not None:
            from yoke.events import Notice

            ctx.emit(Notice("diagnostics", line, {"tool_use_id": ctx.tool_use_id}))
        return model_note(reports, Path(ctx.cwd), self.manager.diagnostics.max_items) or None

"""The terminal's one line under an edit: the observer says it as a `diagnostics` notice before the edit's
result, and the conversation view prints it under that result; stream-json writes no line for it."""

from __future__ import annotations

import asyncio
import os
import sys

from tests.lsp.conftest import FAKE

from yoke import events as ev
from yoke.lsp.config import ServerSpec
from yoke.lsp.manager import DiagnosticsSettings, LspManager
from yoke.lsp.observer import LspObserver
from yoke.tools.base import SessionState, ToolContext
from yoke.tools.builtin.write import WriteTool
from yoke.ui.paint import Painter
from yoke.ui.view import ConversationView
from yoke.wire.shapes import SILENT_NOTICES


async def test_an_edit_gets_one_line_under_its_result(tmp_path):
    spec = ServerSpec("fake", sys.executable, [str(FAKE), "marker"], {".fk": "fake"})
    manager = LspManager([spec], [tmp_path], dict(os.environ), DiagnosticsSettings(wait_ms=10_000))
    observer = LspObserver(manager)
    events: list[ev.Event] = []
    ctx = ToolContext(cwd=tmp_path, session=SessionState("s", tmp_path), tool_use_id="t1", emit=events.append)
    path = tmp_path / "b.fk"
    input = {"file_path": str(path), "content": "BROKEN\n"}
    try:
        await observer.prepare_change(WriteTool(), input, ctx)
        path.write_text("BROKEN\n")
        note = await observer.review_change(WriteTool(), input, ctx)
    finally:
        await manager.close()
    assert note is not None and "b.fk:\n  \u2718 [Line 1:1] broken here [E1] (fake)" in note
    (notice,) = [e for e in events if isinstance(e, ev.Notice)]
    assert notice.kind == "diagnostics" and notice.message == "1 new error: broken here"
    assert "diagnostics" in SILENT_NOTICES

    out: list[str] = []
    view = ConversationView(Painter(80, {"TERM": "dumb"}), out.append, str(tmp_path))
    view.on_event(ev.ToolCallCompleted("t1", "Write", input))
    view.on_event(notice)
    assert "LSP" not in "".join(out)  # held until the result is shown
    view.on_event(
        ev.ToolResultEvent("t1", "Write", {"type": "tool_result", "tool_use_id": "t1", "content": "ok"})
    )
    text = "".join(out)
    assert text.index("Write(") < text.index("LSP: 1 new error: broken here")
    await asyncio.sleep(0)

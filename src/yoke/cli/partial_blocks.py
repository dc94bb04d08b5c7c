"""Under `--include-partial-messages`, Claude Code writes each `assistant` line the moment its content block
ends (just before the block's `content_block_stop` stream event, as 2.1.330 does), not when the whole API
message is done. This assembles each block from the raw stream so the printer can do the same."""

from __future__ import annotations

from typing import Any

from yoke.jsonsafe import loads as safe_json
from yoke.providers import base as pb


class BlockAssembler:
    def __init__(self) -> None:
        self.message_id = ""
        self.model = ""
        self.usage: dict[str, Any] = {}
        self._blocks: dict[int, dict[str, Any]] = {}
        self._json: dict[int, list[str]] = {}
        self.written: dict[str, int] = {}  # message id -> blocks already written as assistant lines

    def feed(self, event: pb.ProviderEvent) -> dict[str, Any] | None:
        """The finished block when `event` ends one, else None."""
        if isinstance(event, pb.MessageStart):
            self.message_id, self.model, self.usage = event.id, event.model, event.usage.as_dict()
            self._blocks, self._json = {}, {}
        elif isinstance(event, pb.BlockStart):
            self._blocks[event.index] = dict(event.block)
            self._json[event.index] = []
        elif isinstance(event, pb.TextDelta):
            self._add(event.index, "text", event.text)
        elif isinstance(event, pb.ThinkingDelta):
            self._add(event.index, "thinking", event.thinking)
        elif isinstance(event, pb.SignatureDelta):
            self._add(event.index, "signature", event.signature)
        elif isinstance(event, pb.ToolInputDelta):
            self._json.setdefault(event.index, []).append(event.partial_json)
        elif isinstance(event, pb.BlockStop):
            return self._finish(event.index)
        return None

    def _add(self, index: int, key: str, text: str) -> None:
        block = self._blocks.setdefault(index, {"type": "text" if key == "text" else "thinking"})
        block[key] = str(block.get(key) or "") + text

    def _finish(self, index: int) -> dict[str, Any] | None:
        block = self._blocks.pop(index, None)
        if block is None:
            return None
        raw = "".join(self._json.pop(index, []))
        if block.get("type") in ("tool_use", "server_tool_use") and raw:
            try:
                block["input"] = safe_json(raw)
            except ValueError:
                block["input"] = {}
        self.written[self.message_id] = self.written.get(self.message_id, 0) + 1
        return block

    def already_written(self, message_id: str) -> int:
        return self.written.pop(message_id, 0)

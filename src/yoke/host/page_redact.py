"""The remote page (and a share link) sees what a session shows with its secrets masked (`yoke.redact`, the
one redactor the export and telemetry use too): every message the host sends a page passes through
`PageClient.send`. A permission prompt's input is masked as well; when the page answers it with the input
it was shown (`updatedInput`, "allow always"), the input as the tool asked is put back, so a masked value is
never what runs."""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any

from yoke import jsonsafe
from yoke.host.websocket import WebSocketClient
from yoke.redact import redact_value

KEPT_INPUTS = 256  # permission prompts whose real input is remembered for the answer


class PageClient(WebSocketClient):
    def __init__(self, ws: Any, limit: int):
        super().__init__(ws, limit)
        self.inputs: OrderedDict[str, tuple[Any, Any]] = OrderedDict()  # request id -> (real, shown)

    def send(self, data: bytes) -> bool:
        if _may_hold_secrets(data):
            try:
                message = jsonsafe.loads(data)
            except ValueError:
                return super().send(data)
            self._remember(message)
            data = (json.dumps(redact_value(message), separators=(",", ":")) + "\n").encode()
        return super().send(data)

    def _remember(self, value: Any) -> None:
        """Every permission prompt's input in `value` (a stream message, an attach's `pending`)."""
        if isinstance(value, dict):
            request = value.get("request")
            if isinstance(value.get("request_id"), str) and isinstance(request, dict) and "input" in request:
                real = request["input"]
                shown = redact_value(real)
                if shown != real:
                    self.inputs[value["request_id"]] = (real, shown)
                    while len(self.inputs) > KEPT_INPUTS:
                        self.inputs.popitem(last=False)
            for item in value.values():
                self._remember(item)
        elif isinstance(value, list):
            for item in value:
                self._remember(item)

    def restore(self, text: str) -> str:
        """A page's request with the real input put back where it answers a prompt with the input shown."""
        if not self.inputs or '"updatedInput"' not in text:
            return text
        try:
            message = jsonsafe.loads(text)
            params = message["payload"]["params"]
            answer = params["response"] if "response" in params else params["op"]
            kept = self.inputs.get(str(params.get("request_id") or answer.get("request_id")))
        except (ValueError, KeyError, TypeError, AttributeError):
            return text
        if kept is None or answer.get("updatedInput") != kept[1]:
            return text
        answer["updatedInput"] = kept[0]
        return json.dumps(message)


def _may_hold_secrets(data: bytes) -> bool:
    """A cheap look before the full parse: most messages (deltas of plain text) hold nothing to mask."""
    from yoke.redact import redact_text

    text = data.decode("utf-8", "replace")
    return redact_text(text) != text

"""An incremental server-sent events parser (the framing both model APIs stream in).

Follows the WHATWG event-stream rules that matter for model APIs: lines end in LF, CRLF or CR (a CRLF may be
split across network chunks), `data:` lines accumulate joined by newlines, lines starting with `:` are comments
(keep-alives), one leading space after the colon is dropped, and an event is dispatched at a blank line. An
event still being built when the stream ends is discarded, as the rules say: it may be cut mid-line.
"""

from __future__ import annotations

from yoke.records import Record


class SSEEvent(Record):
    __slots__ = ("event", "data")

    def __init__(self, event: str, data: str) -> None:
        self.event = event  # "message" when the server named none
        self.data = data


def is_keepalive(event: SSEEvent) -> bool:
    """A ping: the server saying it is alive, not progress. A wait bounded by progress ignores it (a server
    that only pings must still reach the deadline); comments never become events at all."""
    return event.event == "ping"


class SSEParser:
    def __init__(self) -> None:
        self._pending = ""  # text after the last complete line
        self._event = ""
        self._data: list[str] = []

    def feed(self, text: str) -> list[SSEEvent]:
        """Take the next chunk of the stream; return the events it completes."""
        buffer = self._pending + text
        if "\r" not in buffer:  # what model APIs send: LF only, split at C speed
            lines = buffer.split("\n")
            self._pending = lines.pop()
            return self._lines(lines)
        lines = []
        start = 0
        length = len(buffer)
        while start < length:
            newline = _next_line_end(buffer, start)
            if newline < 0:
                break
            end = newline
            if buffer[newline] == "\r":
                if newline + 1 == length:
                    break  # a lone CR at the chunk edge may be the first half of CRLF: wait for more
                if buffer[newline + 1] == "\n":
                    newline += 1
            lines.append(buffer[start:end])
            start = newline + 1
        self._pending = buffer[start:]
        return self._lines(lines)

    def close(self) -> list[SSEEvent]:
        """The stream ended: finish a line cut by a trailing CR; a half-built event is dropped."""
        events = self._lines([self._pending[:-1]]) if self._pending.endswith("\r") else []
        self._pending = ""
        self._event, self._data = "", []
        return events

    def _lines(self, lines: list[str]) -> list[SSEEvent]:
        events: list[SSEEvent] = []
        for line in lines:
            if not line:
                if self._data:
                    events.append(SSEEvent(self._event or "message", "\n".join(self._data)))
                self._event, self._data = "", []
            elif line[0] != ":":  # a comment (keep-alive) otherwise
                name, colon, value = line.partition(":")
                if colon and value[:1] == " ":
                    value = value[1:]
                if name == "data":
                    self._data.append(value)
                elif name == "event":
                    self._event = value
                # `id` and `retry` steer browser reconnection, which model clients do not do.
        return events


def _next_line_end(text: str, start: int) -> int:
    lf = text.find("\n", start)
    cr = text.find("\r", start)
    if cr < 0:
        return lf
    if lf < 0:
        return cr
    return min(lf, cr)

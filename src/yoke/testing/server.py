"""A local HTTP server that answers like the Anthropic, OpenAI and Gemini APIs, from a script.

Each model request consumes the next scripted turn and gets it back in the wire format it asked in
(Anthropic Messages, OpenAI Chat Completions, the OpenAI Responses API or Gemini `generateContent`,
streaming or not). Every request is recorded, and turns can
inject faults (error statuses, cut or stalled streams, mid-stream errors) to exercise a client's recovery.
"""

from __future__ import annotations

import copy
import json
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from typing import Any, Literal

from yoke.testing.body import as_dict
from yoke.testing.script import Fault, Turn, TurnSource, parse_turn

WireFormat = Literal["anthropic", "openai", "gemini", "responses"]


class RecordedRequest:
    """One request as received. The body is kept as sent and parsed when first read: a long session's
    requests, held parsed, made every garbage collection walk millions of objects (the server's own cost grew
    with the square of the session's length)."""

    __slots__ = ("method", "path", "headers", "format", "_raw", "_body")

    def __init__(
        self, method: str, path: str, headers: dict[str, str], raw: bytes | None, format: WireFormat
    ) -> None:
        self.method = method
        self.path = path
        self.headers = headers  # keys lowercased
        self.format = format
        self._raw = raw
        self._body: Any = None

    @property
    def body(self) -> dict[str, Any] | None:
        """The JSON object sent, or None (no body, or not a JSON object: the handler keeps only objects)."""
        if self._raw is not None:
            # json-ours: test harness (the scripted server, side-by-side runs)
            self._body, self._raw = json.loads(self._raw), None
        return self._body

    @property
    def stream(self) -> bool:
        return ":streamGenerateContent" in self.path or bool(self.body and self.body.get("stream"))

    def as_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "path": self.path,
            "headers": dict(self.headers),
            "body": copy.deepcopy(self.body),
            "format": self.format,
        }

    def __repr__(self) -> str:
        return f"RecordedRequest({self.method} {self.path}, {self.format})"


@dataclass(frozen=True, slots=True)
class Reply:
    """What one model request gets: a turn (perhaps with a stream fault), an error status, or a refusal."""

    turn: Turn | None = None
    fault: Fault | None = None
    status: int = 200
    error: str | None = None  # a server-side problem (script exhausted, a callable turn failed)


class ScriptedServer:
    """Serve scripted turns on 127.0.0.1 from a background thread; use as a context manager."""

    def __init__(
        self,
        turns: Iterable[TurnSource] = (),
        default_turn: TurnSource | None = None,
        *,
        port: int = 0,
        validate_requests: bool = True,
        models: list[str] | None = None,
    ) -> None:
        self._lock = threading.RLock()  # re-entrant: a callable turn may read srv.requests
        self._queue: deque[Turn | Callable[[dict[str, Any]], dict[str, Any]]] = deque()
        self._head_faults = 0  # faults already served for the turn at the head of the queue
        self._default_faults = 0
        self._default: Turn | Callable[[dict[str, Any]], dict[str, Any]] | None = None
        if default_turn is not None:
            self._default = (
                default_turn if callable(default_turn) else parse_turn(default_turn, "default_turn")
            )
        self._requests: list[RecordedRequest] = []
        # Model-bound material this server has handed out (thinking signatures, Gemini thought signatures,
        # Responses encrypted reasoning) -> the model it was made for; replaying it elsewhere is a 400.
        self.signatures: dict[str, str] = {}
        self._model_calls = 0
        self.validate_requests = validate_requests
        self.models = models  # what GET /v1/models lists (None: each wire's built-in few)
        self.add_turns(turns)
        self._port = port
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------------------

    def start(self) -> ScriptedServer:
        from yoke.testing.handler import ScriptedHandler

        self._httpd = _HTTPServer(("127.0.0.1", self._port), ScriptedHandler, self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="yoke-scripted-server"
        )
        self._thread.daemon = True
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop promptly: wake handlers sleeping in delays or idle faults and cut open connections."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        httpd.stopping.set()
        httpd.shutdown()
        httpd.close_connections()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- what tests read and change -------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError(
                "the scripted server is not running; use it as a context manager or call start()"
            )
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """Base URL without /v1 (the Anthropic convention: clients append /v1/messages)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def gemini_url(self) -> str:
        """Base URL with /v1beta (the GEMINI_BASE_URL convention: clients append /models/M:method)."""
        return f"{self.url}/v1beta"

    @property
    def openai_url(self) -> str:
        """Base URL with /v1 (the OPENAI_BASE_URL convention: clients append /chat/completions)."""
        return f"{self.url}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def remaining(self) -> int:
        """How many scripted turns have not been consumed yet (the default turn is not counted)."""
        with self._lock:
            return len(self._queue)

    def add_turns(self, turns: Iterable[TurnSource]) -> None:
        """Append turns; dicts are validated now so a bad script fails where it is written."""
        parsed: list[Any] = []
        for turn in turns:
            parsed.append(
                turn if callable(turn) else parse_turn(turn, f"turn {self.remaining + len(parsed)}")
            )
        with self._lock:
            self._queue.extend(parsed)

    # -- called by the request handler ----------------------------------------------------------------

    def issue_signatures(self, turn: Turn, model: str) -> None:
        with self._lock:
            for block in turn.content:
                value = block.get("signature") if block["type"] == "thinking" else block.get("data")
                if value and block["type"] in ("thinking", "redacted_thinking"):
                    self.signatures[str(value)] = model

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def next_reply(self, body: Mapping[str, Any], streaming: bool, where: str) -> Reply:
        """Pick what the next model request gets, consuming the head turn unless a fault holds it back."""
        with self._lock:
            self._model_calls += 1
            on_default = not self._queue
            source = self._default if on_default else self._queue[0]
            if source is None:
                return Reply(status=500, error=self._exhausted_message(where))
            try:
                turn = (
                    source if isinstance(source, Turn) else parse_turn(source(as_dict(body)), "callable turn")
                )
            except Exception as exc:  # a test's callable is user code; report its failure over the wire
                return Reply(status=500, error=f"yoke.testing: the scripted turn callable failed: {exc!r}")
            if not on_default:
                self._queue[0] = turn  # a retry after a fault replays the same resolved turn
            served = self._default_faults if on_default else self._head_faults
            fault = turn.fault_for(served)
            if fault and (streaming or not fault.streaming_only):
                if on_default:
                    self._default_faults += 1
                else:
                    self._head_faults += 1
                return Reply(turn=turn, fault=fault, status=fault.status or 200)
            if not on_default:
                self._queue.popleft()
                self._head_faults = 0
            return Reply(turn=turn)

    def _exhausted_message(self, where: str) -> str:
        consumed = self._model_calls - 1
        return (
            f"yoke.testing: script exhausted: model request #{self._model_calls} ({where}) has no scripted turn "
            f"left after {consumed} request(s); add turns or pass a default_turn"
        )


class _HTTPServer(ThreadingHTTPServer):
    """Keeps track of open connections so shutdown can cut them instead of waiting on keep-alive reads."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int], handler: type, scripted: ScriptedServer) -> None:
        self.scripted = scripted
        self.stopping = threading.Event()
        self._connections: set[Any] = set()
        self._connections_lock = threading.Lock()
        super().__init__(address, handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # a client hanging up on a kept-alive connection is normal, not worth a traceback
        super().handle_error(request, client_address)

    def track(self, connection: Any, open_: bool) -> None:
        with self._connections_lock:
            if open_:
                self._connections.add(connection)
            else:
                self._connections.discard(connection)

    def close_connections(self) -> None:
        import socket

        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed by the client

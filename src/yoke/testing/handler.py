"""The HTTP request handler behind `ScriptedServer`: routing, recording, and writing replies and faults."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any

from yoke.testing import anthropic_wire, gemini_wire, openai_wire, responses_wire
from yoke.testing.body import as_dict, parse_body
from yoke.testing.script import Fault, ScriptError, Turn
from yoke.testing.server import RecordedRequest, WireFormat
from yoke.testing.validate import (
    anthropic_request_problem,
    anthropic_signature_problem,
    gemini_request_problem,
    openai_request_problem,
    responses_request_problem,
)
from yoke.testing.wire import new_id

if TYPE_CHECKING:
    from yoke.testing.server import _HTTPServer

MODEL_PATHS: dict[str, WireFormat] = {
    "/v1/messages": "anthropic",
    "/v1/chat/completions": "openai",
    "/chat/completions": "openai",
    "/v1/responses": "responses",
    "/responses": "responses",
}
# Gemini names the model and the method in the path: /v1beta/models/gemini-2.5-pro:streamGenerateContent
GEMINI_PATH = re.compile(r"^(?:/v1beta|/v1)?/models/([^/:]+):(streamGenerateContent|generateContent)$")
WIRES = {
    "anthropic": anthropic_wire,
    "openai": openai_wire,
    "gemini": gemini_wire,
    "responses": responses_wire,
}
COUNT_TOKENS_PATH = "/v1/messages/count_tokens"
MODELS_PATHS = ("/v1/models", "/models")
GEMINI_MODELS_PATH = "/v1beta/models"
ANTHROPIC_ERROR_KINDS = {400: "invalid_request_error", 404: "not_found_error"}
OPENAI_ERROR_KINDS = {400: "invalid_request_error", 404: "invalid_request_error"}


class ScriptedHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked streaming, like the real APIs
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        # Stream frames go out as many small writes: without NODELAY, Nagle holds each one back until the
        # client's delayed ACK (~40 ms) on a kept-alive connection, which real API servers never show.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.track(self.connection, open_=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.track(self.connection, open_=False)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # tests read srv.requests; stderr noise would only hide their output

    # -- routing ---------------------------------------------------------------------------------------

    def do_GET(self) -> None:
        path = self._path()
        scripted = self.server.scripted
        if path == "/_yoke/requests":
            self._send_json(200, [r.as_dict() for r in scripted.requests])
        elif path == "/_yoke/status":
            self._send_json(200, {"remaining": scripted.remaining, "requests": len(scripted.requests)})
        elif path in MODELS_PATHS or path == GEMINI_MODELS_PATH:
            fmt = "gemini" if path == GEMINI_MODELS_PATH else self._guess_format()
            self._record(path, None, fmt)
            self._send_json(200, WIRES[fmt].models_body(scripted.models))
        else:
            self._send_error(self._guess_format(), 404, f"yoke.testing: no such endpoint: GET {path}")

    def do_POST(self) -> None:
        path = self._path()
        raw = self._read_body()
        if path == "/_yoke/turns":
            self._add_turns(raw)
            return
        gemini = GEMINI_PATH.match(path)
        fmt = "anthropic" if path == COUNT_TOKENS_PATH else MODEL_PATHS.get(path) or self._guess_format()
        if gemini:
            fmt = "gemini"
        body = parse_body(raw)
        self._record(path, raw if body is not None else None, fmt)
        if gemini and body is not None:
            full = {
                **body.full(),
                "model": gemini.group(1),
                "stream": gemini.group(2) == "streamGenerateContent",
            }
            self._model_call(fmt, path, full)
        elif path != COUNT_TOKENS_PATH and path not in MODEL_PATHS:
            known = ", ".join([*MODEL_PATHS, COUNT_TOKENS_PATH])
            self._send_error(fmt, 404, f"yoke.testing: no such endpoint: POST {path} (serving {known})")
        elif body is None:
            self._send_error(fmt, 400, "request body is not a valid JSON object")
        elif path == COUNT_TOKENS_PATH:
            self._send_json(200, {"input_tokens": max(1, len(raw) // 4)})
        else:
            self._model_call(fmt, path, body)

    # -- model calls -----------------------------------------------------------------------------------

    def _model_call(self, fmt: WireFormat, path: str, body: Mapping[str, Any]) -> None:
        scripted = self.server.scripted
        if scripted.validate_requests:
            problem = self._request_problem(fmt, as_dict(body))
            if problem:
                self._send_error(fmt, 400, problem)
                return
        streaming = body.get("stream") is True
        reply = scripted.next_reply(body, streaming, f"POST {path}")
        if reply.error is not None:
            # A script problem is the test's bug: tell clients not to retry so the test fails fast.
            self._send_error(fmt, reply.status, reply.error, {"x-should-retry": "false"})
        elif reply.status != 200 and reply.fault is not None:
            self._send_fault_status(fmt, reply.fault, body)
        elif reply.turn is not None and streaming:
            self._send_stream(fmt, reply.turn, reply.fault, body)
        elif reply.turn is not None:
            if reply.turn.delay and self.server.stopping.wait(reply.turn.delay):
                return
            self._send_json(200, self._answer(fmt, reply.turn, body), self._id_header(fmt))

    def _request_problem(self, fmt: WireFormat, body: dict[str, Any]) -> str | None:
        issued = self.server.scripted.signatures
        if fmt == "anthropic":
            return anthropic_request_problem(body) or anthropic_signature_problem(body, issued)
        if fmt == "gemini":
            return gemini_request_problem(body, str(body.get("model")), issued)
        if fmt == "responses":
            return responses_request_problem(body, issued)
        return openai_request_problem(body)

    def _answer(self, fmt: WireFormat, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        issued = self.server.scripted.signatures
        if fmt == "anthropic":
            self.server.scripted.issue_signatures(turn, str(body.get("model")))
            return anthropic_wire.message(turn, body)
        if fmt == "openai":
            return openai_wire.completion(turn, body)
        return WIRES[fmt].response(turn, body, issued)

    def _frames(self, fmt: WireFormat, turn: Turn, body: Mapping[str, Any]) -> list[bytes]:
        if fmt == "anthropic":
            self.server.scripted.issue_signatures(turn, str(body.get("model")))
        if fmt in ("gemini", "responses"):
            return WIRES[fmt].stream_frames(turn, body, self.server.scripted.signatures)
        return WIRES[fmt].stream_frames(turn, body)

    def _send_fault_status(self, fmt: WireFormat, fault: Fault, body: Mapping[str, Any]) -> None:
        assert fault.status is not None
        wire = WIRES[fmt]
        headers = self._id_header(fmt)
        if fault.retry_after is not None:
            ra = fault.retry_after
            headers["retry-after"] = str(int(ra)) if float(ra).is_integer() else str(ra)
        if fault.should_retry is not None:
            headers["x-should-retry"] = "true" if fault.should_retry else "false"
        self._send_json(fault.status, wire.error_status_body(fault.status, fault, body), headers)

    def _send_stream(self, fmt: WireFormat, turn: Turn, fault: Fault | None, body: Mapping[str, Any]) -> None:
        wire = WIRES[fmt]
        frames = self._frames(fmt, turn, body)
        limit, ending = _stream_plan(fault, len(frames))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        for name, value in self._id_header(fmt).items():
            self.send_header(name, value)
        self.end_headers()
        stopping = self.server.stopping
        try:
            for i, frame in enumerate(frames[:limit]):
                if i and turn.delay and stopping.wait(turn.delay):
                    return self._abort()
                self._write_chunk(frame)
            if ending == "idle":
                assert fault is not None
                stopping.wait(fault.idle_seconds)
                return self._abort()
            if ending == "cut":
                return self._abort()
            if ending == "error":
                self._write_chunk(wire.stream_error_frame())
            self._write_chunk(b"")  # the zero-length chunk ends the body cleanly
        except OSError:  # the client went away mid-stream
            self.close_connection = True

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _abort(self) -> None:
        """Drop the connection without ending the chunked body, as a network failure would."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # -- helpers ---------------------------------------------------------------------------------------

    def _add_turns(self, raw: bytes) -> None:
        turns = _parse_json(raw)
        if not isinstance(turns, list):
            turns = [turns] if isinstance(turns, dict) else None
        try:
            if turns is None:
                raise ScriptError("POST /_yoke/turns expects a JSON list of turns")
            self.server.scripted.add_turns(turns)
        except ScriptError as exc:
            self._send_json(400, {"error": str(exc)})
            return
        self._send_json(200, {"remaining": self.server.scripted.remaining})

    def _record(self, path: str, raw: bytes | None, fmt: WireFormat) -> None:
        headers = {name.lower(): value for name, value in self.headers.items()}
        self.server.scripted.record(RecordedRequest(self.command, path, headers, raw, fmt))

    def _path(self) -> str:
        return self.path.split("?", 1)[0]

    def _guess_format(self) -> WireFormat:
        anthropic_headers = ("anthropic-version", "x-api-key")
        return "anthropic" if any(h in self.headers for h in anthropic_headers) else "openai"

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            parts: list[Any] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def _id_header(self, fmt: WireFormat) -> dict[str, str]:
        return {
            "request-id" if fmt == "anthropic" else "x-request-id": new_id("req_")
        }  # Gemini sends neither

    def _send_error(
        self, fmt: WireFormat, status: int, message: str, headers: dict[str, str] | None = None
    ) -> None:
        if fmt == "anthropic":
            body = anthropic_wire.error_body(ANTHROPIC_ERROR_KINDS.get(status, "api_error"), message)
        elif fmt == "gemini":
            code = gemini_wire.ERRORS.get(status, ("INTERNAL", ""))[0]
            body = gemini_wire.error_body(status, code, message)
        else:
            body = openai_wire.error_body(OPENAI_ERROR_KINDS.get(status, "server_error"), message)
        self._send_json(status, body, {**self._id_header(fmt), **(headers or {})})

    def _send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body, ensure_ascii=False).encode()
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:
            self.close_connection = True


def _stream_plan(fault: Fault | None, total: int) -> tuple[int, str]:
    """How many frames to send and how the stream ends: complete, cut, idle, or error."""
    if fault is None:
        return total, "complete"
    if fault.cut_after is not None:
        return fault.cut_after, "cut"
    if fault.idle_after is not None:
        return fault.idle_after, "idle"
    if fault.stream_error_after is not None:
        return fault.stream_error_after, "error"
    return total, "complete"


def _parse_json(raw: bytes) -> Any:
    try:
        # json-ours: test harness (the scripted server, side-by-side runs)
        return json.loads(raw) if raw else None
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None

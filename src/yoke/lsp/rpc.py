"""JSON-RPC 2.0 over a byte stream with LSP's `Content-Length` framing, bounded.

A frame's header is at most `MAX_HEADER` bytes and its body at most `MAX_BODY`; a stream that breaks either
bound, or sends something that is not JSON, is closed (a server that misbehaves is treated as crashed, never
read without end). Requests the server sends us are answered by `on_request` (or with null); notifications go
to `on_notification`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

from yoke import jsonsafe

MAX_HEADER = 8 * 1024
MAX_BODY = 64 * 1024 * 1024  # a workspace-wide reply of a big project stays well below this


class RpcError(Exception):
    """The server answered with an error, or the connection is gone."""


class ProtocolError(RpcError):
    """The stream broke the framing (too large, not JSON): the connection is closed."""


async def read_frame(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    """One message, or None at end of stream."""
    length = None
    header_bytes = 0
    while True:
        try:
            line = await reader.readuntil(b"\r\n")
        except asyncio.IncompleteReadError as exc:
            if not exc.partial and length is None and header_bytes == 0:
                return None
            raise ProtocolError("the stream ended inside a header") from None
        except asyncio.LimitOverrunError:
            raise ProtocolError("a header line is too long") from None
        header_bytes += len(line)
        if header_bytes > MAX_HEADER:
            raise ProtocolError("the header is too long")
        if line == b"\r\n":
            break
        name, _, value = line.decode("ascii", "replace").partition(":")
        if name.strip().lower() == "content-length":
            try:
                length = int(value.strip())
            except ValueError:
                raise ProtocolError("Content-Length is not a number") from None
    if length is None or length < 0 or length > MAX_BODY:
        raise ProtocolError(f"Content-Length missing or over {MAX_BODY} bytes")
    try:
        body = await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        raise ProtocolError("the stream ended inside a message") from None
    try:
        message = jsonsafe.loads(body)
    except ValueError:
        raise ProtocolError("a message is not JSON") from None
    if not isinstance(message, dict):
        raise ProtocolError("a message is not a JSON object")
    return message


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message, separators=(",", ":")).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


Handler = Callable[[str, Any], Awaitable[Any]]


class Connection:
    """Requests with ids and futures; one reading task; writes serialised by the event loop (each frame is
    written whole with one `write` call)."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        on_notification: Callable[[str, Any], None],
        on_request: Handler | None = None,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._on_notification = on_notification
        self._on_request = on_request
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._next_id = 0
        self._answering: set[asyncio.Task[None]] = set()  # held: the loop keeps only weak references
        self.closed = asyncio.Event()
        self.close_reason = ""
        self._task = asyncio.get_running_loop().create_task(self._read_loop())

    async def request(self, method: str, params: Any, timeout: float) -> Any:
        """The result of `method`; RpcError on an error answer or a closed connection, TimeoutError when
        no answer comes within `timeout` seconds (the request is then cancelled on the server)."""
        if self.closed.is_set():
            raise RpcError(f"the server is gone ({self.close_reason})")
        self._next_id += 1
        rid = self._next_id
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        try:
            self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
            async with asyncio.timeout(timeout):
                return await future
        except TimeoutError:
            with contextlib.suppress(RpcError):
                self.notify("$/cancelRequest", {"id": rid})
            raise
        finally:
            self._pending.pop(rid, None)

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def _send(self, message: dict[str, Any]) -> None:
        if self.closed.is_set() or self._writer.is_closing():
            raise RpcError(f"the server is gone ({self.close_reason or 'closed'})")
        try:
            self._writer.write(frame(message))
        except (OSError, RuntimeError) as exc:
            self._close(f"write failed: {exc}")
            raise RpcError(self.close_reason) from None

    async def _read_loop(self) -> None:
        reason = "the server closed its output"
        try:
            while True:
                message = await read_frame(self._reader)
                if message is None:
                    break
                self._dispatch(message)
        except ProtocolError as exc:
            reason = str(exc)
        except (OSError, asyncio.CancelledError) as exc:
            reason = f"read failed: {type(exc).__name__}"
        self._close(reason)

    def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if isinstance(method, str) and "id" in message:
            task = asyncio.get_running_loop().create_task(
                self._answer(message["id"], method, message.get("params"))
            )
            self._answering.add(task)
            task.add_done_callback(self._answering.discard)
        elif isinstance(method, str):
            with contextlib.suppress(Exception):  # a handler's bug must not stop the reading
                self._on_notification(method, message.get("params"))
        elif "id" in message:
            future = self._pending.get(message["id"]) if isinstance(message["id"], int) else None
            if future is None or future.done():
                return
            if isinstance(message.get("error"), dict):
                error = message["error"]
                future.set_exception(RpcError(str(error.get("message") or error.get("code"))))
            else:
                future.set_result(message.get("result"))

    async def _answer(self, rid: Any, method: str, params: Any) -> None:
        result: Any = None
        try:
            if self._on_request is not None:
                result = await self._on_request(method, params)
        except Exception:
            result = None
        with contextlib.suppress(RpcError):
            self._send({"jsonrpc": "2.0", "id": rid, "result": result})

    def _close(self, reason: str) -> None:
        if self.closed.is_set():
            return
        self.close_reason = reason
        self.closed.set()
        for future in self._pending.values():
            if not future.done():
                future.set_exception(RpcError(f"the server is gone ({reason})"))
        with contextlib.suppress(Exception):
            self._writer.close()

    async def aclose(self) -> None:
        self._close("closed by Yoke")
        self._task.cancel()
        await asyncio.wait({self._task}, timeout=1.0)

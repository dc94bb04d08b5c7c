"""The four ways to reach an MCP server, each an async context manager yielding the (read, write) stream
pair the `mcp` package's ClientSession runs on.

stdio and WebSocket are Yoke's own: stdio because a server must stop within a second at exit (SIGINT, then
SIGTERM, then SIGKILL to its whole process group) and must die with Yoke even when Yoke is killed (the
shell tools' guard process watches its group); the `mcp` package has no WebSocket client. SSE and
streamable HTTP are the package's.
"""

from __future__ import annotations

import collections
import contextlib
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage

from yoke.mcp.config import ServerConfig

STOP_STEPS = ((signal.SIGINT, 0.1), (signal.SIGTERM, 0.4), (signal.SIGKILL, 0.5))


class ConnectionLost(Exception):
    """The transport ended (process exited, socket closed)."""


class Link:
    """What a transport tells the manager: when it ended, and the server's last stderr lines."""

    def __init__(self) -> None:
        self.ended = anyio.Event()
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=20)
        self.pid: int | None = None

    def describe_end(self) -> str:
        tail = [line for line in self.stderr_tail if line.strip()]
        return tail[-1].strip()[:300] if tail else ""


def _parse(line: str) -> SessionMessage | Exception:
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return _malformed_reply(line) or exc


MALFORMED_REPLY = -32603  # JSON-RPC's internal error


def _malformed_reply(line: str) -> SessionMessage | None:
    """A reply to one of our requests that is not a valid JSON-RPC response (a result that is not an
    object, say) becomes an error for that request: the caller learns of it now, instead of waiting for an
    answer that will never come. Anything else stays a parse error the session logs."""
    from yoke.jsonsafe import loads

    try:
        frame = loads(line)
    except ValueError:
        return None
    if not isinstance(frame, dict) or not ("result" in frame or "error" in frame) or "method" in frame:
        return None
    request_id = frame.get("id")
    if not isinstance(request_id, int | str) or isinstance(request_id, bool):
        return None
    shape = type(frame.get("result", frame.get("error"))).__name__
    error = types.ErrorData(
        code=MALFORMED_REPLY,
        message=f"the server sent a malformed reply (a {shape} where JSON-RPC wants an object)",
    )
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


def _dump(message: SessionMessage) -> str:
    return message.message.model_dump_json(by_alias=True, exclude_unset=True)


@contextlib.asynccontextmanager
async def stdio_transport(
    cfg: ServerConfig, cwd: Path, link: Link, env: Any = None, process: Any = None
) -> AsyncIterator[tuple[Any, Any]]:
    """`process`: one already started (`spawn.prespawn`), else a new one."""
    from yoke.mcp.spawn import spawn_stdio

    if process is None or process.returncode is not None:
        process = await spawn_stdio(cfg, cwd, env)
    link.pid = process.pid
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](16)

    async def reader() -> None:
        buffer = b""
        try:
            async with read_send:
                while chunk := await process.stdout.read(1 << 16):  # type: ignore[union-attr]
                    buffer += chunk
                    if b"\n" not in chunk:
                        continue
                    *lines, buffer = buffer.split(b"\n")
                    for line in lines:
                        if line.strip():
                            await read_send.send(_parse(line.decode("utf-8", "replace")))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        finally:
            link.ended.set()

    async def errors() -> None:
        buffer = b""
        with contextlib.suppress(OSError):
            while chunk := await process.stderr.read(1 << 14):  # type: ignore[union-attr]
                buffer = (buffer + chunk)[-8192:]
                *lines, buffer = buffer.split(b"\n")
                link.stderr_tail.extend(line.decode("utf-8", "replace") for line in lines)

    async def writer() -> None:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async with write_recv:
                async for message in write_recv:
                    process.stdin.write((_dump(message) + "\n").encode())  # type: ignore[union-attr]
                    await process.stdin.drain()  # type: ignore[union-attr]

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(errors)
        tg.start_soon(writer)
        try:
            yield read_recv, write_send
        finally:
            with anyio.CancelScope(shield=True):
                await stop_process(process)
            tg.cancel_scope.cancel()


async def stop_process(process: Any) -> None:
    """SIGINT, then SIGTERM, then SIGKILL to the server's process group: gone within a second."""
    with contextlib.suppress(Exception):
        process.stdin.close()
    for sig, wait in STOP_STEPS:
        if process.returncode is not None:
            break
        try:
            os.killpg(process.pid, sig)
        except (ProcessLookupError, PermissionError):
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(sig)
        with anyio.move_on_after(wait):
            while process.returncode is None:
                await anyio.sleep(0.01)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # stragglers the server left in its group
    from yoke.spawn import forget_group

    forget_group(process.pid)  # gone: the guard stops watching (pids get reused)
    transport = getattr(process, "_transport", None)
    if transport is not None:
        with contextlib.suppress(Exception):
            transport.close()


@contextlib.asynccontextmanager
async def ws_transport(cfg: ServerConfig, link: Link) -> AsyncIterator[tuple[Any, Any]]:
    from websockets.asyncio.client import connect
    from websockets.typing import Subprotocol

    async with connect(
        cfg.url, subprotocols=[Subprotocol("mcp")], additional_headers=cfg.headers or None
    ) as ws:
        read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](16)
        write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](16)

        async def reader() -> None:
            try:
                async with read_send:
                    async for text in ws:
                        await read_send.send(_parse(text if isinstance(text, str) else text.decode()))
            except Exception:
                pass
            finally:
                link.ended.set()

        async def writer() -> None:
            with contextlib.suppress(Exception):
                async with write_recv:
                    async for message in write_recv:
                        await ws.send(_dump(message))

        async with anyio.create_task_group() as tg:
            tg.start_soon(reader)
            tg.start_soon(writer)
            try:
                yield read_recv, write_send
            finally:
                tg.cancel_scope.cancel()


@contextlib.asynccontextmanager
async def sdk_transport(cfg: ServerConfig, link: Link) -> AsyncIterator[tuple[Any, Any]]:
    """An Agent SDK's in-process server: each JSON-RPC message goes through `cfg.bridge` (the SDK control
    protocol's `mcp_message`, or the in-process SDK's server) and its answer comes back as the reply."""
    if cfg.bridge is None:
        raise ConnectionLost(f"{cfg.name} is an SDK server and this session has no SDK to reach it through")
    import json

    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](16)

    async def relay() -> None:
        try:
            async with write_recv, read_send:
                async for message in write_recv:
                    # json-ours: Yoke's own serialization of a message it holds
                    payload = json.loads(_dump(message))
                    answer = await cfg.bridge(cfg.name, payload)
                    if "id" in payload and isinstance(answer, dict) and "id" in answer:
                        await read_send.send(_parse(json.dumps(answer)))
        except Exception:
            pass
        finally:
            link.ended.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(relay)
        try:
            yield read_recv, write_send
        finally:
            tg.cancel_scope.cancel()


@contextlib.asynccontextmanager
async def open_transport(
    cfg: ServerConfig, cwd: Path, link: Link, auth: Any = None, env: Any = None, process: Any = None
) -> AsyncIterator[tuple[Any, Any]]:
    """The stream pair for one server; `auth` is an httpx Auth (OAuth) for remote servers, `env` the
    environment a stdio server starts from (the session's)."""
    if cfg.type == "stdio":
        async with stdio_transport(cfg, cwd, link, env, process) as streams:
            yield streams
    elif cfg.type == "ws":
        async with ws_transport(cfg, link) as streams:
            yield streams
    elif cfg.type == "sdk":
        async with sdk_transport(cfg, link) as streams:
            yield streams
    elif cfg.type == "sse":
        from mcp.client.sse import sse_client

        async with sse_client(cfg.url, headers=cfg.headers or None, auth=auth) as streams:
            yield streams
    else:
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        async with (
            create_mcp_http_client(headers=cfg.headers or None, auth=auth) as client,
            streamable_http_client(cfg.url, http_client=client) as streams,
        ):
            yield streams

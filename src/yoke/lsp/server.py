"""One running language server: its process, the `initialize` handshake (bounded by `startupTimeout`), the
documents it has open, the diagnostics it last published per file, and requests bounded by
`requestTimeout`. A server whose output ends is `crashed`; the manager decides whether to start another."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path
from typing import IO, Any

from yoke.lsp.config import ServerSpec
from yoke.lsp.process import Launcher, start_server_process, stop_server_process
from yoke.lsp.rpc import Connection, RpcError

CLIENT_CAPABILITIES: dict[str, Any] = {
    "workspace": {
        "configuration": True,
        "workspaceFolders": True,
        "didChangeConfiguration": {"dynamicRegistration": False},
        "symbol": {"dynamicRegistration": False},
    },
    "textDocument": {
        "synchronization": {"didSave": True, "dynamicRegistration": False},
        "publishDiagnostics": {"relatedInformation": False, "versionSupport": True},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "definition": {"linkSupport": False},
        "implementation": {"linkSupport": False},
        "references": {},
        "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
        "callHierarchy": {},
    },
    "window": {"workDoneProgress": False},
    "general": {"positionEncodings": ["utf-16"]},
}


LOG_LIMIT = 1024 * 1024  # what a server's log keeps of its stderr and log messages


def file_uri(path: Path) -> str:
    return path.resolve().as_uri()


class Published:
    """What the server last said about one file: its diagnostics, the document version they are for (None
    when the server does not say) and a count of publications, so a waiter can tell a new one."""

    __slots__ = ("diagnostics", "version", "count")

    def __init__(self) -> None:
        self.diagnostics: list[dict[str, Any]] = []
        self.version: int | None = None
        self.count = 0


class LanguageServer:
    def __init__(
        self,
        spec: ServerSpec,
        root: Path,
        env: dict[str, str],
        log: Path | None = None,
        confine: Launcher | None = None,
    ) -> None:
        self.spec = spec
        self.confine = confine  # rewrites the argv to run the server in the sandbox (None: as is)
        self.root = root
        self.env = {**env, **spec.env}
        self.log = log
        self.state = "new"  # new, starting, ready, failed, crashed, stopped
        self.error = ""
        self.proc: asyncio.subprocess.Process | None = None
        self.conn: Connection | None = None
        self.capabilities: dict[str, Any] = {}
        self.documents: dict[str, int] = {}  # uri -> version last sent
        self.published: dict[str, Published] = {}
        self.versioned: bool | None = None  # whether its reports say which version they are for
        self._changed = asyncio.Condition()
        self._stderr: IO[bytes] | None = None
        self._logged = 0
        self._logger: asyncio.Task[None] | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._waking: set[asyncio.Task[None]] = set()

    # ---- life ------------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the process and finish the handshake within `startupTimeout`; on any failure the state is
        `failed` with a one-line `error`, and the process is gone."""
        self.state = "starting"
        try:
            async with asyncio.timeout(self.spec.startup_ms / 1000):
                await self._start()
        except TimeoutError:
            await self._fail(f"did not finish starting within {self.spec.startup_ms} ms")
        except (OSError, RpcError, ValueError, RuntimeError) as exc:  # RuntimeError: the sandbox cannot start
            await self._fail(str(exc) or type(exc).__name__)
        except asyncio.CancelledError:
            await self._fail("start cancelled")
            raise
        else:
            self.state = "ready"

    async def _start(self) -> None:
        stderr: int = asyncio.subprocess.DEVNULL
        if self.log is not None:
            self.log.parent.mkdir(parents=True, exist_ok=True)
            self._stderr = open(self.log, "ab")  # noqa: SIM115 - closed with the server
            stderr = asyncio.subprocess.PIPE
        argv = [self.spec.command, *self.spec.args]
        self.proc = await start_server_process(
            argv, cwd=self.root, env=self.env, stderr=stderr, confine=self.confine
        )
        if self.proc.stderr is not None:
            self._logger = asyncio.get_running_loop().create_task(self._keep_log(self.proc.stderr))
        assert self.proc.stdout is not None and self.proc.stdin is not None
        self.conn = Connection(self.proc.stdout, self.proc.stdin, self._notified, self._requested)
        self._watcher = asyncio.get_running_loop().create_task(self._watch(self.conn))
        folder = {"uri": file_uri(self.root), "name": self.root.name or str(self.root)}
        params = {
            # in the sandbox's own pid namespace Yoke's pid names nothing (servers that watch it would stop)
            "processId": None if self.confine is not None else os.getpid(),
            "clientInfo": {"name": "yoke"},
            "rootUri": folder["uri"],
            "rootPath": str(self.root),
            "workspaceFolders": [folder],
            "capabilities": CLIENT_CAPABILITIES,
            "initializationOptions": self.spec.initialization_options,
        }
        result = await self.conn.request("initialize", params, timeout=self.spec.startup_ms / 1000)
        self.capabilities = (result or {}).get("capabilities") or {}
        self.conn.notify("initialized", {})
        if self.spec.settings is not None:
            self.conn.notify("workspace/didChangeConfiguration", {"settings": self.spec.settings})

    async def _keep_log(self, stream: asyncio.StreamReader) -> None:
        """The server's stderr into its log, the first LOG_LIMIT bytes of it; the rest is read and dropped
        (a server blocked on a full pipe would stop answering)."""
        while chunk := await stream.read(65536):
            if self._stderr is not None and self._logged < LOG_LIMIT:
                self._stderr.write(chunk[: LOG_LIMIT - self._logged])
                self._stderr.flush()
                self._logged += len(chunk)

    async def _fail(self, reason: str) -> None:
        self.state = "failed"
        self.error = self._with_exit(reason)
        await self._teardown()

    def _with_exit(self, reason: str) -> str:
        code = self.proc.returncode if self.proc is not None else None
        return f"{reason} (exit code {code})" if code is not None else reason

    @property
    def alive(self) -> bool:
        """Ready and still connected; a server whose output ended is marked crashed here."""
        if self.state == "ready" and self.conn is not None and self.conn.closed.is_set():
            self.state = "crashed"
            self.error = self._with_exit(self.conn.close_reason)
        return self.state == "ready"

    async def stop(self) -> None:
        """A polite shutdown within `shutdownTimeout`, then the group is ended whatever it said."""
        if self.state in ("ready",) and self.conn is not None and not self.conn.closed.is_set():
            with contextlib.suppress(RpcError, TimeoutError):
                await self.conn.request("shutdown", None, timeout=self.spec.shutdown_ms / 1000)
                self.conn.notify("exit", None)
        self.state = "stopped"
        await self._teardown()

    async def _teardown(self) -> None:
        if self.conn is not None:
            await self.conn.aclose()
        if self.proc is not None:
            await stop_server_process(self.proc, grace=min(self.spec.shutdown_ms / 1000, 2.0))
        if self._logger is not None:
            await asyncio.wait({self._logger}, timeout=1.0)  # the rest of what it said, once it is gone
            self._logger.cancel()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    # ---- documents and diagnostics ---------------------------------------------------------------------

    def sync(self, path: Path, text: str, language: str) -> int:
        """Tell the server the file's whole text now (open it first time, else a full change, then a save);
        returns the version sent."""
        assert self.conn is not None
        uri = file_uri(path)
        version = self.documents.get(uri)
        if version is None:
            version = 1
            item = {"uri": uri, "languageId": language, "version": version, "text": text}
            self.conn.notify("textDocument/didOpen", {"textDocument": item})
        else:
            version += 1
            document = {"uri": uri, "version": version}
            self.conn.notify(
                "textDocument/didChange", {"textDocument": document, "contentChanges": [{"text": text}]}
            )
            self.conn.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        self.documents[uri] = version
        return version

    def is_open(self, path: Path) -> bool:
        return file_uri(path) in self.documents

    def snapshot(self, path: Path) -> Published:
        return self.published.get(file_uri(path)) or Published()

    async def wait_published(self, path: Path, after: int, version: int, timeout: float) -> Published | None:
        """The first publication for `path` after the `after`-th that is for `version` or later (or carries
        no version), or None when none comes within `timeout` seconds or the server goes."""
        uri = file_uri(path)

        def arrived() -> bool:
            seen = self.published.get(uri)
            if seen is None or seen.count <= after:
                return False
            return seen.version is None or seen.version >= version

        try:
            async with asyncio.timeout(max(timeout, 0.0)), self._changed:
                await self._changed.wait_for(lambda: arrived() or not self.alive)
        except TimeoutError:
            return None
        return self.published[uri] if arrived() else None

    def _notified(self, method: str, params: Any) -> None:
        if method in ("window/logMessage", "window/showMessage") and isinstance(params, dict):
            if self._stderr is not None and self._logged < LOG_LIMIT:  # beside its stderr, for whoever
                line = f"[{method}] {str(params.get('message'))[:2000]}\n".encode()  # finds out why it failed
                self._stderr.write(line)
                self._stderr.flush()
                self._logged += len(line)
            return
        if method != "textDocument/publishDiagnostics" or not isinstance(params, dict):
            return
        uri, items = params.get("uri"), params.get("diagnostics")
        if not isinstance(uri, str) or not isinstance(items, list):
            return
        seen = self.published.setdefault(uri, Published())
        seen.diagnostics = [d for d in items if isinstance(d, dict)]
        version = params.get("version")
        seen.version = version if isinstance(version, int) else None
        seen.count += 1
        self.versioned = seen.version is not None
        task = asyncio.get_running_loop().create_task(self._wake())
        self._waking.add(task)  # held: the loop keeps only weak references
        task.add_done_callback(self._waking.discard)

    async def _watch(self, conn: Connection) -> None:
        """Waiters for diagnostics learn at once that the server went."""
        await conn.closed.wait()
        await self._wake()

    async def _wake(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def _requested(self, method: str, params: Any) -> Any:
        """What a server asks its client: its settings (`workspace/configuration`), the folders; the rest
        (progress tokens, registrations) is acknowledged with null."""
        if method == "workspace/configuration":
            items = (params or {}).get("items") or []
            return [_section(self.spec.settings, item.get("section")) for item in items]
        if method == "workspace/workspaceFolders":
            return [{"uri": file_uri(self.root), "name": self.root.name}]
        return None

    async def answers(self, path: Path, timeout: float) -> bool:
        """Whether the server answers within `timeout` seconds a cheap request about `path` (its symbols,
        where it lists them; one that lists none is taken at its connection's word: requests it does not
        know can stall a server, as they do typescript-language-server)."""
        if not self.alive or self.conn is None:
            return False
        if not self.capabilities.get("documentSymbolProvider"):
            return True
        try:
            await self.conn.request(
                "textDocument/documentSymbol", {"textDocument": {"uri": file_uri(path)}}, timeout=timeout
            )
        except RpcError:
            return self.alive  # an error answer; a closed connection marks it gone
        except TimeoutError:
            return False
        return True

    async def request(self, method: str, params: Any) -> Any:
        """A request bounded by `requestTimeout` (TimeoutError past it)."""
        if not self.alive or self.conn is None:
            raise RpcError(f"the server is not running ({self.error or self.state})")
        return await self.conn.request(method, params, timeout=self.spec.request_ms / 1000)


def _section(settings: Any, section: Any) -> Any:
    if not isinstance(settings, dict) or not isinstance(section, str) or not section:
        return settings if isinstance(settings, dict) else None
    node: Any = settings
    for part in section.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node

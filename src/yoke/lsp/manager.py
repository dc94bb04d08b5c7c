"""The session's language servers: started lazily (the first read or edit of a file of their language),
one per server definition and workspace root, restarted with backoff after a crash (at most `maxRestarts`
times), stopped with the session. Every wait here is bounded: a server that is slow, hung or gone costs an
edit at most the diagnostics bound, a navigation request at most its `requestTimeout`."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke.lsp.config import ServerSpec, by_extension
from yoke.lsp.diagnostics import FileReport, new_problems

if TYPE_CHECKING:  # the process and protocol modules load with the first server, not with the session
    from yoke.lsp.process import Launcher
    from yoke.lsp.server import LanguageServer

BACKOFF_FIRST_S = 0.5
BACKOFF_MAX_S = 30.0
MAX_FILE_BYTES = 4 * 1024 * 1024
SETTLE_S = 0.25  # a quiet spell after an unversioned report: no further part of it is on its way
PING_S = 0.2  # how long a server that stayed silent after a change has to show it is still answering  # a file bigger than this is not sent to a server


class DiagnosticsSettings:
    """`lspDiagnostics` in settings: whether edits wait for diagnostics, how long, what is shown."""

    __slots__ = ("enabled", "wait_ms", "include_warnings", "max_items")

    def __init__(
        self, enabled: bool = True, wait_ms: int = 800, include_warnings: bool = False, max_items: int = 10
    ) -> None:
        self.enabled = enabled
        self.wait_ms = wait_ms
        self.include_warnings = include_warnings
        self.max_items = max_items

    @classmethod
    def from_settings(cls, raw: Any, warnings: list[str]) -> DiagnosticsSettings:
        out = cls()
        if raw is None:
            return out
        if not isinstance(raw, dict):
            warnings.append("lspDiagnostics: expected an object; using the defaults")
            return out
        if isinstance(raw.get("enabled"), bool):
            out.enabled = raw["enabled"]
        if isinstance(raw.get("includeWarnings"), bool):
            out.include_warnings = raw["includeWarnings"]
        for key, slot, top in (("waitMs", "wait_ms", 60_000), ("maxItems", "max_items", 1000)):
            value = raw.get(key)
            if value is None:
                continue
            if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= top:
                setattr(out, slot, value)
            else:
                warnings.append(f"lspDiagnostics.{key}: expected a whole number from 0 to {top}; ignored")
        return out


class _Slot:
    """One (server, root): the running server, its start under way, and its restarts."""

    __slots__ = ("server", "starting", "restarts", "next_try", "error")

    def __init__(self) -> None:
        self.server: LanguageServer | None = None
        self.starting: asyncio.Task[LanguageServer] | None = None
        self.restarts = 0
        self.next_try = 0.0
        self.error = ""


class LspManager:
    def __init__(
        self,
        specs: list[ServerSpec],
        roots: list[Path],
        env: dict[str, str],
        diagnostics: DiagnosticsSettings | None = None,
        log_dir: Path | None = None,
        confine: Callable[[ServerSpec], Launcher | None] | None = None,
    ) -> None:
        self.specs = specs
        self.confine = confine  # per server: the launcher that runs it in the sandbox (docs/lsp.md)
        self.table = by_extension(specs)
        self.roots = [r.resolve() for r in roots]
        self.env = env
        self.diagnostics = diagnostics or DiagnosticsSettings()
        self.log_dir = log_dir
        self._slots: dict[tuple[str, str], _Slot] = {}
        self._baselines: dict[str, list[dict[str, Any]]] = {}
        self._background: set[asyncio.Task[Any]] = set()
        self._closed = False

    # ---- which server ----------------------------------------------------------------------------------

    def spec_for(self, path: Path) -> ServerSpec | None:
        return self.table.get(path.suffix.lower())

    def root_for(self, path: Path, spec: ServerSpec) -> Path:
        """The spec's `workspaceFolder`, else the deepest working directory holding the file, else the
        first working directory."""
        if spec.workspace_folder:
            return Path(spec.workspace_folder).expanduser().resolve()
        holding = [r for r in self.roots if r == path or r in path.parents]
        return max(holding, key=lambda r: len(r.parts)) if holding else self.roots[0]

    def servers(self) -> list[LanguageServer]:
        return [s.server for s in self._slots.values() if s.server is not None]

    async def server_for(self, path: Path, wait: float) -> tuple[LanguageServer | None, str]:
        """The running server for `path`, started if need be; waits at most `wait` seconds for a start
        (which goes on in the background). (None, why) when there is none to be had now."""
        spec = self.spec_for(path)
        if spec is None or self._closed:
            return None, "no language server for this kind of file"
        root = self.root_for(path, spec)
        slot = self._slots.setdefault((spec.name, str(root)), _Slot())
        if slot.server is not None and slot.server.alive:
            return slot.server, ""
        if slot.starting is None:
            why = self._may_start(spec, slot)
            if why:
                return None, why
            slot.starting = asyncio.get_running_loop().create_task(self._start(spec, root, slot))
        try:
            async with asyncio.timeout(max(wait, 0.0)):
                server = await asyncio.shield(slot.starting)
        except TimeoutError:
            return None, f"{spec.name} is still starting"
        if server.alive:
            return server, ""
        return None, f"{spec.name} failed to start: {server.error}"

    def _may_start(self, spec: ServerSpec, slot: _Slot) -> str:
        """Why a (re)start may not happen now ("" if it may): a crashed server restarts after a backoff,
        at most `maxRestarts` times."""
        if slot.server is None:
            return ""
        if not spec.restart_on_crash or slot.restarts >= spec.max_restarts:
            return f"{spec.name} stopped ({slot.error}) and is not restarted"
        if time.monotonic() < slot.next_try:
            return f"{spec.name} stopped ({slot.error}); restarting after a pause"
        slot.restarts += 1
        return ""

    async def _start(self, spec: ServerSpec, root: Path, slot: _Slot) -> LanguageServer:
        log = self.log_dir / f"{spec.name}.log" if self.log_dir is not None else None
        from yoke.lsp.server import LanguageServer

        launcher = self.confine(spec) if self.confine is not None else None
        server = LanguageServer(spec, root, self.env, log, launcher)
        try:
            await server.start()
        finally:
            slot.server = server
            slot.starting = None
        if not server.alive:
            slot.error = server.error
            slot.next_try = time.monotonic() + min(BACKOFF_FIRST_S * 2**slot.restarts, BACKOFF_MAX_S)
        else:
            self._watch_crash(server, slot)
        return server

    def _watch_crash(self, server: LanguageServer, slot: _Slot) -> None:
        async def watch() -> None:
            assert server.conn is not None
            await server.conn.closed.wait()
            if server.state == "stopped":
                return
            server.alive  # noqa: B018 - marks it crashed with the reason
            slot.error = server.error
            slot.next_try = time.monotonic() + min(BACKOFF_FIRST_S * 2**slot.restarts, BACKOFF_MAX_S)
            await server.stop()  # the rest of its group, if any

        self._spawn(watch())

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # ---- files -------------------------------------------------------------------------------------------

    def touch(self, path: Path) -> None:
        """A file was read: start its server in the background and open the file there, so an edit that
        follows finds a warm server and a baseline of diagnostics."""
        if self._closed or self.spec_for(path) is None:
            return

        async def warm() -> None:
            server, _ = await self.server_for(path, wait=server_start_bound(self, path))
            if server is not None and not server.is_open(path):
                text = _read(path)
                if text is not None:
                    server.sync(path, text, self.language(path))

        self._spawn(warm())

    def language(self, path: Path) -> str:
        spec = self.spec_for(path)
        return spec.extensions[path.suffix.lower()] if spec is not None else "plaintext"

    async def before_edit(self, path: Path) -> None:
        """Note what the server says about `path` before it changes (waiting, within the bound, for a first
        answer when the file was not open there yet)."""
        spec = self.spec_for(path)
        if spec is None or not spec.diagnostics or not self.diagnostics.enabled:
            return
        deadline = time.monotonic() + self.diagnostics.wait_ms / 1000
        server, _ = await self.server_for(path, wait=deadline - time.monotonic())
        if server is None:
            return
        if not server.is_open(path):
            text = _read(path)
            if text is None:  # a new file: nothing was wrong with it before
                self._baselines[str(path)] = []
                return
            seen = server.snapshot(path).count
            version = server.sync(path, text, self.language(path))
            await server.wait_published(path, seen, version, deadline - time.monotonic())
        else:  # opened by a Read moments ago, perhaps: its first report may still be on its way
            from yoke.lsp.server import file_uri

            sent = server.documents[file_uri(path)]
            last = server.snapshot(path)
            # (not from a server known to leave its reports unversioned: such a one may never report on a
            # file with nothing wrong in it)
            if server.versioned is not False and (
                last.count == 0 or (last.version is not None and last.version < sent)
            ):
                await server.wait_published(path, last.count, sent, deadline - time.monotonic())
        self._baselines[str(path)] = list(server.snapshot(path).diagnostics)

    async def after_edit(self, path: Path) -> FileReport | None:
        """The new problems in `path` now, within the bound; None when no server covers it."""
        spec = self.spec_for(path)
        if spec is None or not spec.diagnostics or not self.diagnostics.enabled:
            return None
        bound = self.diagnostics.wait_ms / 1000
        deadline = time.monotonic() + bound
        server, why = await self.server_for(path, wait=bound)
        if server is None:
            return FileReport(path, unavailable=why, server=spec.name)
        text = _read(path)
        if text is None:
            return None
        before = self._baselines.pop(str(path), None)
        if before is None:
            before = list(server.snapshot(path).diagnostics) if server.is_open(path) else []
        seen = server.snapshot(path).count
        version = server.sync(path, text, self.language(path))
        # A server whose reports carry no version may say nothing when nothing changed
        # (typescript-language-server): its silence is an answer once it is seen to be alive.
        versioned = server.versioned is True
        quiet = deadline - time.monotonic() - (0 if versioned else PING_S)
        published = await server.wait_published(path, seen, version, quiet)
        while published is not None and not versioned:
            # Unversioned reports come in parts (typescript-language-server: the syntax, then the rest):
            # the last one within a short quiet spell is the answer.
            count = published.count
            spell = min(SETTLE_S, deadline - time.monotonic())
            published = await server.wait_published(path, count, version, spell) or server.snapshot(path)
            if published.count == count:
                break
        if published is None and not versioned and await server.answers(path, PING_S):
            published = server.snapshot(path)
        if published is None:
            why = (
                "the server went away"
                if not server.alive
                else f"no answer within {self.diagnostics.wait_ms} ms"
            )
            return FileReport(path, unavailable=f"{spec.name}: {why}", server=spec.name)
        new = new_problems(before, published.diagnostics, self.diagnostics.include_warnings)
        return FileReport(path, new=new, server=spec.name)

    async def close(self) -> None:
        """Stop every server (each within its shutdown bound) and the background work."""
        self._closed = True
        for task in list(self._background):
            task.cancel()
        for slot in self._slots.values():
            if slot.starting is not None:
                slot.starting.cancel()
                await asyncio.wait({slot.starting}, timeout=5.0)  # its teardown ends the process
        await asyncio.gather(*(s.stop() for s in self.servers()), return_exceptions=True)

    async def aclose(self) -> None:
        await self.close()


def server_start_bound(manager: LspManager, path: Path) -> float:
    spec = manager.spec_for(path)
    return spec.startup_ms / 1000 if spec is not None else 0.0


def _read(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None

"""Where language servers come from, in the shape Claude Code 2.1.332 reads them.

A server definition (a plugin's `lspServers`, a `.lsp.json` at a plugin's root, or `lspServers` in a
settings file) is an object keyed by server name; each entry has `command` (a program, no spaces unless an
absolute path), optional `args`, `extensionToLanguage` (`{".py": "python"}`, at least one), `transport`
("stdio"; "socket" is refused here), `env`, `initializationOptions`, `settings`
(`workspace/didChangeConfiguration`), `workspaceFolder`, `startupTimeout`, `shutdownTimeout`,
`requestTimeout` (milliseconds), `restartOnCrash`, `maxRestarts` and `diagnostics` (false: navigation only).

Built-in defaults cover the common servers when their program is on PATH; Yoke never installs one.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from typing import Any

from yoke.records import Record

DEFAULT_STARTUP_MS = 15_000
DEFAULT_REQUEST_MS = 10_000
DEFAULT_SHUTDOWN_MS = 2_000
DEFAULT_MAX_RESTARTS = 3


class ServerSpec(Record):
    """One language server definition."""

    __slots__ = (
        "name",
        "command",
        "args",
        "extensions",
        "env",
        "initialization_options",
        "settings",
        "workspace_folder",
        "startup_ms",
        "request_ms",
        "shutdown_ms",
        "restart_on_crash",
        "max_restarts",
        "diagnostics",
        "source",
    )

    name: str
    command: str
    args: list[str]
    extensions: dict[str, str]  # ".py" -> "python" (lower case, with the dot)
    env: dict[str, str]
    initialization_options: Any
    settings: Any
    workspace_folder: str | None
    startup_ms: int
    request_ms: int
    shutdown_ms: int
    restart_on_crash: bool
    max_restarts: int
    diagnostics: bool
    source: str  # "builtin", "user", "project", "local", "plugin:<name>"

    def __init__(
        self,
        name: str,
        command: str,
        args: list[str] | None = None,
        extensions: dict[str, str] | None = None,
        env: dict[str, str] | None = None,
        initialization_options: Any = None,
        settings: Any = None,
        workspace_folder: str | None = None,
        startup_ms: int = DEFAULT_STARTUP_MS,
        request_ms: int = DEFAULT_REQUEST_MS,
        shutdown_ms: int = DEFAULT_SHUTDOWN_MS,
        restart_on_crash: bool = True,
        max_restarts: int = DEFAULT_MAX_RESTARTS,
        diagnostics: bool = True,
        source: str = "builtin",
    ) -> None:
        self.name = name
        self.command = command
        self.args = list(args or [])
        self.extensions = dict(extensions or {})
        self.env = dict(env or {})
        self.initialization_options = initialization_options
        self.settings = settings
        self.workspace_folder = workspace_folder
        self.startup_ms = startup_ms
        self.request_ms = request_ms
        self.shutdown_ms = shutdown_ms
        self.restart_on_crash = restart_on_crash
        self.max_restarts = max_restarts
        self.diagnostics = diagnostics
        self.source = source


def parse_servers(raw: Any, source: str, warnings: list[str]) -> list[ServerSpec]:
    """The servers of one `lspServers` object; an entry that does not fit is left out with one warning line
    naming it (as Claude Code refuses it), the others still load."""
    if not isinstance(raw, Mapping):
        if raw is not None:
            warnings.append(f"lspServers in {source}: expected an object keyed by server name")
        return []
    out = []
    for name, entry in raw.items():
        problem = _problem(entry)
        if problem:
            warnings.append(f"language server {name!r} in {source}: {problem}; not started")
            continue
        out.append(_spec(str(name), entry, source))
    return out


def _problem(entry: Any) -> str:
    if not isinstance(entry, Mapping):
        return "expected an object"
    command = entry.get("command")
    if not isinstance(command, str) or not command:
        return "`command` is required"
    if " " in command and not command.startswith("/"):
        return "`command` must not contain spaces (put arguments in `args`)"
    args = entry.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return "`args` must be a list of strings"
    extensions = entry.get("extensionToLanguage")
    if not isinstance(extensions, Mapping) or not extensions:
        return "`extensionToLanguage` needs at least one mapping"
    if not all(isinstance(k, str) and isinstance(v, str) and k for k, v in extensions.items()):
        return "`extensionToLanguage` maps extensions to language ids (strings)"
    if entry.get("transport", "stdio") != "stdio":
        return "only the stdio transport is supported"
    env = entry.get("env", {})
    if not isinstance(env, Mapping) or not all(isinstance(v, str) for v in env.values()):
        return "`env` must map names to strings"
    for key in ("startupTimeout", "shutdownTimeout", "requestTimeout"):
        value = entry.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value <= 0):
            return f"`{key}` must be a positive whole number of milliseconds"
    value = entry.get("maxRestarts")
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
        return "`maxRestarts` must be a whole number, 0 or more"
    return ""


def _spec(name: str, entry: Mapping[str, Any], source: str) -> ServerSpec:
    extensions = {
        (k if k.startswith(".") else "." + k).lower(): v for k, v in entry["extensionToLanguage"].items()
    }
    folder = entry.get("workspaceFolder")
    return ServerSpec(
        name=name,
        command=entry["command"],
        args=list(entry.get("args", [])),
        extensions=extensions,
        env=dict(entry.get("env", {})),
        initialization_options=entry.get("initializationOptions"),
        settings=entry.get("settings"),
        workspace_folder=folder if isinstance(folder, str) and folder else None,
        startup_ms=entry.get("startupTimeout") or DEFAULT_STARTUP_MS,
        request_ms=entry.get("requestTimeout") or DEFAULT_REQUEST_MS,
        shutdown_ms=entry.get("shutdownTimeout") or DEFAULT_SHUTDOWN_MS,
        restart_on_crash=entry.get("restartOnCrash") is not False,
        max_restarts=entry.get("maxRestarts", DEFAULT_MAX_RESTARTS),
        diagnostics=entry.get("diagnostics") is not False,
        source=source,
    )


PYTHON = {".py": "python", ".pyi": "python"}
TYPESCRIPT = {
    ".ts": "typescript",
    ".tsx": "typescriptreact",
    ".mts": "typescript",
    ".cts": "typescript",
    ".js": "javascript",
    ".jsx": "javascriptreact",
    ".mjs": "javascript",
    ".cjs": "javascript",
}
C_FAMILY = {
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
}
# (name, program, args, extensions), first found per language wins; the Python ones in order of preference:
# a type checker finds what a type-breaking edit did, pylsp's default plugins (pyflakes) only names and syntax.
BUILTIN: tuple[tuple[str, str, tuple[str, ...], dict[str, str]], ...] = (
    ("basedpyright", "basedpyright-langserver", ("--stdio",), PYTHON),
    ("pyright", "pyright-langserver", ("--stdio",), PYTHON),
    ("pylsp", "pylsp", (), PYTHON),
    ("typescript", "typescript-language-server", ("--stdio",), TYPESCRIPT),
    ("gopls", "gopls", (), {".go": "go"}),
    ("rust-analyzer", "rust-analyzer", (), {".rs": "rust"}),
    ("clangd", "clangd", (), C_FAMILY),
)


def builtin_servers(env: Mapping[str, str]) -> list[ServerSpec]:
    """The built-in defaults whose program is on the session's PATH (one per language)."""
    path = env.get("PATH", os.defpath)
    found: list[ServerSpec] = []
    claimed: set[str] = set()
    for name, program, args, extensions in BUILTIN:
        if set(extensions) & claimed:
            continue
        where = shutil.which(program, path=path)
        if where is None:
            continue
        found.append(ServerSpec(name=name, command=where, args=list(args), extensions=extensions))
        claimed |= set(extensions)
    return found


def by_extension(specs: list[ServerSpec]) -> dict[str, ServerSpec]:
    """Which server handles each extension: the first definition that names it (callers list the user's own
    and plugins' before the built-in defaults)."""
    out: dict[str, ServerSpec] = {}
    for spec in specs:
        for ext in spec.extensions:
            out.setdefault(ext, spec)
    return out

"""The session's language servers (docs/lsp.md): which servers there are, the `LSP` tool, the observer that
gives edits their diagnostics, and the manager's place among what closes with the session.

Servers come, in this order of precedence per file extension, from the settings files' `lspServers`
(a project's own only once its folder is trusted: its command is a program the project chose, the rule
hooks follow), the enabled plugins' `lspServers` / `.lsp.json`, then the built-in defaults found on PATH
(unless `lsp.builtinServers` is false). Nothing starts until a file of a server's language is read or edited.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

PROJECT_SCOPES = ("project", "local")


def server_specs(settings: Any, plugins: list[Any], env: dict[str, str], warnings: list[str]) -> list[Any]:
    """Every server definition, highest precedence first."""
    from yoke.config.trust import is_trusted
    from yoke.lsp.config import builtin_servers, parse_servers
    from yoke.plugins.plugin import PluginError

    specs = []
    trusted: bool | None = None
    for source in getattr(settings, "sources", []):
        raw = source.data.get("lspServers")
        if raw is None:
            continue
        if source.scope in PROJECT_SCOPES:
            if trusted is None:
                trusted = is_trusted(
                    settings.cwd, settings.yoke_home, home=settings.home, claude_dir=settings.claude_dir
                )
            if not trusted:
                warnings.append(
                    f"this workspace ({settings.cwd}) has not been trusted: its language servers in "
                    f"{source.label} are not started; run `yoke trust` here to let them run"
                )
                continue
        specs += parse_servers(raw, source.label, warnings)
    for plugin in plugins:
        try:
            raw = plugin.expand(plugin.lsp_configs())
        except PluginError as exc:
            warnings.append(f"plugin {plugin.name}: language servers not loaded: {exc}")
            continue
        for spec in parse_servers(raw, f"plugin {plugin.name}", warnings):
            specs.append(
                spec.replace(name=f"plugin:{plugin.name}:{spec.name}", env={**plugin.env(), **spec.env})
            )
    claimed: dict[str, str] = {}
    for spec in specs:  # the first definition of an extension wins, as in 2.1.332; the others are said
        for ext in spec.extensions:
            if claimed.setdefault(ext, spec.name) != spec.name:
                warnings.append(f"language server {spec.name} is not used for {ext} files: {claimed[ext]} is")
    if _lsp_settings(settings).get("builtinServers") is not False:
        specs += builtin_servers(env)
    return specs


def _lsp_settings(settings: Any) -> dict[str, Any]:
    value = (getattr(settings, "merged", None) or {}).get("lsp")
    return value if isinstance(value, dict) else {}


def attach_language_servers(
    environment: Any, executor: Any, registry: Any, resources: Any, plugins: list[Any]
) -> Any:
    """The manager (None when no server is defined), its `LSP` tool in the registry (deferred behind
    ToolSearch where the session defers tools, as 2.1.332 offers it) and its observer on the executor."""
    settings, warnings = environment.settings, environment.warnings
    specs = server_specs(settings, plugins, environment.env, warnings)
    if not specs:
        return None
    from yoke.lsp.manager import DiagnosticsSettings, LspManager
    from yoke.lsp.observer import LspObserver
    from yoke.lsp.offer import ENTRY
    from yoke.tools.lazy import LazyTool

    diagnostics = DiagnosticsSettings.from_settings(_lsp_settings(settings), warnings)
    ctx = executor.ctx
    log_dir = ctx.session.session_dir / "lsp"
    confine = _confiner(environment, ctx, plugins, log_dir)
    manager = LspManager(specs, list(ctx.all_dirs()), dict(environment.env), diagnostics, log_dir, confine)
    ctx.session.services.lsp = manager
    resources.add(manager, "language servers")
    executor.observers.append(LspObserver(manager))
    if registry.get("LSP") is None and _offered(environment.options):
        tool = LazyTool(ENTRY)  # lsp/tool.py and pydantic load with the first call
        if registry.get("ToolSearch") is not None:
            tool.deferred = True  # type: ignore[attr-defined]
        registry.register(tool)
        registry.refresh()
    return manager


def _confiner(environment: Any, ctx: Any, plugins: list[Any], log_dir: Path) -> Any:
    """`server_sandbox` for this session, or None (servers run as they are) off Linux, where bubblewrap is
    missing, or when `lsp.sandbox` is false."""
    import sys

    from yoke.sandbox.confine import kernel_sandbox_available

    off = _lsp_settings(environment.settings).get("sandbox") is False
    if off or not sys.platform.startswith("linux") or not kernel_sandbox_available(environment.env):
        return None
    home = Path(environment.env.get("HOME") or Path.home())
    extra = [p.root for p in plugins]
    return server_sandbox(ctx.session.services.sandbox, ctx.cwd, list(ctx.all_dirs()), home, log_dir, extra)


def server_sandbox(
    sandbox: Any, cwd: Path, dirs: list[Path], home: Path, log_dir: Path, readable: list[Path]
) -> Callable[[Any], Callable[[list[str]], list[str]]]:
    """Per server, the launcher that runs it in bubblewrap much as a read-only fast-path command runs
    (sandbox/confine.py): every file read-only, the secrets hidden (the home's secret places, the working
    directories' `.env*`/key files, Read deny rules), no network, a private /tmp; the one writable folder is
    the server's own cache (`XDG_CACHE_HOME`). Unlike a command it may open unix sockets: node servers talk
    to their workers over a socketpair (typescript-language-server to tsserver), and with no network the
    only sockets it could reach are files it can see. The secret scan runs when the first server starts,
    not with the session."""
    from yoke.sandbox.settings import SandboxSettings

    base = sandbox or SandboxSettings()
    narrowed: list[Any] = []  # made once, by the first start

    def settings() -> Any:
        if not narrowed:
            from yoke.sandbox.confine import denied_in

            hidden, _ = denied_in(dirs, home, base)
            narrowed.append(
                base.replace(
                    enabled=True,
                    allow_write=(),
                    allowed_domains=(),
                    allow_all_unix_sockets=True,
                    allow_unix_sockets=(),
                    allow_local_binding=False,
                    allow_read=(),
                    deny_read=tuple(dict.fromkeys([*base.deny_read, *hidden])),
                )
            )
        return narrowed[0]

    def for_spec(spec: Any) -> Callable[[list[str]], list[str]]:
        from yoke.sandbox.linux import bwrap_command

        cache = log_dir / "cache" / spec.name.replace(":", "-")
        cache.mkdir(parents=True, exist_ok=True)
        spec.env.setdefault("XDG_CACHE_HOME", str(cache))

        def launcher(argv: list[str]) -> list[str]:
            return bwrap_command(
                argv,
                settings(),
                cwd,
                [],  # no working directory is writable
                home=home,
                writable=[cache],
                # reads are an allowlist (sandbox/visible.py): the system, the toolchains on PATH (the
                # server's own install), the working directories and a plugin's own install, wherever they
                # are (one under /tmp would be covered by the private /tmp); not the rest of the home
                readable=[*dirs, *readable],
                visible=_install_of(argv, spec.env),
                proxy_socket=None,
            )

        return launcher

    return for_spec


def _offered(options: Any) -> bool:
    """`--tools` that does not name LSP leaves it out."""
    return options.tools is None or "LSP" in options.tools


def _install_of(argv: list[str], env: dict[str, str]) -> list[Path]:
    """Where a server's program is installed (its real path's folder's parent: `…/bin/pylsp` -> `…`, a
    node script in `node_modules/x/lib/cli.mjs` -> `node_modules/x`), and the folder of each absolute path
    among its arguments (a script it runs), so it can read itself and nothing else outside."""
    import os
    import shutil

    if not argv:
        return []
    found = shutil.which(argv[0], path=env.get("PATH") or os.environ.get("PATH")) or argv[0]
    real = Path(os.path.realpath(found))
    out = [real.parent.parent if real.parent.parent != Path("/") else real.parent]
    out += [Path(os.path.realpath(a)).parent for a in argv[1:] if os.path.isabs(a) and os.path.exists(a)]
    return out

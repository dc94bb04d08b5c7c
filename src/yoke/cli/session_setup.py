"""Assemble a headless session: settings, provider, tools, gate, system prompt, transcript, agent.

This is the one place the layers meet; each piece is built by the package that owns it.
"""

from __future__ import annotations

import os
import re
import sys
import uuid
from argparse import Namespace
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from yoke.cli.args import split_tool_list
from yoke.cli.headless_session import HeadlessSession
from yoke.cli.printers import make_printer
from yoke.cli.session_wiring import attach_compactor, checkpointer, nested_memory, todo_recorder
from yoke.loop import events as ev
from yoke.loop.turn import Agent, LoopSettings
from yoke.permissions.gate import NoAsker
from yoke.providers.base import ProviderError


class SetupError(Exception):
    """A problem with the user's flags, files or environment: one line, no traceback."""

    def __init__(self, message: str, usage: bool = False):
        super().__init__(message)
        self.usage = usage


async def build_session(args: Namespace, cwd: Path, env: Mapping[str, str]) -> HeadlessSession:
    import asyncio

    from yoke.context.git import git_context

    git_pending = asyncio.ensure_future(git_context(cwd))  # git's subprocesses run while the rest is set up
    for _ in range(3):  # let the task reach its subprocess spawns before the synchronous work below
        await asyncio.sleep(0)
    try:
        return await _build_session(args, cwd, git_pending)
    except BaseException:
        # A setup error must not leave git's subprocesses orphaned mid-read: wait for them to finish.
        await asyncio.gather(git_pending, return_exceptions=True)
        raise


async def _build_session(args: Namespace, cwd: Path, git_pending: Any) -> HeadlessSession:
    warnings: list[str] = []
    settings = _load_settings(args, cwd, warnings)
    merged: dict[str, Any] = getattr(settings, "merged", {}) or {}
    _apply_settings_env(settings, cwd, warnings)
    env = os.environ

    provider, provider_name, model = _make_provider(args, merged, env)
    registry = _tools(args)
    home = _home(env)
    session_id, transcript, chain, loaded = _session(args, cwd, home)
    add_dirs = [Path(d).expanduser().resolve() for d in args.add_dirs]
    gate = _gate(args, settings, cwd, add_dirs, warnings, home)
    # A bare deny rule (`Bash`, `mcp__*`) hides the tool from the model altogether, as in Claude Code.
    for name in gate.hidden_tools(registry.names()):
        registry.remove(name)
    working_dirs = list(getattr(gate, "working_dirs", None) or [cwd, *add_dirs])
    pending: list = []  # events raised outside the loop's own steps, drained by the loop
    mcp = await _mcp(args, cwd, merged, registry, gate, warnings, pending)
    session_dir = transcript.path.with_suffix("") if transcript.enabled else home / "tmp" / session_id

    from yoke.loop.recorder import Recorder
    from yoke.memory import MemoryIndex

    memory = MemoryIndex(cwd, home=Path(env.get("HOME") or Path.home()), env=env)
    recorder = Recorder(transcript, chain)
    executor = _executor(registry, gate, cwd, working_dirs, session_dir, loaded, recorder, memory, pending)
    system = await _system_prompt(args, cwd, model, registry.names(), memory, working_dirs, git_pending)
    agent = Agent(
        provider=provider,
        executor=executor,
        settings=_loop_settings(args, model, env),
        recorder=recorder,
        system=system,
        messages=list(loaded.messages) if loaded is not None else [],
        pending=pending,
    )
    if loaded is not None and loaded.model_usage:
        agent.ledger.restore(loaded.model_usage)
    attach_compactor(agent, model, session_dir, memory)
    mode = getattr(gate, "mode", args.permission_mode or "default")
    started = ev.SessionStarted(session_id, model, str(cwd), registry.names(), mode, provider_name)
    init_extra: dict[str, Any] = {"apiKeySource": _api_key_source(env)}
    if mcp is not None:
        init_extra["mcp_servers"] = mcp.entries()
        executor.ctx.session.extras.setdefault("resources", []).append(mcp)
    printer = make_printer(args.output_format, args.verbose, init_extra=init_extra)
    warnings.extend(getattr(gate, "warnings", []) or [])
    if args.permission_prompt_tool not in (None, "stdio"):
        warnings.append(
            f"--permission-prompt-tool {args.permission_prompt_tool}: only 'stdio' is supported yet; "
            "permission questions are answered no"
        )
    for warning in warnings:
        print(f"yoke: warning: {warning}", file=sys.stderr)
    return HeadlessSession(
        agent,
        printer,
        started,
        args.input_format,
        provider,
        cwd,
        model,
        executor.ctx,
        [],
        args.permission_prompt_tool,
        bool(args.debug),
    )


async def _mcp(
    args: Namespace, cwd: Path, merged: dict, registry: Any, gate: Any, warnings: list, pending: list
) -> Any:
    """MCP servers from every configuration source (yoke.mcp.attach); None when none is configured."""
    from yoke.mcp.attach import attach_mcp

    def notify(kind: str, message: str, data: dict) -> None:
        pending.append(ev.Notice(kind, message, data))

    return await attach_mcp(
        cwd,
        merged,
        registry,
        warnings,
        flag_configs=args.mcp_config,
        strict=args.strict_mcp_config,
        notify=notify,
        hide=gate.hidden_tools,
    )


def _executor(
    registry: Any,
    gate: Any,
    cwd: Path,
    working_dirs: list[Path],
    session_dir: Path,
    loaded: Any,
    recorder: Any,
    memory: Any,
    pending: list,
) -> Any:
    """The tool executor and the context every tool call gets."""
    from yoke.tools.base import SessionState, ToolContext
    from yoke.tools.executor import ToolExecutor

    state = SessionState(session_id=recorder.session_id, session_dir=session_dir)
    state.extras["sandbox"] = getattr(gate, "sandbox", None)  # the Bash tool runs commands inside it
    if loaded is not None and loaded.todos:
        state.extras["todos"] = list(loaded.todos)
    ctx = ToolContext(cwd=cwd, session=state, working_dirs=working_dirs, asker=NoAsker())
    ctx.emit = todo_recorder(recorder, pending)
    return ToolExecutor(
        registry,
        gate,
        ctx,
        before_change=checkpointer(session_dir, recorder, cwd),
        annotate=nested_memory(memory),
    )


def _loop_settings(args: Namespace, model: str, env: Mapping[str, str]) -> LoopSettings:
    return LoopSettings(
        model=model,
        max_turns=args.max_turns,
        max_budget_usd=args.max_budget_usd,
        max_tokens=args.max_tokens or _int_env(env, "YOKE_MAX_OUTPUT_TOKENS", 32000),
        thinking_budget=args.max_thinking_tokens,
        include_partial=args.include_partial_messages,
    )


def _home(env: Mapping[str, str]) -> Path:
    from yoke.session.transcript import yoke_home

    return yoke_home(dict(env))


def _int_env(env: Mapping[str, str], name: str, default: int) -> int:
    try:
        return int(env.get(name, default))
    except ValueError:
        raise SetupError(f"{name} must be a whole number (got {env.get(name)!r})") from None


def _load_settings(args: Namespace, cwd: Path, warnings: list[str]) -> Any:
    from yoke.config.settings import load_settings

    sources = None
    if args.setting_sources is not None:
        sources = [s.strip() for s in args.setting_sources.split(",") if s.strip()]
    try:
        loaded = load_settings(cwd, flag_settings=args.settings, setting_sources=sources)
    except (OSError, ValueError) as exc:
        raise SetupError(f"--settings: {exc}") from None
    warnings.extend(getattr(loaded, "warnings", []) or [])
    return loaded


# Variables that point Yoke at an endpoint or carry a credential: an untrusted project must not set them
# (a cloned repository could otherwise send the user's API key to a server of its choosing).
_GUARDED_ENV = re.compile(r"(_BASE_URL|_API_KEY|_AUTH_TOKEN|_CUSTOM_HEADERS|_PROXY|^AWS_|^GOOGLE_)", re.I)


def _apply_settings_env(settings: Any, cwd: Path, warnings: list[str]) -> None:
    """Settings' `env` blocks apply to the session and, as in Claude Code, override the shell's exports
    (an empty string unsets). Lowest precedence first, so higher sources win. A project's or local file's
    endpoint and credential variables apply only once the folder is trusted."""
    sources = list(getattr(settings, "sources", []) or [])
    trusted = None
    for source in reversed(sources):
        block = source.data.get("env")
        if not isinstance(block, dict):
            continue
        for key, value in block.items():
            if not isinstance(key, str) or value is None:
                continue
            if source.scope in ("project", "local") and _GUARDED_ENV.search(key):
                if trusted is None:
                    trusted = _folder_trusted(cwd)
                if not trusted:
                    warnings.append(
                        f"{source.label}: env {key} is ignored until this folder is trusted (yoke trust)"
                    )
                    continue
            if value == "":
                os.environ.pop(key, None)
            else:
                os.environ[key] = str(value)


def _folder_trusted(cwd: Path) -> bool:
    from yoke.permissions.trust import is_trusted
    from yoke.session.transcript import yoke_home

    return is_trusted(cwd, yoke_home())


def _make_provider(args: Namespace, merged: dict[str, Any], env: Mapping[str, str]) -> tuple[Any, str, str]:
    from yoke.providers.select import make_provider, resolve_provider

    flag_provider = args.provider
    if args.replay:
        if flag_provider not in (None, "replay"):
            raise SetupError(
                "--replay plays a cassette back; it cannot be combined with --provider", usage=True
            )
        flag_provider = "replay"
    try:
        config = resolve_provider(flag_provider, args.model, merged, env)
        if config.provider == "replay":
            path = args.replay or env.get("YOKE_REPLAY")
            if not path:
                raise SetupError(
                    "the replay provider needs a cassette: --replay FILE (or YOKE_REPLAY)", usage=True
                )
            from yoke.providers.replay import ReplayProvider

            provider = ReplayProvider(Path(path))
            model = args.model or provider.model or config.model
        else:
            provider = make_provider(config)
            model = config.model
        if args.record:
            from yoke.providers.record import record_provider

            record_provider(provider, Path(args.record), model)
    except ProviderError as exc:
        raise SetupError(str(exc), usage=exc.kind == "config") from None
    return provider, config.provider, model


def _tools(args: Namespace) -> Any:
    from yoke.tools.builtin import builtin_tools
    from yoke.tools.registry import ToolRegistry

    registry = ToolRegistry(builtin_tools())
    if args.tools is not None and args.tools.strip() != "default":
        wanted = split_tool_list([args.tools])
        unknown = [n for n in wanted if registry.get(n) is None]
        if unknown:
            raise SetupError(
                f"--tools: unknown tool(s) {', '.join(unknown)} (available: {', '.join(registry.names())})",
                usage=True,
            )
        keep = {registry.get(n).name for n in wanted}  # type: ignore[union-attr]
        for name in registry.names():
            if name not in keep:
                registry.remove(name)
    return registry


def _gate(
    args: Namespace, settings: Any, cwd: Path, add_dirs: list[Path], warnings: list[str], home: Path
) -> Any:
    from yoke.permissions import build_gate

    mode = "bypassPermissions" if args.dangerously_skip_permissions else args.permission_mode
    try:
        return build_gate(
            settings,
            cwd=cwd,
            mode=mode,
            allowed_tools=split_tool_list(args.allowed_tools),
            disallowed_tools=split_tool_list(args.disallowed_tools),
            add_dirs=add_dirs,
            interactive=False,
            allow_bypass=bool(args.allow_dangerously_skip_permissions or mode == "bypassPermissions"),
        )
    except ValueError as exc:
        raise SetupError(str(exc), usage=True) from None


def _session(args: Namespace, cwd: Path, home: Path) -> tuple[str, Any, Any, Any]:
    """The session id, transcript, record chain and (when resuming) what was loaded."""
    from yoke.session.records import RecordChain
    from yoke.session.transcript import Transcript, transcript_path

    loaded = None
    parent_uuid = None
    session_id = args.session_id or str(uuid.uuid4())
    if args.continue_session or args.resume is not None:
        from yoke.session import store

        try:
            if args.continue_session and not args.resume:
                path = store.latest_session(cwd, home)
                if path is None:
                    raise SetupError("--continue: no earlier session in this directory")
            else:
                if not args.resume:
                    raise SetupError("--resume needs a session id or path in headless mode", usage=True)
                path = store.find_session(args.resume, cwd, home)
            if args.fork_session or args.session_id:
                # A fork gets its own transcript holding a copy of the history (fresh uuids, forkedFrom).
                session_id, path = store.fork_session(path, cwd, home, args.session_id or None)
            loaded = store.load_conversation(path)
        except (FileNotFoundError, LookupError, ValueError) as exc:
            raise SetupError(str(exc)) from None
        session_id = loaded.session_id if not (args.fork_session or args.session_id) else session_id
        parent_uuid = loaded.last_uuid
    transcript = Transcript(transcript_path(cwd, session_id, home), enabled=not args.no_session_persistence)
    chain = RecordChain(
        session_id=session_id, cwd=str(cwd), entrypoint=_entrypoint(), parent_uuid=parent_uuid
    )
    return session_id, transcript, chain, loaded


def _entrypoint() -> str:
    return os.environ.get("CLAUDE_CODE_ENTRYPOINT") or "cli"


async def _system_prompt(
    args: Namespace,
    cwd: Path,
    model: str,
    tool_names: list[str],
    memory: Any,
    working_dirs: list[Path],
    git_pending: Any = None,
) -> list:
    override = args.system_prompt
    if args.system_prompt_file:
        override = _read_text(args.system_prompt_file, "--system-prompt-file")
    append = args.append_system_prompt
    if args.append_system_prompt_file:
        extra = _read_text(args.append_system_prompt_file, "--append-system-prompt-file")
        append = f"{append}\n\n{extra}" if append else extra
    from yoke.context.prompt import build_system_prompt

    return await build_system_prompt(
        cwd=cwd,
        model=model,
        tool_names=tool_names,
        override=override,
        append=append,
        memory_index=memory,
        additional_dirs=[d for d in working_dirs if d != cwd],
        git_pending=git_pending,
    )


def _read_text(path: str, flag: str) -> str:
    try:
        return Path(path).expanduser().read_text(encoding="utf-8")
    except OSError as exc:
        raise SetupError(f"{flag}: cannot read {path}: {exc.strerror or exc}") from None


def _api_key_source(env: Mapping[str, str]) -> str:
    if env.get("ANTHROPIC_API_KEY"):
        return "ANTHROPIC_API_KEY"
    if env.get("ANTHROPIC_AUTH_TOKEN"):
        return "ANTHROPIC_AUTH_TOKEN"
    return "none"

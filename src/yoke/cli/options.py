"""Flags to `SessionOptions`: the CLI's whole part in building a session."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from yoke.config.settings import split_tool_list
from yoke.jsonsafe import loads as safe_json
from yoke.session import SessionError
from yoke.session.options import SessionOptions

if TYPE_CHECKING:
    from argparse import Namespace

# --restricted removes these unless --tools names them (the built-ins that run commands or code, and WebFetch)
RESTRICTED_TOOLS = ("Bash", "WebFetch")


def options_from_args(args: Namespace, cwd: Path) -> SessionOptions:
    mode = "bypassPermissions" if args.dangerously_skip_permissions else args.permission_mode
    tools = None
    named: list[str] = []
    if args.tools is not None:
        names = named = split_tool_list(args.tools)
        tools = None if names == ["default"] else names
    disallowed = split_tool_list(args.disallowed_tools)
    sources = _sources(args.setting_sources)
    if args.restricted:
        disallowed += [t for t in RESTRICTED_TOOLS if t not in named]
        sources = []  # user, project and local settings files are ignored; --settings still applies
    env = None
    if args.autocompact not in (None, "auto"):  # validated in cli/args.py: a whole number >= 100,000
        from yoke.session.wiring import autocompact_env

        env = autocompact_env(os.environ, args.autocompact)
    options = SessionOptions(
        env=env,
        cwd=cwd,
        model=args.model,
        provider=args.provider,
        profile=getattr(args, "profile", None),
        replay=Path(args.replay) if args.replay else None,
        record=Path(args.record) if args.record else None,
        fallback_model=args.fallback_model,
        max_output_tokens=args.max_tokens,
        max_thinking_tokens=_thinking_budget(args),
        show_subagent_thinking=bool(getattr(args, "forward_subagent_text", False)),
        effort=args.effort,
        betas=[b for v in args.betas for b in v.replace(" ", ",").split(",") if b],
        json_schema=_json_schema(args.json_schema),
        system_prompt=_prompt(args.system_prompt, args.system_prompt_file, "--system-prompt-file"),
        append_system_prompt=_appended(args),
        tools=tools,
        allowed_tools=split_tool_list(args.allowed_tools),
        disallowed_tools=disallowed,
        permission_mode=mode,
        allow_bypass=bool(args.allow_dangerously_skip_permissions),
        add_dirs=[Path(d) for d in args.add_dirs],
        plugin_dirs=[Path(d) for d in args.plugin_dirs],
        settings=args.settings,
        setting_sources=sources,
        mcp_config=list(args.mcp_config),
        strict_mcp_config=bool(args.strict_mcp_config),
        max_turns=args.max_turns,
        max_budget_usd=args.max_budget_usd,
        include_partial_messages=args.include_partial_messages,
        resume=args.resume,
        continue_session=args.continue_session,
        fork_session=args.fork_session,
        session_id=args.session_id,
        persist=not args.no_session_persistence,
        entrypoint=os.environ.get("CLAUDE_CODE_ENTRYPOINT") or "cli",
        agents=args.agents,  # the agents package parses and reports a bad --agents
        agent=args.agent,
        worktree=args.worktree,
    )
    options.restricted = bool(args.restricted)
    return options


def _json_object(text: str, flag: str) -> dict:
    try:
        value = safe_json(text)
    except json.JSONDecodeError as exc:
        raise SessionError(f"{flag}: not valid JSON ({exc.msg} at position {exc.pos})", usage=True) from None
    if not isinstance(value, dict):
        raise SessionError(f"{flag}: expected a JSON object, got {type(value).__name__}", usage=True)
    return value


def _json_schema(text: str | None) -> dict | None:
    """--json-schema takes the schema itself (as Claude Code) or, as a convenience, a file holding it."""
    if text is None:
        return None
    if not text.lstrip().startswith("{") and Path(text).expanduser().is_file():
        text = _read_text(text, "--json-schema")
    schema = _json_object(text, "--json-schema")
    from yoke.session.structured import check_schema

    problem = check_schema(schema)
    if problem:
        raise SessionError(f"--json-schema: invalid schema: {problem}", usage=True)
    return schema


def _sources(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [s.strip() for s in value.split(",") if s.strip()]


def _prompt(text: str | None, file: str | None, flag: str) -> str | None:
    return _read_text(file, flag) if file else text


def _appended(args: Namespace) -> str | None:
    append = args.append_system_prompt
    if args.append_system_prompt_file:
        extra = _read_text(args.append_system_prompt_file, "--append-system-prompt-file")
        append = f"{append}\n\n{extra}" if append else extra
    return append


def _read_text(path: str, flag: str) -> str:
    try:
        return Path(path).expanduser().read_text(encoding="utf-8")
    except OSError as exc:
        raise SessionError(f"{flag}: cannot read {path}: {exc.strerror or exc}") from None


def api_key_source(env: dict[str, str] | os._Environ) -> str:
    if env.get("ANTHROPIC_API_KEY"):
        return "ANTHROPIC_API_KEY"
    if env.get("ANTHROPIC_AUTH_TOKEN"):
        return "ANTHROPIC_AUTH_TOKEN"
    return "none"


def _thinking_budget(args: Namespace) -> int | None:
    """--max-thinking-tokens; the SDKs' `--thinking disabled` is a budget of 0 (off where a model takes a
    budget; the adaptive models think anyway, as 2.1.330 sends them)."""
    if args.max_thinking_tokens is None and getattr(args, "thinking", None) == "disabled":
        return 0
    return args.max_thinking_tokens

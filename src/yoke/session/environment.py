"""Assembly, stage one: the session's environment. Settings (a bad `--settings` file is fatal), the
environment commands run with (settings' `env` applied to a copy, as far as trust allows), model
capabilities borrowed through `behavesAs`, the Yoke home, and the agent definitions (with `--agent NAME`
the session takes that agent's prompt, model and mode)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from yoke.session.engine import SessionError
from yoke.session.options import SessionOptions
from yoke.session.stages import Environment, Inherited


def environment_stage(options: SessionOptions, cwd: Path, inherited: Inherited | None = None) -> Environment:
    """The session's environment. A sub-agent's is its parent's, in its own folder when it has one (a
    worktree), with its own warnings (starting with what its runner found)."""
    if inherited is not None:
        parent = inherited.stages.environment
        options_ = inherited.options
        return parent.replace(cwd=options_.cwd or inherited.parent.cwd, warnings=list(options_.warnings))
    warnings: list[str] = []
    settings = session_settings(options, cwd, warnings)
    merged: dict[str, Any] = getattr(settings, "merged", {}) or {}
    env = session_env(settings, cwd, options.env, warnings)
    options = _with_profile(options, cwd, settings, env, warnings)
    merged = getattr(settings, "merged", {}) or {}
    apply_behaves_as(merged, warnings)
    options, catalog = agent_catalog(options, cwd, env, warnings)
    return Environment(
        options=options,
        cwd=cwd,
        settings=settings,
        env=env,
        home=session_yoke_home(env),
        add_dirs=[Path(d).expanduser().resolve() for d in options.add_dirs],
        catalog=catalog,
        warnings=warnings,
    )


def _with_profile(
    options: SessionOptions, cwd: Path, settings: Any, env: dict[str, str], warnings: list[str]
) -> SessionOptions:
    from yoke.session.profiles import apply_profile

    return apply_profile(options, cwd, settings, env, warnings)


def agent_catalog(
    options: SessionOptions, cwd: Path, env: Mapping[str, str], warnings: list[str]
) -> tuple[SessionOptions, Any]:
    """The agent definitions this session can start; with `--agent NAME` the main session takes that
    agent's prompt, model and mode (its tools: `capabilities.register_agent_tools`)."""
    from yoke.agents import catalog_for

    try:
        catalog = catalog_for(cwd, env, options.agents)
    except ValueError as exc:
        raise SessionError(str(exc), usage=True) from None
    warnings.extend(catalog.warnings)
    if options.agent:
        definition = catalog.get(options.agent)
        if definition is None:
            raise SessionError(
                f"--agent: no agent called {options.agent!r} (agents: {', '.join(catalog.names())})"
            )
        options = replace(
            options,
            system_prompt=options.system_prompt or definition.prompt or None,
            model=options.model or (definition.model if definition.model != "inherit" else None),
            permission_mode=options.permission_mode or definition.permission_mode,
        )
    return options, catalog


def session_settings(options: SessionOptions, cwd: Path, warnings: list[str]) -> Any:
    from yoke.config.settings import load_settings

    try:
        home = Path(options.env["HOME"]) if options.env is not None and options.env.get("HOME") else None
        loaded = load_settings(
            cwd, home=home, flag_settings=options.settings, setting_sources=options.setting_sources
        )
    except (OSError, ValueError) as exc:
        raise SessionError(f"--settings: {exc}") from None
    found = list(getattr(loaded, "warnings", []) or [])
    if options.settings is not None:
        # a file named on the command line must be usable: a problem with it is fatal, not a warning
        fatal = [w for w in found if w.startswith(("--settings", *_flag_file_labels(options.settings, cwd)))]
        if fatal:
            raise SessionError(fatal[0].removesuffix("; ignored"))
    warnings.extend(found)
    return loaded


def _flag_file_labels(value: str, cwd: Path) -> tuple[str, ...]:
    if value.strip().startswith("{"):
        return ()
    path = Path(value.strip()).expanduser()
    return (f"{path if path.is_absolute() else cwd / path}:",)


def session_env(
    settings: Any, cwd: Path, base: Mapping[str, str] | None, warnings: list[str]
) -> dict[str, str]:
    """The session's environment: the caller's (or Yoke's own) with settings' `env` blocks applied, as in
    Claude Code overriding the shell's exports (an empty string unsets). Trust is decided first, from the
    Yoke home as it was before any settings applied; `config.env_policy` says what a project may set."""
    from yoke.config.env_policy import apply_env, settings_env
    from yoke.config.trust import is_trusted

    env = dict(os.environ if base is None else base)
    sources = list(getattr(settings, "sources", []) or [])
    trusted = not any(
        s.scope in ("project", "local") and isinstance(s.data.get("env"), dict) for s in sources
    )
    if not trusted:
        trusted = is_trusted(cwd, settings.yoke_home, home=settings.home, claude_dir=settings.claude_dir)
    apply_env(settings_env(sources, trusted, warnings), env)
    from yoke.tools.shell.output import SETTING_ENV, setting_limit

    limit = setting_limit((getattr(settings, "merged", {}) or {}).get("bashOutputMaxChars"))
    if limit is not None:
        env[SETTING_ENV] = limit
    return env


def apply_behaves_as(merged: Mapping[str, Any], warnings: list[str]) -> None:
    """Claude Code's `modelPicker.options[].behavesAs`: a model Yoke does not know takes a known one's
    capabilities (effort levels and default, thinking, context window, max output), never its price."""
    from yoke.providers.pricing import set_behaves_as

    picker = merged.get("modelPicker")
    rows = picker.get("options") if isinstance(picker, dict) else None
    if picker is not None and not isinstance(rows, list):
        warnings.append('settings: "modelPicker" must be an object with an "options" array; ignored')
        rows = []
    pairs = {}
    for row in rows or ():
        if (
            isinstance(row, dict)
            and isinstance(row.get("model"), str)
            and isinstance(row.get("behavesAs"), str)
        ):
            pairs[row["model"]] = row["behavesAs"]
    set_behaves_as(pairs)


def session_yoke_home(env: Mapping[str, str]) -> Path:
    from yoke.session.transcript import yoke_home

    return yoke_home(dict(env))

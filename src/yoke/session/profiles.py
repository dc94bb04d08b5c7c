"""A session's profile (`config/profiles.py` defines and chooses them): applied in the environment stage.

The profile's provider and model act as `--provider` / `--model` when those are not given; its budget as
`--max-budget-usd`; its sandbox and permission mode as the lowest-precedence settings (any settings file
or flag says otherwise, it wins). Its base URL and its key go into the session's own environment, under
the provider's variables, and nowhere else: the key is read from the variable, file or program the profile
names each time a session starts, and never written by Yoke.

A profile a project defines (`.yoke/profiles.json`) applies only in a trusted folder: its helper command is
a program the project names, and its base URL is where your key would be sent. In an untrusted folder it is
ignored with a warning, and its helper never runs. `.yoke/profile` naming one of your own profiles is only
a choice among yours, so it applies anywhere.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from yoke.config.profiles import (
    Profile,
    ProfileError,
    choose,
    load_profiles,
    project_profiles_file,
    user_file,
)
from yoke.session.engine import SessionError
from yoke.session.options import SessionOptions

KEY_VARIABLE = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai": "OPENAI_API_KEY",
    "openai-responses": "OPENAI_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "grok": "XAI_API_KEY",
    "foundry": "ANTHROPIC_FOUNDRY_API_KEY",
}
BASE_URL_VARIABLE = {
    "anthropic": "ANTHROPIC_BASE_URL",
    "openai": "OPENAI_BASE_URL",
    "openai-responses": "OPENAI_BASE_URL",
    "gemini": "GEMINI_BASE_URL",
    "grok": "GROK_BASE_URL",
    "foundry": "ANTHROPIC_FOUNDRY_BASE_URL",
}
HELPER_TIMEOUT_S = 20.0
MAX_KEY_BYTES = 16 * 1024


def all_profiles(yoke_home: Path, cwd: Path) -> tuple[dict[str, Profile], str | None]:
    """The user's profiles, with the project's (`.yoke/profiles.json`) over them, and the user's default."""
    profiles, default = load_profiles(user_file(yoke_home), "user")
    project = project_profiles_file(cwd)
    if project is not None:
        own, _ = load_profiles(project, "project")
        profiles.update(own)
    return profiles, default


def selected_profile(
    options: SessionOptions, cwd: Path, settings: Any, env: Mapping[str, str], warnings: list[str]
) -> tuple[Profile, str] | None:
    """The profile this session uses and why, or None. Raises SessionError for a profile named but unknown,
    or named while the profiles file is broken (unnamed, a broken file is a warning: the session goes on)."""
    from yoke.config.settings import yoke_home_dir

    home = getattr(settings, "yoke_home", None) or yoke_home_dir(env=env)
    try:
        profiles, default = all_profiles(home, cwd)
    except ProfileError as exc:
        if options.profile or env.get("YOKE_PROFILE"):
            raise SessionError(str(exc)) from None
        warnings.append(f"{exc}; no profile applied")
        return None
    merged = getattr(settings, "merged", {}) or {}
    choice = choose(options.profile, env, cwd, merged, default)
    if choice is None:
        return None
    profile = profiles.get(choice.name)
    if profile is None:
        known = ", ".join(sorted(profiles)) or "none yet: yoke profile add NAME ..."
        raise SessionError(f"no profile {choice.name!r} (from {choice.why}); profiles: {known}")
    return profile, choice.why


def apply_profile(
    options: SessionOptions, cwd: Path, settings: Any, env: dict[str, str], warnings: list[str]
) -> SessionOptions:
    """The options and environment with the chosen profile applied (`env` is the session's own copy)."""
    found = selected_profile(options, cwd, settings, env, warnings)
    if found is None:
        return options
    profile, why = found
    if profile.scope == "project" and not _trusted(cwd, settings):
        warnings.append(
            f"profile {profile.name!r} from {profile.origin} is ignored until this folder is trusted "
            "(yoke trust): a project's profile names a program to run and where your key is sent"
        )
        return options
    provider = options.provider or profile.provider
    try:
        env.update(provider_env(profile, provider, env, cwd))
    except ProfileError as exc:
        raise SessionError(str(exc)) from None
    _settings_defaults(settings, profile)
    return replace(
        options,
        profile=profile.name,
        provider=provider,
        model=options.model or profile.model,
        max_budget_usd=options.max_budget_usd
        if options.max_budget_usd is not None
        else profile.max_budget_usd,
    )


def provider_env(profile: Profile, provider: str | None, env: Mapping[str, str], cwd: Path) -> dict[str, str]:
    """The variables a profile sets for `provider`: its base URL, and the key its reference leads to."""
    out: dict[str, str] = {}
    if profile.base_url and provider in BASE_URL_VARIABLE:
        out[BASE_URL_VARIABLE[provider]] = profile.base_url
    if profile.credential and provider in KEY_VARIABLE:
        out[KEY_VARIABLE[provider]] = credential(profile, env, cwd)
    return out


def _trusted(cwd: Path, settings: Any) -> bool:
    from yoke.config.trust import is_trusted

    return is_trusted(
        cwd,
        settings.yoke_home,
        home=getattr(settings, "home", None),
        claude_dir=getattr(settings, "claude_dir", None),
    )


def _settings_defaults(settings: Any, profile: Profile) -> None:
    """The profile's sandbox and permission mode as the lowest-precedence settings source."""
    from yoke.config.settings import SettingsSource, merge_settings

    data: dict[str, Any] = {}
    if profile.sandbox is not None:
        data["sandbox"] = {"enabled": profile.sandbox}
    if profile.permission_mode:
        data["permissions"] = {"defaultMode": profile.permission_mode}
    if not data or settings is None or not hasattr(settings, "sources"):
        return
    origin = Path(profile.origin) if profile.origin else None
    settings.sources = [
        *settings.sources,
        SettingsSource("user", origin, data, (origin or Path.home()).parent),
    ]
    settings.merged = merge_settings([s.data for s in settings.sources])


def credential(profile: Profile, env: Mapping[str, str], cwd: Path) -> str:
    """The key a profile's credential reference leads to (never stored)."""
    kind, ref = next(iter(profile.credential.items()))
    where = f"profile {profile.name!r}"
    if kind == "env":
        value = env.get(ref, "")
        if not value:
            raise ProfileError(f"{where}: its key variable {ref} is not set")
        return value
    if kind == "file":
        path = Path(os.path.expanduser(ref))
        path = path if path.is_absolute() else cwd / path
        try:
            value = path.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ProfileError(f"{where}: cannot read its key file {path} ({exc.strerror or exc})") from None
        if not value:
            raise ProfileError(f"{where}: its key file {path} is empty")
        return value
    return _helper(ref, env, cwd, where)


def _helper(command: str, env: Mapping[str, str], cwd: Path, where: str) -> str:
    """Run the helper (through the shell, as Claude Code runs `apiKeyHelper`); its first line is the key."""
    import subprocess

    from yoke import spawn

    try:
        proc = spawn.run(
            spawn.shell_argv(command),
            confine=None,  # the user's own helper (a project's runs only once the folder is trusted)
            cwd=cwd,
            env=dict(env),
            timeout=HELPER_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        raise ProfileError(f"{where}: its key helper did not finish in {HELPER_TIMEOUT_S:g}s") from None
    except OSError as exc:
        raise ProfileError(f"{where}: cannot run its key helper ({exc.strerror or exc})") from None
    if proc.returncode != 0:
        said = proc.stderr.decode(errors="replace").strip().splitlines()
        raise ProfileError(
            f"{where}: its key helper exited with {proc.returncode}" + (f": {said[-1][:200]}" if said else "")
        )
    lines = proc.stdout[:MAX_KEY_BYTES].decode(errors="replace").strip().splitlines()
    if not lines or not lines[0].strip():
        raise ProfileError(f"{where}: its key helper printed nothing")
    return lines[0].strip()

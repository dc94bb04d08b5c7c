"""`yoke profile add|use|list|rm`: the user's profiles in `$YOKE_HOME/profiles.json` (config/profiles.py),
and `.yoke/profile` for a project's choice. A profile holds a key's reference, never the key."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from yoke.config.profiles import (
    PROJECT_CHOICE,
    Profile,
    ProfileError,
    choose,
    load_profiles,
    parse_profile,
    save_user_profiles,
    user_file,
)
from yoke.session.admin import AdminError


def _home(env: Mapping[str, str]) -> Path:
    from yoke.config.settings import yoke_home_dir

    return yoke_home_dir(env=env)


def _load(env: Mapping[str, str]) -> tuple[dict[str, Profile], str | None]:
    try:
        return load_profiles(user_file(_home(env)), "user")
    except ProfileError as exc:
        raise AdminError(str(exc)) from None


def add_profile(name: str, fields: dict[str, Any], env: Mapping[str, str], force: bool = False) -> str:
    profiles, default = _load(env)
    if name in profiles and not force:
        raise AdminError(f"profile {name!r} exists; pass --force to replace it")
    if (fields.get("credential") or fields.get("baseUrl")) and not fields.get("provider"):
        raise AdminError("a profile with a key or a base URL names its provider (--provider)")
    try:
        profiles[name] = parse_profile(name, fields)
    except ProfileError as exc:
        raise AdminError(str(exc)) from None
    path = save_user_profiles(_home(env), profiles, default)
    return f"Profile {name!r} saved in {path}: {profiles[name].summary()}"


def remove_profile(name: str, env: Mapping[str, str]) -> str:
    profiles, default = _load(env)
    if name not in profiles:
        raise AdminError(f"no profile {name!r}")
    del profiles[name]
    save_user_profiles(_home(env), profiles, None if default == name else default)
    return f"Profile {name!r} removed" + (" (it was the default)" if default == name else "")


def use_profile(name: str | None, env: Mapping[str, str], cwd: Path, project: bool = False) -> str:
    """Make `name` the user's default, or (`project`) this folder's choice in `.yoke/profile`; None clears."""
    profiles, default = _load(env)
    if name is not None and name not in profiles and not project:
        raise AdminError(
            f"no profile {name!r}; add it first: yoke profile add {name} --provider ... --model ..."
        )
    if project:
        path = cwd / PROJECT_CHOICE
        if name is None:
            path.unlink(missing_ok=True)
            return f"{path} removed"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(name + "\n", encoding="utf-8")
        return f"This folder uses profile {name!r} ({path})"
    save_user_profiles(_home(env), profiles, name)
    return f"Default profile: {name}" if name else "No default profile"


def list_profiles(env: Mapping[str, str], cwd: Path) -> list[tuple[str, str, str, bool]]:
    """(name, where it is defined, summary, in force here) for each profile the user and this project define."""
    from yoke.config.settings import load_settings
    from yoke.session.profiles import all_profiles

    try:
        profiles, default = all_profiles(_home(env), cwd)
    except ProfileError as exc:
        raise AdminError(str(exc)) from None
    try:
        merged = load_settings(cwd).merged
    except (OSError, ValueError):
        merged = {}
    choice = choose(None, env, cwd, merged, default)
    return [
        (name, p.scope, p.summary(), choice is not None and choice.name == name)
        for name, p in sorted(profiles.items())
    ]

"""Profiles: a named provider, model and the rest of a way of working, switched as one.

A profile names a provider, a model (and the provider's base URL, if not the vendor's), a credential by
reference (never the key itself): `{"env": "VAR"}` (an environment variable holding the key), `{"command":
"..."}` (a program that prints it, such as a keyring helper) or `{"file": "path"}` (a file holding it), a
budget (`maxBudgetUsd`), and defaults for the sandbox (`sandbox`: true/false) and the permission mode
(`permissionMode`). Nothing in a profile is a secret, and Yoke writes no key anywhere.

Where they live: the user's in `$YOKE_HOME/profiles.json` (`{"profiles": {name: {...}}, "default": name}`),
a project's in `.yoke/profiles.json` beside it (a project's profile applies only once the folder is trusted:
its helper command is a program the project names, and its base URL is where your key would go).

Which one a session uses: `--profile NAME`, else `YOKE_PROFILE`, else the project's `.yoke/profile` (a file
holding a name), else the settings key `"profile"`, else the user's default (`yoke profile use NAME`), else
none: without a profile nothing changes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yoke.jsonsafe import loads as safe_loads

PROFILES_FILE = "profiles.json"
PROJECT_CHOICE = Path(".yoke") / "profile"
PROJECT_PROFILES = Path(".yoke") / PROFILES_FILE
CREDENTIAL_KINDS = ("env", "command", "file")
PERMISSION_MODES = ("default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto")
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
KEYS = {"provider", "model", "baseUrl", "credential", "maxBudgetUsd", "sandbox", "permissionMode"}


class ProfileError(ValueError):
    """A profile that cannot be used or stored; the message is one line."""


@dataclass
class Profile:
    name: str
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    credential: dict[str, str] = field(default_factory=dict)  # one of CREDENTIAL_KINDS -> its reference
    max_budget_usd: float | None = None
    sandbox: bool | None = None
    permission_mode: str | None = None
    scope: str = "user"  # "user" or "project": where it is defined
    origin: str = ""  # the file it came from

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in (
            ("provider", self.provider),
            ("model", self.model),
            ("baseUrl", self.base_url),
            ("credential", self.credential or None),
            ("maxBudgetUsd", self.max_budget_usd),
            ("sandbox", self.sandbox),
            ("permissionMode", self.permission_mode),
        ):
            if value is not None:
                out[key] = value
        return out

    def summary(self) -> str:
        parts = [f"{self.provider or '(provider from the environment)'}/{self.model or '(default model)'}"]
        if self.base_url:
            parts.append(self.base_url)
        if self.credential:
            kind, ref = next(iter(self.credential.items()))
            parts.append(f"key from {kind} {ref}")
        if self.max_budget_usd is not None:
            parts.append(f"budget ${self.max_budget_usd:g}")
        if self.sandbox is not None:
            parts.append(f"sandbox {'on' if self.sandbox else 'off'}")
        if self.permission_mode:
            parts.append(f"mode {self.permission_mode}")
        return ", ".join(parts)


def parse_profile(name: str, data: Any, scope: str = "user", origin: str = "") -> Profile:
    where = f"{origin}: profile {name!r}" if origin else f"profile {name!r}"
    if not NAME.match(name):
        raise ProfileError(f"{where}: a name is letters, digits, '.', '_' and '-' (up to 64)")
    if not isinstance(data, dict):
        raise ProfileError(f"{where}: must be an object")
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise ProfileError(f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(KEYS))})")
    credential = data.get("credential") or {}
    if (
        not isinstance(credential, dict)
        or len(credential) > 1
        or not set(credential) <= set(CREDENTIAL_KINDS)
    ):
        raise ProfileError(
            f"{where}: credential is one of {{'env': VAR}}, {{'command': CMD}}, {{'file': PATH}}"
        )
    if any(not isinstance(v, str) or not v.strip() for v in credential.values()):
        raise ProfileError(f"{where}: the credential's reference must be a non-empty string")
    budget = data.get("maxBudgetUsd")
    if budget is not None and (
        isinstance(budget, bool) or not isinstance(budget, int | float) or budget <= 0
    ):
        raise ProfileError(f"{where}: maxBudgetUsd must be a positive number")
    mode = data.get("permissionMode")
    if mode is not None and mode not in PERMISSION_MODES:
        raise ProfileError(f"{where}: permissionMode must be one of {', '.join(PERMISSION_MODES)}")
    sandbox = data.get("sandbox")
    if sandbox is not None and not isinstance(sandbox, bool):
        raise ProfileError(f"{where}: sandbox must be true or false")
    for key in ("provider", "model", "baseUrl"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise ProfileError(f"{where}: {key} must be a string")
    return Profile(
        name=name,
        provider=data.get("provider") or None,
        model=data.get("model") or None,
        base_url=data.get("baseUrl") or None,
        credential=dict(credential),
        max_budget_usd=float(budget) if budget is not None else None,
        sandbox=sandbox,
        permission_mode=mode,
        scope=scope,
        origin=origin,
    )


# ---- the files ----------------------------------------------------------------------------------------


def user_file(yoke_home: Path) -> Path:
    return yoke_home / PROFILES_FILE


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return {}
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    try:
        data = safe_loads(text)
    except ValueError as exc:
        raise ProfileError(f"{path}: not JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("profiles", {}), dict):
        raise ProfileError(f'{path}: must be an object with a "profiles" object')
    return data


def load_profiles(path: Path, scope: str) -> tuple[dict[str, Profile], str | None]:
    """The profiles a file defines and its default (None when it names none)."""
    data = _read(path)
    profiles = {
        name: parse_profile(name, value, scope, str(path))
        for name, value in (data.get("profiles") or {}).items()
    }
    default = data.get("default")
    return profiles, default if isinstance(default, str) and default else None


def save_user_profiles(yoke_home: Path, profiles: Mapping[str, Profile], default: str | None) -> Path:
    path = user_file(yoke_home)
    path.parent.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = {"profiles": {n: p.as_json() for n, p in sorted(profiles.items())}}
    if default:
        data["default"] = default
    from yoke.fsutil import replace_file

    replace_file(path, (json.dumps(data, indent=2) + "\n").encode(), 0o600)
    return path


def project_choice(cwd: Path) -> tuple[str, Path] | None:
    """The name `.yoke/profile` holds in this folder or the nearest folder above it that has one."""
    for folder in (cwd, *cwd.parents):
        path = folder / PROJECT_CHOICE
        try:
            name = path.read_text(encoding="utf-8").strip()
        except OSError:
            continue
        if name:
            return name, path
    return None


def project_profiles_file(cwd: Path) -> Path | None:
    for folder in (cwd, *cwd.parents):
        if (folder / PROJECT_PROFILES).is_file():
            return folder / PROJECT_PROFILES
    return None


@dataclass
class Choice:
    """Which profile a session uses and why."""

    name: str
    why: str  # "--profile", "YOKE_PROFILE", ".yoke/profile", "settings", "default"


def choose(
    flag: str | None, env: Mapping[str, str], cwd: Path, settings: Mapping[str, Any], default: str | None
) -> Choice | None:
    if flag:
        return Choice(flag, "--profile")
    if env.get("YOKE_PROFILE"):
        return Choice(env["YOKE_PROFILE"], "YOKE_PROFILE")
    found = project_choice(cwd)
    if found is not None:
        return Choice(found[0], str(found[1]))
    setting = settings.get("profile")
    if isinstance(setting, str) and setting.strip():
        return Choice(setting.strip(), 'settings "profile"')
    if default:
        return Choice(default, "the default (yoke profile use)")
    return None

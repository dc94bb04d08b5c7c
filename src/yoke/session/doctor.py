"""`yoke doctor` and `/doctor`: what a new user needs to know is wrong, in plain words.

Three parts: the installation (Python, `yoke` on PATH, bubblewrap, git, ripgrep), the settings files (read as
a session reads them, without a trust question, and their problems), and the provider: its key, the models
its model-list endpoint serves against the configured and default model ids, which of those have no price,
and which the vendor has retired; then each profile (`yoke profile`): its key reference, and whether its
provider serves its model (a profile's key helper runs, as a session using it would run it). Nothing here
changes a file or starts a session.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from yoke.jsonsafe import dict_at
from yoke.records import Record

OK, WARN, PROBLEM, INFO = "ok", "warn", "problem", "info"
KEY_VARIABLES = {
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
    "openai": ("OPENAI_API_KEY",),
    "openai-responses": ("OPENAI_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "grok": ("XAI_API_KEY", "GROK_API_KEY"),
}


class Check(Record):
    __slots__ = ("section", "status", "label", "detail")

    def __init__(self, section: str, status: str, label: str, detail: str) -> None:
        self.section = section
        self.status = status  # OK, WARN, PROBLEM or INFO
        self.label = label
        self.detail = detail


BASE_URL_VARIABLES = {
    "anthropic": ("ANTHROPIC_BASE_URL",),
    "openai": ("OPENAI_BASE_URL",),
    "gemini": ("GEMINI_BASE_URL",),
    "grok": ("GROK_BASE_URL", "XAI_BASE_URL"),
}


def run_checks(cwd: Path, env: Mapping[str, str], *, ask_provider: bool = True) -> list[Check]:
    """Every check: the installation, the settings, the provider a session here would use, then each other
    provider the environment configures (its key or base URL is set)."""
    checks = installation_checks(env)
    loaded, settings_checks = _settings(cwd, env)
    checks += settings_checks
    checks += language_server_checks(loaded, cwd, env)
    selected = provider_checks(loaded, cwd, env, ask_provider=ask_provider)
    checks += selected
    chosen = selected[0].detail.split()[0] if selected and selected[0].label == "provider" else None
    chosen = "openai" if chosen == "openai-responses" else chosen
    for name, variables in BASE_URL_VARIABLES.items():
        if name != chosen and any(env.get(v) for v in (*variables, *KEY_VARIABLES[name])):
            checks += provider_checks(loaded, cwd, env, ask_provider=ask_provider, provider=name)
    return checks + profile_checks(loaded, cwd, env, ask_provider=ask_provider)


def profile_checks(
    loaded: Any, cwd: Path, env: Mapping[str, str], *, ask_provider: bool = True
) -> list[Check]:
    """Each profile (`yoke profile`): its key reference leads to a key, and its provider serves its model. A
    project's profile in an untrusted folder is not checked: its helper would run."""
    from yoke.config.profiles import ProfileError
    from yoke.config.trust import is_trusted
    from yoke.providers.select import resolve_model_alias
    from yoke.session.profiles import all_profiles, provider_env

    try:
        profiles, _ = all_profiles(loaded.yoke_home, cwd)
    except ProfileError as exc:
        return [Check("Profiles", PROBLEM, "profiles", str(exc))]
    trusted = is_trusted(cwd, loaded.yoke_home, home=loaded.home, claude_dir=loaded.claude_dir)
    checks: list[Check] = []
    for name, profile in sorted(profiles.items()):
        section = f"Profile {name}"
        provider = profile.provider or "anthropic"
        if profile.scope == "project" and not trusted:
            checks.append(
                Check(
                    section,
                    WARN,
                    "trust",
                    "a project's profile: not used or checked until this folder is trusted (yoke trust)",
                )
            )
            continue
        try:
            profile_env = {**env, **provider_env(profile, provider, env, cwd)}
        except ProfileError as exc:
            checks.append(Check(section, PROBLEM, "API key", str(exc)))
            continue
        if profile.credential:
            checks.append(Check(section, OK, "API key", f"from its {next(iter(profile.credential))}"))
        model = resolve_model_alias(provider, profile.model or "default", profile_env)
        config = _Config(provider, profile.base_url)
        served = _served(section, config, profile_env, checks) if ask_provider else None
        checks += _model_checks(section, provider, model, "its model", served, loaded.merged)
    return checks


class _Config(Record):
    __slots__ = ("provider", "base_url")

    def __init__(self, provider: str, base_url: str | None) -> None:
        self.provider = provider
        self.base_url = base_url


# ---- the installation ----------------------------------------------------------------------------------


def installation_checks(env: Mapping[str, str]) -> list[Check]:
    from yoke import __version__

    section = "Installation"
    version = ".".join(map(str, sys.version_info[:3]))
    good = sys.version_info >= (3, 11)
    checks = [
        Check(section, OK if good else PROBLEM, "Python", f"{version} ({sys.executable})"),
        Check(section, INFO, "Yoke", f"{__version__} ({Path(__file__).resolve().parent.parent})"),
        _on_path(section, env),
    ]
    if sys.platform.startswith("linux"):
        bwrap = shutil.which("bwrap", path=env.get("PATH"))
        checks.append(
            Check(section, OK, "bubblewrap", bwrap)
            if bwrap
            else Check(
                section,
                PROBLEM,
                "bubblewrap",
                "missing: the sandbox cannot run; install: apt-get install bubblewrap",
            )
        )
    git = shutil.which("git", path=env.get("PATH"))
    checks.append(
        Check(section, OK, "git", git)
        if git
        else Check(
            section, WARN, "git", "missing: no git context or -w worktrees; install: apt-get install git"
        )
    )
    rg = shutil.which("rg", path=env.get("PATH"))
    checks.append(
        Check(section, OK if rg else INFO, "ripgrep", rg or "not installed (optional: Grep is built in)")
    )
    return checks


def _on_path(section: str, env: Mapping[str, str]) -> Check:
    found = shutil.which("yoke", path=env.get("PATH"))
    here = Path(sys.executable).parent / "yoke"
    if found is None:
        hint = f"run `make install`, or add {here.parent} to PATH" if here.exists() else "run `make install`"
        return Check(section, WARN, "yoke on PATH", f"not found; {hint}")
    if here.exists() and os.path.realpath(found) != os.path.realpath(here):
        return Check(section, WARN, "yoke on PATH", f"{found} is another installation than this one ({here})")
    return Check(section, OK, "yoke on PATH", found)


# ---- settings -----------------------------------------------------------------------------------------


def _settings(cwd: Path, env: Mapping[str, str]) -> tuple[Any, list[Check]]:
    from yoke.config.settings import load_settings
    from yoke.config.trust import is_trusted

    section = "Settings"
    home = Path(env["HOME"]) if env.get("HOME") else None
    loaded = load_settings(cwd, home=home)
    checks = [Check(section, OK, s.scope, s.label) for s in loaded.sources]
    if not loaded.sources and not loaded.warnings:  # a file that failed to load is reported below instead
        checks.append(Check(section, INFO, "files", "no settings files (defaults apply)"))
    elif not loaded.sources:
        checks.append(Check(section, INFO, "files", "no settings file could be used (defaults apply)"))
    checks += [Check(section, PROBLEM, "problem", warning) for warning in loaded.warnings]
    from yoke.config.known_keys import NOT_ACTED_ON

    merged = loaded.merged if isinstance(loaded.merged, Mapping) else {}
    checks += [Check(section, INFO, key, f"set, not acted on by Yoke: {why}") for key, why in NOT_ACTED_ON.items()
               if key in merged]  # fmt: skip
    trusted = is_trusted(cwd, loaded.yoke_home, home=loaded.home, claude_dir=loaded.claude_dir)
    checks.append(
        Check(section, OK, "trust", f"{cwd} is trusted")
        if trusted
        else Check(
            section,
            INFO,
            "trust",
            f"{cwd} is not trusted: its project settings grant nothing in -p runs (yoke trust)",
        )
    )
    return loaded, checks


# ---- language servers ---------------------------------------------------------------------------------


def language_server_checks(loaded: Any, cwd: Path, env: Mapping[str, str]) -> list[Check]:
    """The language servers a session here would use (docs/lsp.md): settings', plugins', the built-in
    defaults found on PATH; none is started."""
    from yoke.plugins import enabled_plugins
    from yoke.session.language_servers import server_specs

    section = "Language servers"
    warnings: list[str] = []
    plugins = enabled_plugins(loaded, cwd, env=env, warnings=[])
    specs = server_specs(loaded, plugins, dict(env), warnings)
    checks = [
        Check(section, OK, spec.name, f"{spec.command} ({' '.join(sorted(spec.extensions))}; {spec.source})")
        for spec in specs
    ]
    if not specs:
        hint = (
            "none found (e.g. basedpyright, typescript-language-server, gopls, rust-analyzer, clangd on PATH)"
        )
        checks.append(Check(section, INFO, "servers", hint))
    checks += [Check(section, WARN, "problem", warning) for warning in warnings]
    return checks


# ---- the provider -------------------------------------------------------------------------------------


def provider_checks(
    loaded: Any, cwd: Path, env: Mapping[str, str], *, ask_provider: bool = True, provider: str | None = None
) -> list[Check]:
    """The provider a session would use (or `provider`): its key, and its model list against the models."""
    from yoke.config.env_policy import apply_env, settings_env
    from yoke.config.trust import is_trusted
    from yoke.providers.base import ProviderError
    from yoke.providers.select import resolve_model_alias, resolve_provider

    section = f"Provider {provider}" if provider else "Provider"
    session_env = dict(env)
    trusted = is_trusted(cwd, loaded.yoke_home, home=loaded.home, claude_dir=loaded.claude_dir)
    apply_env(settings_env(loaded.sources, trusted, []), session_env)
    merged = loaded.merged
    if provider:  # another configured provider: only its own model variable and its default count
        merged = {}
        session_env.pop("YOKE_MODEL", None)
        session_env.pop("CLAUDE_CODE_SUBAGENT_MODEL", None)
    try:
        config = resolve_provider(provider, None, merged, session_env)
    except ProviderError as exc:
        return [Check(section, PROBLEM, "provider", str(exc))]
    checks = [
        Check(
            section, INFO, "provider", config.provider + (f" ({config.base_url})" if config.base_url else "")
        )
    ]
    variables = KEY_VARIABLES.get(config.provider, ())
    if variables and not any(session_env.get(v) for v in variables) and config.provider != "openai":
        checks.append(Check(section, PROBLEM, "API key", f"not set: set {' or '.join(variables)}"))
    elif variables:
        checks.append(
            Check(
                section,
                OK,
                "API key",
                "set"
                if any(session_env.get(v) for v in variables)
                else "none (a local server may need none)",
            )
        )
    models = _configured_models(config, merged, session_env, resolve_model_alias)
    served = _served(section, config, session_env, checks) if ask_provider else None
    for model, role in models.items():
        checks += _model_checks(section, config.provider, model, role, served, loaded.merged)  # its prices
    return checks


def _configured_models(
    config: Any, merged: Mapping[str, Any], env: Mapping[str, str], alias: Any
) -> dict[str, str]:
    """model id -> what it is (the default, the model setting, the fallback model...)."""
    from yoke.providers.select import provider_model_variable

    chosen = env.get("YOKE_MODEL") or provider_model_variable(config.provider, env) or merged.get("model")
    models = {config.model: "the configured model" if chosen else "the default model"}
    fallback = merged.get("fallbackModel")
    if isinstance(fallback, str) and fallback.strip():
        models.setdefault(alias(config.provider, fallback.strip(), env), "the fallback model")
    if env.get("CLAUDE_CODE_SUBAGENT_MODEL"):
        models.setdefault(
            alias(config.provider, env["CLAUDE_CODE_SUBAGENT_MODEL"], env), "the sub-agent model"
        )
    return models


def _served(section: str, config: Any, env: Mapping[str, str], checks: list[Check]) -> list[str] | None:
    from yoke.providers.model_list import ModelListError, listable, served_models

    if not listable(config.provider):
        checks.append(Check(section, INFO, "model list", f"not asked of {config.provider}"))
        return None
    try:
        served = served_models(config.provider, config.base_url, env)
    except ModelListError as exc:
        checks.append(Check(section, PROBLEM, "model list", str(exc)))
        return None
    checks.append(Check(section, OK, "model list", f"{len(served)} models served"))
    return served


def _model_checks(
    section: str, provider: str, model: str, role: str, served: list[str] | None, merged: Mapping[str, Any]
) -> list[Check]:
    from yoke.providers.pricing import known_model, normalize_model, retirement

    checks = []
    if served is not None and not _is_served(model, served):
        sample = ", ".join(served[:8]) + (", ..." if len(served) > 8 else "")
        checks.append(
            Check(
                section,
                PROBLEM,
                model,
                f"{role} is not served by {provider}; it serves: {sample or 'nothing'}",
            )
        )
    elif served is not None:
        checks.append(Check(section, OK, model, f"{role}, served by {provider}"))
    else:
        checks.append(Check(section, INFO, model, f"{role} (not checked against {provider}'s model list)"))
    gone = retirement(model, provider)
    if gone is not None:
        status, text = retirement_check(*gone)
        checks.append(Check(section, status, model, text))
    prices = dict_at(merged, "modelPrices")
    if not known_model(model) and model not in prices and normalize_model(model) not in prices:
        checks.append(
            Check(
                section,
                WARN,
                model,
                f'{role} has no price: its cost is not counted; give one in settings: "modelPrices": '
                f'{{"{model}": {{"input": 1.0, "output": 2.0}}}}',
            )
        )
    return checks


SOON_DAYS = 30  # a retirement this close is a warning; further off, a note


def retirement_check(word: str, date: str, replacement: str | None, today: Any = None) -> tuple[str, str]:
    """(status, text) for a model the vendor retired or will retire on `date`: a problem once the day has
    come, a warning within SOON_DAYS naming the replacement, a note before that."""
    import datetime

    today = today or datetime.date.today()
    instead = f"; use {replacement}" if replacement else ""
    try:
        days = (datetime.date.fromisoformat(date) - today).days
    except ValueError:
        days = 0 if word == "retired" else SOON_DAYS
    if word == "retired" or days <= 0:
        return PROBLEM, f"the vendor retired it on {date}{instead}"
    if days <= SOON_DAYS:
        return WARN, f"the vendor retires it on {date}, in {days} day{'s' if days != 1 else ''}{instead}"
    return INFO, f"the vendor retires it on {date}" + (f"; {replacement} replaces it" if replacement else "")


def _is_served(model: str, served: list[str]) -> bool:
    from yoke.providers.pricing import normalize_model

    bare = normalize_model(model)
    return any(s == model or normalize_model(s) == bare for s in served)


# ---- rendering ------------------------------------------------------------------------------------------

MARKS = {OK: "✓", WARN: "!", PROBLEM: "✗", INFO: "·"}


def report_lines(checks: list[Check]) -> list[tuple[str, str]]:
    """(status, line) per line to show: section headings, checks, and a closing summary."""
    lines: list[tuple[str, str]] = []
    section = None
    for check in checks:
        if check.section != section:
            section = check.section
            lines.append(("heading", section))
        lines.append((check.status, f"  {MARKS[check.status]} {check.label}: {check.detail}"))
    problems = sum(c.status == PROBLEM for c in checks)
    warnings = sum(c.status == WARN for c in checks)
    if problems or warnings:
        summary = f"{problems} problem{'s' * (problems != 1)}, {warnings} warning{'s' * (warnings != 1)}"
        lines.append((PROBLEM if problems else WARN, summary))
    else:
        lines.append((OK, "No problems found."))
    return lines

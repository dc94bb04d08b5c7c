"""Build the session's permission gate from loaded settings and command-line flags.

Rules from every source are kept apart (with their scope and base directory) rather than taken from the
merged dict, because trust applies per source: the project's own files (`.claude/settings*.json`,
`.yoke/settings*.json`) contribute deny and ask rules always, but allow rules, additional directories, a
default mode and sandbox settings only once the folder is trusted.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from yoke.config.settings import LoadedSettings, SettingsSource, merge_settings
from yoke.config.trust import is_trusted
from yoke.jsonsafe import dict_at
from yoke.permissions.patterns import rule_paths
from yoke.permissions.pipeline import MODE_ALIASES, ClassifierFn, PermissionGate, PermissionModeError
from yoke.permissions.rules import PermissionRule, parse_rules
from yoke.sandbox.settings import SandboxSettings
from yoke.seams import MODES

PROJECT_SCOPES = ("project", "local")


def _all_rules(
    settings: LoadedSettings,
    trusted: bool,
    allowed_tools: list[str],
    disallowed_tools: list[str],
    cwd: Path,
    warnings: list[str],
) -> tuple[list[PermissionRule], list[PermissionRule], list[PermissionRule]]:
    """The deny, ask and allow rules: the settings' (only managed ones when managed settings say so), then
    --allowedTools and --disallowedTools."""
    managed_only = _managed_rules_only(settings.sources)
    deny, ask, allow = _rules(settings.sources, trusted, managed_only, warnings)
    if not managed_only:
        allow += parse_rules(allowed_tools, "allow", "cli", cwd, "--allowedTools", warnings)
        deny += parse_rules(disallowed_tools, "deny", "cli", cwd, "--disallowedTools", warnings)
    return deny, ask, allow


def build_gate(
    settings: LoadedSettings | None,
    *,
    cwd: Path,
    mode: str | None,
    allowed_tools: list[str],
    disallowed_tools: list[str],
    add_dirs: list[Path],
    interactive: bool,
    trusted: bool | None = None,
    home: Path | None = None,
    allow_bypass: bool = False,
    classifier: ClassifierFn | None = None,
    classifier_deadline_s: float = 2.0,
    classifier_mode: str | None = None,
    mode_listeners: list[Callable[[PermissionGate], None]] | None = None,
    block_outside_reads: bool = False,
) -> PermissionGate:
    """The gate for one session. Raises ValueError (a one-line message) for a bad mode or --add-dir."""
    from yoke.config.settings import load_settings

    cwd = Path(os.path.realpath(cwd))
    if settings is None:
        settings = load_settings(cwd, home=home, setting_sources=[])
    home = home or settings.home
    warnings: list[str] = []
    if trusted is None:
        trusted = is_trusted(cwd, settings.yoke_home, home=home, claude_dir=settings.claude_dir)
    counted = [s for s in settings.sources if trusted or s.scope not in PROJECT_SCOPES]
    deny, ask, allow = _all_rules(settings, trusted, allowed_tools, disallowed_tools, cwd, warnings)
    if not trusted and not interactive:
        _warn_untrusted(settings.sources, cwd, warnings)
    dirs = _working_dirs(cwd, add_dirs, counted, warnings)
    chosen = _mode(mode, counted, warnings)
    merged = merge_settings([s.data for s in counted])
    sandbox = _sandbox(merged, cwd, allow, deny, home, settings.sources)
    try:
        gate = PermissionGate(
            cwd=cwd,
            home=home,
            mode=chosen,
            working_dirs=dirs,
            deny=deny,
            ask=ask,
            allow=allow,
            sandbox=sandbox,
            local_settings_path=settings.local_settings_path,
            bypass_available=allow_bypass,
            bypass_disabled=_bypass_disabled(settings.sources, merged),
            warnings=warnings,
            classifier=classifier,
            classifier_deadline_s=classifier_deadline_s,
            classifier_mode=classifier_mode,
            mode_listeners=mode_listeners,
        )
    except PermissionModeError as exc:
        raise PermissionModeError(f"--permission-mode: {exc}") from None
    _apply_restrictions(gate, settings, cwd, block_outside_reads)
    return gate


def _apply_restrictions(
    gate: PermissionGate, settings: LoadedSettings, cwd: Path, block_outside_reads: bool
) -> None:
    """The settings that only restrict (true in any source wins, whatever the trust: no source can loosen
    them), --restricted's, and where saved rules go."""
    gate.block_outside_writes = restrictive(settings.sources, "blockWritesOutsideWorkingDirectories")
    # --restricted, or the setting: the file tools stay inside them (and Bash naming a path outside asks)
    # Claude Code's internal blockFileToolReadsOutsideWorkingDirectories counts only from --settings
    launched = [src for src in settings.sources if src.scope == "flag"]
    gate.block_outside_reads = (
        block_outside_reads
        or restrictive(settings.sources, "blockReadsOutsideWorkingDirectories")
        or restrictive(launched, "blockFileToolReadsOutsideWorkingDirectories")
    )
    gate.block_bash_outside_reads = restrictive(settings.sources, "blockReadsOutsideWorkingDirectories")
    gate.deny_prompts = any(s.data.get("denyInsteadOfPrompting") is True for s in settings.sources)
    gate.settings_paths.update(
        {
            "projectSettings": cwd / ".claude" / "settings.json",
            "userSettings": settings.claude_dir / "settings.json",
        }
    )


def restrictive(sources: list[SettingsSource], key: str) -> bool:
    """A setting that only restricts: true in any source wins, whatever the trust (Claude Code reads these
    under `permissions`; Yoke also at the top level, where it read them first)."""
    return any(s.data.get(key) is True or dict_at(s.data, "permissions").get(key) is True for s in sources)


def _managed_rules_only(sources: list[SettingsSource]) -> bool:
    """allowManagedPermissionRulesOnly in managed settings: only managed rules count."""
    return any(
        s.scope == "managed"
        and (s.data.get("permissions") or {}).get("allowManagedPermissionRulesOnly") is True
        for s in sources
    )


def _bypass_disabled(sources: list[SettingsSource], merged: dict) -> bool:
    """disableBypassPermissionsMode: "disable" in any source (trusted or not) or the merged settings."""
    return (
        any(
            (s.data.get("permissions") or {}).get("disableBypassPermissionsMode") == "disable"
            for s in sources
        )
        or dict_at(merged, "permissions").get("disableBypassPermissionsMode") == "disable"
    )


def _warn_untrusted(sources: list[SettingsSource], cwd: Path, warnings: list[str]) -> None:
    skipped = _untrusted_grants(sources)
    if skipped:
        warnings.append(
            f"this workspace ({cwd}) has not been trusted: ignoring {skipped} from its project settings; "
            "run `yoke trust` in it to trust it"
        )


def _rules(
    sources: list[SettingsSource], trusted: bool, managed_only: bool, warnings: list[str]
) -> tuple[list[PermissionRule], list[PermissionRule], list[PermissionRule]]:
    deny: list[PermissionRule] = []
    ask: list[PermissionRule] = []
    allow: list[PermissionRule] = []
    for source in sources:  # highest precedence first, so earlier rules are tried first
        if managed_only and source.scope != "managed":
            continue
        perms = source.data.get("permissions")
        if not isinstance(perms, dict):
            continue
        base = source.base_dir
        deny += parse_rules(perms.get("deny") or [], "deny", source.scope, base, source.label, warnings)
        ask += parse_rules(perms.get("ask") or [], "ask", source.scope, base, source.label, warnings)
        if trusted or source.scope not in PROJECT_SCOPES:
            allow += parse_rules(
                perms.get("allow") or [], "allow", source.scope, base, source.label, warnings
            )
    return deny, ask, allow


def _untrusted_grants(sources: list[SettingsSource]) -> str:
    """A short description of what an untrusted project's settings would have granted ("" if nothing)."""
    allow = dirs = 0
    other: list[str] = []
    for source in sources:
        if source.scope not in PROJECT_SCOPES:
            continue
        perms = dict_at(source.data, "permissions")
        allow += len(perms.get("allow") or [])
        dirs += len(perms.get("additionalDirectories") or [])
        if perms.get("defaultMode"):
            other.append("defaultMode")
        if isinstance(source.data.get("sandbox"), dict):
            other.append("sandbox settings")
    parts = []
    if allow:
        parts.append(f"{allow} allow rule{'s' if allow != 1 else ''}")
    if dirs:
        parts.append(f"{dirs} additional director{'ies' if dirs != 1 else 'y'}")
    parts += list(dict.fromkeys(other))
    return ", ".join(parts)


def _working_dirs(
    cwd: Path, add_dirs: list[Path], sources: list[SettingsSource], warnings: list[str]
) -> list[Path]:
    dirs = [cwd]
    for folder in add_dirs:
        path = Path(os.path.realpath(Path(folder).expanduser()))
        if not path.is_dir():
            raise ValueError(f"--add-dir: {folder} is not a directory")
        if path not in dirs:
            dirs.append(path)
    for source in sources:
        perms = source.data.get("permissions")
        if not isinstance(perms, dict):
            continue
        for entry in perms.get("additionalDirectories") or []:
            base = cwd if source.scope in ("project", "local", "flag", "user") else source.base_dir
            path = Path(os.path.realpath(base / Path(entry).expanduser()))
            if not path.is_dir():
                warnings.append(
                    f"{source.label}: additionalDirectories entry {entry!r} is not a directory; skipped"
                )
            elif path not in dirs:
                dirs.append(path)
    return dirs


def _mode(mode: str | None, sources: list[SettingsSource], warnings: list[str]) -> str:
    if mode:
        mode = MODE_ALIASES.get(mode, mode)
        if mode not in MODES:
            raise PermissionModeError(f"--permission-mode: unknown mode {mode!r} (use {', '.join(MODES)})")
        return mode
    for source in sources:
        perms = source.data.get("permissions")
        value = perms.get("defaultMode") if isinstance(perms, dict) else None
        if value is None:
            continue
        value = MODE_ALIASES.get(value, value)
        if value in MODES:
            return value
        warnings.append(f"{source.label}: unknown permissions.defaultMode {value!r}; using default")
    return "default"


def _fetch_domains(rules: list[PermissionRule]) -> list[str]:
    """The domains of `WebFetch(domain:NAME)` rules."""
    return [
        r.specifier.removeprefix("domain:")
        for r in rules
        if r.tool == "WebFetch" and r.specifier and r.specifier.startswith("domain:")
    ]


def _sandbox(
    merged: dict,
    cwd: Path,
    allow: list[PermissionRule],
    deny: list[PermissionRule],
    home: Path,
    sources: list[SettingsSource] | None = None,
) -> SandboxSettings:
    """The sandbox block plus what permission rules add to it, as in Claude Code: WebFetch domain allow rules
    join the network allowlist, Read and Edit deny rules with plain paths join denyRead / denyWrite."""
    base = SandboxSettings.from_settings(merged, cwd)
    domains = _fetch_domains(allow)
    denied_domains = _fetch_domains(deny)
    deny_read: list[str] = []
    deny_write: list[str] = []
    for rule in deny:
        path = _plain_rule_path(rule, cwd, home)
        if path is None:
            continue
        if rule.tool == "Read":
            deny_read.append(path)
        elif rule.tool in ("Edit", "Write", "MultiEdit", "NotebookEdit"):
            deny_write.append(path)
    reads = [r for r in deny if r.tool in ("Read", "Grep", "Glob")]
    edits = [r for r in deny if r.tool in ("Edit", "Write", "MultiEdit", "NotebookEdit")]
    return base.replace(
        read_denied=rule_paths(reads, cwd, home),
        write_denied=rule_paths(edits, cwd, home),
        block_reads_outside=restrictive(sources or [], "blockReadsOutsideWorkingDirectories"),
        allowed_domains=tuple(dict.fromkeys([*base.allowed_domains, *domains])),
        denied_domains=tuple(dict.fromkeys([*base.denied_domains, *denied_domains])),
        deny_read=tuple(dict.fromkeys([*base.deny_read, *deny_read])),
        deny_write=tuple(dict.fromkeys([*base.deny_write, *deny_write])),
    )


def _plain_rule_path(rule: PermissionRule, cwd: Path, home: Path) -> str | None:
    """An absolute path for a deny rule without wildcards (`Read(~/.aws)`, `Read(./.env)`), else None."""
    spec = rule.specifier
    if not spec or any(ch in spec for ch in "*?[") or "/" not in spec.rstrip("/"):
        return None
    if spec.startswith("//"):
        return os.path.normpath(spec[1:])
    if spec.startswith("~/"):
        return os.path.normpath(str(home) + spec[1:])
    if spec.startswith("/"):
        return os.path.normpath(str(rule.base_dir) + spec)
    return os.path.normpath(os.path.join(str(cwd), spec))

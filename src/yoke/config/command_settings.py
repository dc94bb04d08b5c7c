"""Settings that run a program, and the one rule for them: an untrusted folder's project files may name none.

A cloned repository's `.claude/settings.json` is read before anyone has looked at it. Its hooks are skipped
until the folder is trusted (hooks/sources.py); every other setting that names a command is withheld here,
in `load_settings`, before the merge, so no reader of the merged settings (telemetry's headers helper, the
status line, a credential helper) can run one. The list is Claude Code's own (the settings 2.1.332 keeps
from a project source it does not trust, read from its bundle, 2026-11-28), plus the sandbox's program
paths; `hooks` and `env` have rules of their own (hooks/sources.py, env_policy.py)."""

from __future__ import annotations

from typing import Any

COMMAND_SETTINGS = (
    "apiKeyHelper",
    "awsAuthRefresh",
    "awsCredentialExport",
    "fileSuggestion",
    "gcpAuthRefresh",
    "otelHeadersHelper",
    "processWrapper",
    "policyHelpers",
    "proxyAuthHelper",
    "statusLine",
    "subagentStatusLine",
)
SANDBOX_PROGRAMS = ("bwrapPath", "ripgrep", "socatPath")  # inside the `sandbox` block
PROJECT_SCOPES = ("project", "local")


def named_commands(data: dict[str, Any]) -> list[str]:
    """The settings in one file's `data` that would run a program."""
    names = [key for key in COMMAND_SETTINGS if key in data]
    sandbox = data.get("sandbox")
    if isinstance(sandbox, dict):
        names += [f"sandbox.{key}" for key in SANDBOX_PROGRAMS if key in sandbox]
    return names


def withheld(data: dict[str, Any]) -> dict[str, Any]:
    """`data` without the settings that would run a program."""
    kept = {key: value for key, value in data.items() if key not in COMMAND_SETTINGS}
    sandbox = kept.get("sandbox")
    if isinstance(sandbox, dict):
        kept["sandbox"] = {key: value for key, value in sandbox.items() if key not in SANDBOX_PROGRAMS}
    return kept


def withhold_untrusted_commands(loaded: Any) -> None:
    """Drop the command settings of `loaded`'s project sources unless its folder is trusted (one warning)."""
    naming = [s for s in loaded.sources if s.scope in PROJECT_SCOPES and named_commands(s.data)]
    if not naming:
        return
    from yoke.config.trust import is_trusted

    if is_trusted(loaded.cwd, loaded.yoke_home, home=loaded.home, claude_dir=loaded.claude_dir):
        return
    names: list[str] = []
    for source in naming:
        names += named_commands(source.data)
        source.data = withheld(source.data)
    listed = ", ".join(dict.fromkeys(names))
    loaded.warnings.append(
        f"this workspace ({loaded.cwd}) has not been trusted: ignoring its settings that run a command "
        f"({listed}); run `yoke trust` here to let them run"
    )

"""Which settings `env` variables a session may take, and from whom.

User, managed and `--settings` files are the user's own words: their `env` blocks apply whole. A project's
files (`.claude/settings*.json`, `.yoke/settings*.json`) are the repository's words:

* an untrusted folder contributes no environment at all;
* a trusted one may set only the variables on the allowlist below: names that choose a mode, a level, a
  locale, a model or a limit, and that no program reads as a place to load code or configuration from,
  a program to run, or somewhere to send data.

An allowlist, because the classes of dangerous variables have no end (`PYTHONPLATLIBDIR` moves where
Python imports from, and the next interpreter will have its own): whatever is not listed is refused with
a warning, and the user can set it in their own settings.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, MutableMapping
from typing import Any

PROJECT_SCOPES = ("project", "local")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Application modes and levels; locale and output; the agent's own model and limits. Each value is a word
# or a number a program compares, never a path, a command, a module, an address or a credential.
PROJECT_SETTABLE = _words(
    """NODE_ENV RAILS_ENV RACK_ENV APP_ENV MIX_ENV FLASK_ENV FLASK_DEBUG DEBUG LOG_LEVEL LOGLEVEL RUST_LOG
    RUST_BACKTRACE GOOS GOARCH CGO_ENABLED GO111MODULE CI TZ LANG LANGUAGE LC_ALL LC_CTYPE LC_MESSAGES
    LC_COLLATE LC_NUMERIC LC_TIME LC_MONETARY FORCE_COLOR NO_COLOR CLICOLOR CLICOLOR_FORCE COLUMNS LINES
    PYTHONUNBUFFERED PYTHONDONTWRITEBYTECODE PYTHONIOENCODING PYTHONUTF8 PYTHONHASHSEED NODE_NO_WARNINGS
    TOKENIZERS_PARALLELISM OMP_NUM_THREADS CUDA_VISIBLE_DEVICES PORT
    ANTHROPIC_MODEL ANTHROPIC_SMALL_FAST_MODEL ANTHROPIC_DEFAULT_OPUS_MODEL ANTHROPIC_DEFAULT_SONNET_MODEL
    ANTHROPIC_DEFAULT_HAIKU_MODEL CLAUDE_CODE_SUBAGENT_MODEL CLAUDE_CODE_MAX_OUTPUT_TOKENS
    YOKE_MAX_OUTPUT_TOKENS MAX_THINKING_TOKENS MAX_MCP_OUTPUT_TOKENS MCP_TIMEOUT MCP_TOOL_TIMEOUT
    BASH_DEFAULT_TIMEOUT_MS BASH_MAX_TIMEOUT_MS BASH_MAX_OUTPUT_LENGTH CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR
    DISABLE_TELEMETRY DISABLE_ERROR_REPORTING DISABLE_AUTOUPDATER DISABLE_COST_WARNINGS
    DISABLE_PROMPT_CACHING DISABLE_NON_ESSENTIAL_MODEL_CALLS CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC
    CLAUDE_CODE_DISABLE_TERMINAL_TITLE GIT_TERMINAL_PROMPT GIT_OPTIONAL_LOCKS"""
)


def project_may_set(name: str) -> bool:
    """Whether a (trusted) project's settings may set the variable `name`: only the allowlist."""
    return name in PROJECT_SETTABLE


def settings_env(sources: Iterable[Any], trusted: bool, warnings: list[str]) -> dict[str, str | None]:
    """The variables the settings' `env` blocks set (None: unset), lowest precedence first so higher
    sources win. Project files: nothing unless `trusted`, and never a variable `project_may_set` refuses."""
    out: dict[str, str | None] = {}
    untrusted_keys: list[str] = []
    for source in reversed(list(sources)):
        block = source.data.get("env")
        if not isinstance(block, dict):
            continue
        project = source.scope in PROJECT_SCOPES
        for key, value in block.items():
            if not isinstance(key, str) or value is None or "=" in key or "\0" in key:
                continue
            if project and not trusted:
                untrusted_keys.append(key)
                continue
            if project and not project_may_set(key):
                warnings.append(
                    f"{source.label}: env {key} is ignored: a project may set only modes, levels, locales "
                    "and the agent's model and limits (set it in ~/.claude/settings.json)"
                )
                continue
            out[key] = None if value == "" else str(value)
    if untrusted_keys:
        names = ", ".join(dict.fromkeys(untrusted_keys))
        warnings.append(f"this workspace has not been trusted: ignoring its settings env ({names})")
    return out


def apply_env(updates: dict[str, str | None], environ: MutableMapping[str, str] | None = None) -> None:
    environ = os.environ if environ is None else environ
    for key, value in updates.items():
        if value is None:
            environ.pop(key, None)
        else:
            environ[key] = value

"""Which settings `env` variables a session may take, and from whom.

User, managed and `--settings` files are the user's own words: their `env` blocks apply whole. A project's
files (`.claude/settings*.json`, `.yoke/settings*.json`) are the repository's words:

* an untrusted folder contributes no environment at all;
* a trusted one still cannot set a variable of the classes below, because each of them makes some later
  program run code, read configuration, or send data somewhere the user did not choose, and a repository
  that is trusted for its permission rules has not thereby been given the user's shell.

The rule is a deny-list of classes (exact names, prefixes, and suffixes such as `_OPTIONS`, `_PATH`,
`_CONFIG`) rather than an allowlist, because projects legitimately set arbitrary application variables
(`NODE_ENV`, `MY_APP_MODE`); the suffix classes catch the next tool's `FOO_CONFIG_PATH` without naming it.
A short allowlist re-admits harmless names a class would otherwise catch.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, MutableMapping
from typing import Any

from yoke.regex import lazy_compile

PROJECT_SCOPES = ("project", "local")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_DENIED_NAMES = _words(
    """PATH HOME SHELL ENV BASH_ENV SHELLOPTS BASHOPTS PS4 PROMPT_COMMAND IFS CDPATH GLOBIGNORE INPUTRC
    ZDOTDIR HISTFILE TMPDIR TMP TEMP EDITOR VISUAL PAGER MANPAGER BROWSER LESSOPEN LESSCLOSE GNUPGHOME
    KUBECONFIG CLASSPATH LOCPATH GCONV_PATH NLSPATH GLIBC_TUNABLES MALLOC_CHECK_ OPENSSL_CONF SSL_CERT_FILE
    SSL_CERT_DIR REQUESTS_CA_BUNDLE CURL_CA_BUNDLE NODE_EXTRA_CA_CERTS PERL5OPT PERL5LIB PERLLIB RUBYOPT
    RUBYLIB PYTHONSTARTUP PYTHONPATH PYTHONHOME PYTHONUSERBASE JAVA_TOOL_OPTIONS _JAVA_OPTIONS
    JDK_JAVA_OPTIONS LUA_INIT LUA_PATH LUA_CPATH NODE_OPTIONS NODE_PATH CLAUDE_CONFIG_DIR DISPLAY
    XAUTHORITY DBUS_SESSION_BUS_ADDRESS"""
)
# fmt: off
_DENIED_PREFIXES = (
    "LD_", "DYLD_", "BASH_FUNC_", "GIT_", "YOKE_", "SSH_", "GPG_", "AWS_", "GOOGLE_", "GCLOUD_", "AZURE_",
    "ANTHROPIC_", "OPENAI_", "CLAUDE_CODE_USE_", "DOCKER_", "NPM_CONFIG_", "PIP_", "UV_", "POETRY_", "CARGO_",
    "RUSTUP_", "GOFLAGS", "XDG_", "SUDO_", "HTTP", "NO_PROXY", "ALL_PROXY", "PYTHONBREAKPOINT",
)
# fmt: on
_DENIED_SUFFIX = lazy_compile(
    r"(_PATH|_HOME|_DIR|_DIRS|_OPTIONS|_OPTS|_FLAGS|_CONFIG|_CONFIG_FILE|_RC|_PROGRAM|_COMMAND|_CMD|_EDITOR"
    r"|_PAGER|_ASKPASS|_SHELL|_PRELOAD|_LIBRARY|_PLUGINS?|_HOOKS?|_URL|_URI|_ENDPOINT|_HOST|_PROXY"
    r"|_KEY|_KEYS|_TOKEN|_SECRET|_SECRETS|_PASSWORD|_PASSWD|_CREDENTIALS?|_AUTH|_AUTH_TOKEN|_HEADERS)$",
    re.IGNORECASE,
)
# Caught by a class above, yet harmless: they choose a model or tune output, never a program or a place.
_ALLOWED = _words(
    """ANTHROPIC_MODEL ANTHROPIC_SMALL_FAST_MODEL ANTHROPIC_DEFAULT_OPUS_MODEL ANTHROPIC_DEFAULT_SONNET_MODEL
    ANTHROPIC_DEFAULT_HAIKU_MODEL YOKE_MAX_OUTPUT_TOKENS GIT_TERMINAL_PROMPT GIT_OPTIONAL_LOCKS
    HTTP_TIMEOUT"""
)


def project_may_set(name: str) -> bool:
    """Whether a (trusted) project's settings may set the variable `name`."""
    upper = name.upper()
    if upper in _ALLOWED:
        return True
    if upper in _DENIED_NAMES or upper.startswith(_DENIED_PREFIXES) or _DENIED_SUFFIX.search(upper):
        return False
    return bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name))


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
                    f"{source.label}: env {key} is ignored: a project may not set loader, shell start-up, "
                    "home, credential or tool-configuration variables (set it in ~/.claude/settings.json)"
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

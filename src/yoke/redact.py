"""Secrets kept out of what a session shows to other eyes (`/export --html`, docs/remote.md).

Two checks, both drawn from what the permission layer protects (`paths.is_secret`: `.env*`, `*.pem`, `*.key`,
`id_*`, `~/.ssh`, `~/.aws`, `.netrc`, `.git-credentials`, …): a file tool's call on such a file shows none of
the file's content (`secret_file`; a command naming one, `command_names_secret`), and the values those files hold are masked wherever they appear, in a
command's output, a tool's input or the model's text (`redact_text`). One definition of both, here and in
`paths`."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

from yoke.paths import is_secret
from yoke.regex import lazy_compile

REDACTED = "[REDACTED]"

# The values the secret files hold. A group named `keep` (a variable's name, a user) stays; the rest is masked.
_VALUE_SOURCES = (
    # private keys: *.pem, *.key, id_*, ~/.ssh, ~/.gnupg (an unterminated block: to the end)
    r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
    r"(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    # ~/.aws: access key ids
    r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b",
    # tokens of a known shape: GitHub, GitLab, Anthropic/OpenAI, Slack, Google, npm (.npmrc), PyPI (.pypirc)
    r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}|glpat-[A-Za-z0-9_-]{20,}"
    r"|sk-(?:ant-)?[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}"
    r"|npm_[A-Za-z0-9]{36}|pypi-[A-Za-z0-9_-]{50,}"
    # Stripe, Hugging Face, Google OAuth access tokens, SendGrid, DigitalOcean, Shopify, Twilio API keys
    r"|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|hf_[A-Za-z0-9]{30,}|ya29\.[0-9A-Za-z_-]{20,}"
    r"|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}|do[opr]_v1_[a-f0-9]{64}|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"
    r"|SK[0-9a-f]{32})",
    # a JSON Web Token (header.payload.signature), and a Slack or Discord webhook's secret path
    r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
    r"(?P<keep>https://hooks\.slack\.com/services/)[A-Za-z0-9/]{20,}",
    r"(?P<keep>https://(?:canary\.|ptb\.)?discord(?:app)?\.com/api/webhooks/)[0-9]+/[A-Za-z0-9_-]{20,}",
    # a connection string's key (Azure storage, Service Bus): AccountKey=…, SharedAccessKey=…
    r"(?P<keep>\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)=)[^;\s\"']{16,}",
    # .env style: an upper-case name ending in _KEY, _PASS, _AUTH or _DSN (STRIPE_KEY=…, SMTP_PASS=…)
    r"(?P<keep>\b[A-Z0-9_]*_(?:KEY|PASS|AUTH|DSN|SALT)\s*=\s*[\"']?)(?!\d+\b)[^\s\"',;\\]{6,}",
    # .env*, ~/.aws/credentials, .pypirc: a value given to a name that says secret (NAME=v, "name": "v")
    r"(?P<keep>\b[A-Za-z0-9_.-]*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?"
    r"|[Ss]ecret|[Tt]oken|[Pp]assword|[Pp]asswd|[Aa]pi_?[Kk]ey|[Aa]ccess_?[Kk]ey|[Pp]rivate_?[Kk]ey|[Cc]redentials?)"
    r"[A-Za-z0-9_.-]*[\"']?\s*[:=]\s*[\"']?)(?!\d+\b)[^\s\"',;\\]{6,}",
    # .git-credentials, and any URL: the password after the user
    r"(?P<keep>\b[a-z][a-z0-9+.-]*://[^/\s:@]+:)[^/\s@]+(?=@)",
    # .netrc: machine HOST login USER password VALUE
    r"(?P<keep>\blogin\s+\S+\s+password\s+)\S+",
    # an Authorization header's credentials
    r"(?P<keep>\b(?:Bearer|Basic)\s+)[A-Za-z0-9._~+/=-]{16,}",
)
_SECRET_VALUES = lazy_compile(
    "|".join(source.replace("(?P<keep>", f"(?P<keep{i}>") for i, source in enumerate(_VALUE_SOURCES))
)


# A cheap first look: every pattern above holds one of these words (in lower case), so text without any of
# them has nothing to mask (most of a live stream: a delta of plain words). Plain substring tests: a regex
# of alternatives costs more than the full search it saves. Keep it a superset of _VALUE_SOURCES.
_HINT_WORDS = (
    "-----begin", "akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa", "ghp_", "gho_", "ghu_", "ghs_",
    "ghr_", "github_pat_", "glpat-", "sk-", "xox", "aiza", "npm_", "pypi-", "sk_", "rk_", "hf_", "ya29", "sg.",
    "_v1_", "shp", "eyj", "hooks.slack", "discord", "accountkey", "sharedaccess", "secret", "token", "passw",
    "apikey", "api_key", "accesskey", "access_key", "private", "credential", "://", "bearer", "basic", "_key",
    "_pass", "_auth", "_dsn", "_salt",
)  # fmt: skip
_TWILIO = lazy_compile(r"SK[0-9a-f]{32}")


def has_hint(text: str) -> bool:
    """Whether `text` may hold a secret value at all (the full search is much slower)."""
    low = text.lower()
    return any(word in low for word in _HINT_WORDS) or _TWILIO.search(text) is not None


def _mask(match: Any) -> str:
    return "".join(kept for kept in match.groupdict().values() if kept) + REDACTED


def redact_text(text: str) -> str:
    """`text` with every secret value in it replaced by `[REDACTED]`."""
    if not has_hint(text):
        return text
    return _SECRET_VALUES.sub(_mask, text)


def redact_value(value: Any) -> Any:
    """A JSON-shaped value with every string in it passed through `redact_text` (keys stay)."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, list):
        return [redact_value(item) for item in value]
    if isinstance(value, dict):
        return {key: redact_value(item) for key, item in value.items()}
    return value


def secret_file(path: Any, home: Path, cwd: str = "/") -> bool:
    """A file tool's target the permission layer guards as a secret (none of its content may be shown); `~`
    and a path relative to `cwd` are read as the tool reads them."""
    if not isinstance(path, str) or not path:
        return False
    if path == "~" or path.startswith("~/"):
        path = str(home) + path[1:]
    return is_secret(os.path.normpath(os.path.join(cwd, path)), home)


def command_names_secret(command: str, cwd: str, home: Path) -> bool:
    """A shell command with a secret file among its words (`cat ~/.aws/credentials`, `source .env`, `< id_rsa`):
    what it printed may be the file's content."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:  # unbalanced quotes: the words as written
        words = command.split()
    for word in words:
        word = word.lstrip("0123456789&<>")  # a redirection's target
        if not word or word.startswith("-"):
            continue
        if secret_file(word, home, cwd):
            return True
    return False

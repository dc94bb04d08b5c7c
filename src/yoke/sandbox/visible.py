"""What a confined command may see: an allowlist of folders and an allowlist of environment variables.

Reads. The command's root is a fresh, read-only tmpfs holding only: the system's toolchain paths (`/usr`,
`/bin`, `/sbin`, `/lib*`, `/etc` without its secrets), the interpreter Yoke runs on (its install and its
virtual environment), the toolchains the command's `PATH` points to, and the folders the decision named
(the working directories, the starting folder, files the caller needs). The rest of the home, other
projects and any other folder do not exist inside. Every folder is bound at its real path, resolved once
(`yoke.paths.real_dir`: the first resolution of a boundary is kept), so a symbolic link swapped in later
leads nowhere new; a link inside a visible folder that points outside it leads to nothing.

`PATH` toolchains: an entry outside the home is bound with its prefix (`/opt/go/bin` binds `/opt/go`, so the
toolchain finds its libraries); an entry inside the home is bound itself, plus its prefix when it is a tool's
own folder (`~/.cargo/bin` binds `~/.cargo`, `~/.nvm/versions/node/v20/bin` its version folder) but never the
home or `~/.local` as a whole. Secret places below a bound folder stay hidden (`yoke.paths.SECRET_HOME_PATHS`).
Entries inside the working directories are visible anyway, as the working directories are.

Environment. Only the variables of `ENV_NAMES` (and `LC_*`) pass: what programs need to find their tools,
print and behave (`PATH`, `HOME`, locale, terminal, colour), the agent markers, and application modes that
are words, never a credential. API keys, tokens, `*_SECRET`, cloud and proxy settings do not enter.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
# Readable by their owner only, but Yoke may run as root (and the sandbox keeps the uid): hidden outright.
ETC_SECRETS = (
    "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers", "/etc/sudoers.d",
    "/etc/ssh", "/etc/ssl/private", "/etc/krb5.keytab", "/etc/security/opasswd", "/etc/wireguard",
    "/etc/NetworkManager/system-connections", "/etc/netrc",
)  # fmt: skip
ENV_NAMES = frozenset(
    {
        # finding tools and the user's folders
        "PATH", "HOME", "USER", "LOGNAME", "SHELL", "PWD", "TMPDIR",
        # locale, terminal and output
        "LANG", "LANGUAGE", "TZ", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "CLICOLOR",
        "CLICOLOR_FORCE", "COLUMNS", "LINES", "PYTHONUNBUFFERED", "PYTHONIOENCODING", "PYTHONDONTWRITEBYTECODE",
        # the markers scripts check for an agent, and editors that cannot be answered
        "CLAUDECODE", "CLAUDE_PROJECT_DIR", "CLAUDE_CODE_SESSION_ID", "GIT_EDITOR", "EDITOR", "VISUAL",
        # application modes and levels: words a program compares
        "CI", "NODE_ENV", "RAILS_ENV", "RACK_ENV", "APP_ENV", "FLASK_ENV", "DEBUG", "LOG_LEVEL", "RUST_LOG",
        "RUST_BACKTRACE", "VIRTUAL_ENV",
    }
)  # fmt: skip
ENV_PREFIXES = ("LC_",)


def allowed_env(env: Mapping[str, str]) -> dict[str, str]:
    """The variables of `env` a confined command receives."""
    return {k: v for k, v in env.items() if k in ENV_NAMES or k.startswith(ENV_PREFIXES)}


def root_args(path_env: str, home: Path) -> tuple[list[str], list[str]]:
    """bwrap arguments that build the allowlisted root's system part (before /tmp is replaced), and the
    other folders to bind read-only once it is (the interpreter and the toolchains: some live under /tmp)."""
    args = ["--tmpfs", "/"]
    roots: list[str] = []
    for path in SYSTEM_PATHS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
            roots.append(path)
    for path in ETC_SECRETS:
        if os.path.lexists(path):
            args += ["--tmpfs", path] if os.path.isdir(path) else ["--ro-bind", "/dev/null", path]
    extra = outermost([*interpreter_paths(), *toolchains(path_env, home)])
    return args, [p for p in extra if not any(_below(p, r) for r in roots)]


def home_args(home: Path, bound: Iterable[str]) -> list[str]:
    """An empty home folder when nothing bound holds it (tools looking for their dot-files find none), and
    the root made read-only: the last arguments before the command."""
    args: list[str] = []
    text = str(home)
    if os.path.isabs(text) and not any(_below(text, r) for r in [*bound, "/tmp"]):
        args += ["--dir", text]
    return [*args, "--remount-ro", "/"]


def interpreter_paths() -> list[str]:
    """The Python Yoke runs on: its install and its virtual environment (the sandbox's relay runs on it)."""
    return [os.path.realpath(p) for p in (sys.base_prefix, sys.prefix, sys.exec_prefix)]


def toolchains(path_env: str, home: Path) -> list[str]:
    """The folders `PATH` leads to that are bound, by the rule in the module's docstring."""
    homes = {os.path.realpath(home), os.path.realpath(Path.home())}
    out: list[str] = []
    for entry in path_env.split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue  # a relative entry depends on the folder: never trusted
        real = os.path.realpath(entry)
        if not os.path.isdir(real) or real == "/":
            continue
        mine = next((h for h in homes if _below(real, h)), None)
        parent = os.path.dirname(real)
        tool_folder = os.path.basename(real) in ("bin", "sbin", "shims") and parent != "/"
        if mine is None:  # a parent at the top (`/work` of `/work/bin`) may hold anything: the entry alone
            out.append(parent if tool_folder and os.path.dirname(parent) != "/" else real)
            continue
        if real == mine:
            continue  # the home itself on PATH: not a toolchain
        out.append(real)
        if tool_folder and parent not in (mine, os.path.join(mine, ".local")):
            out.append(parent)
    return out


def _below(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def outermost(paths: Iterable[str]) -> list[str]:
    """The existing absolute `paths` that are not below another of them (binding those covers the rest)."""
    found = sorted({p for p in paths if os.path.isabs(p) and os.path.lexists(p)})
    out: list[str] = []
    for path in found:  # sorted: a folder comes before what is below it
        if not any(_below(path, kept) for kept in out):
            out.append(path)
    return out

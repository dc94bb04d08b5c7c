"""The Linux sandbox: bubblewrap.

The whole filesystem is mounted read-only; the working directories (and `sandbox.filesystem.allowWrite`)
are writable, except Claude Code's protected files inside them; /tmp is a private directory for the
session; secret locations (`~/.ssh`, `~/.aws`, …, plus `denyRead` and Read deny rules) are hidden. The
command gets fresh PID, IPC, UTS and network namespaces: no network at all, unless allowed domains exist,
in which case `bridge.py` relays 127.0.0.1:3128 inside to the host's domain proxy over a Unix socket, and
a seccomp filter stops the command creating Unix sockets of its own.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from yoke.paths import SECRET_HOME_PATHS
from yoke.sandbox.errors import SandboxUnavailable
from yoke.sandbox.settings import SandboxSettings
from yoke.sandbox.visible import SYSTEM_PATHS, allowed_env, home_args, root_args

__all__ = ["SECRET_HOME_PATHS", "bwrap_command"]

PROXY_PORT = 3128  # inside the sandbox's own network namespace, so any fixed port is free
PROXY_SOCKET = "/tmp/.yoke-proxy.sock"
# Inside writable directories these stay read-only (Claude Code's sandbox list, plus the other files that
# make some program run code: shell and tool rc files, hook managers, editor and agent configuration). They
# are pinned whether or not they exist: a missing one gets an empty read-only mount point (see _guarded).
PROTECTED_DIRS_IN_WORKDIR = (".git/hooks", ".claude", ".yoke", ".vscode", ".idea", ".husky", ".devcontainer",
                             ".cargo", ".yarn", ".mvn")  # fmt: skip
PROTECTED_FILES_IN_WORKDIR = (
    ".git/config", ".gitmodules", ".gitconfig", ".mcp.json", ".claude.json", ".envrc", ".npmrc", ".yarnrc",
    ".yarnrc.yml", "bunfig.toml", ".bazelrc", ".bashrc", ".bash_profile", ".bash_login", ".zshrc", ".zshenv",
    ".zprofile", ".zlogin", ".profile", ".pre-commit-config.yaml", "lefthook.yml", ".lefthook.yml",
    ".ripgreprc", ".devcontainer.json", "pyrightconfig.json",
)  # fmt: skip
PROTECTED_IN_WORKDIR = PROTECTED_DIRS_IN_WORKDIR + PROTECTED_FILES_IN_WORKDIR
# When no rule of the user's lets commands write git's state, the whole `.git` stays read-only, not only
# the two names that make git run code.
_GIT_WRITABLE = (".git/hooks", ".git/config")


def bwrap_command(
    argv: list[str],
    settings: SandboxSettings,
    cwd: Path,
    working_dirs: list[Path],
    *,
    home: Path,
    writable: list[Path],
    readable: list[Path] | None = None,
    proxy_socket: str | None,
    whole_git: bool = False,
    visible: list[Path] | None = None,
    env: Mapping[str, str] | None = None,
    reopened: list[str] | None = None,
    env_overrides: Mapping[str, str | None] | None = None,
) -> list[str]:
    """The bwrap argv for `argv`: `working_dirs` and `writable` writable (all else read-only), the protected
    names inside them pinned read-only (the whole `.git` when `whole_git`). With `visible` (a list, maybe
    empty) reads are confined by the allowlist of `visible.py`: the system's paths, the toolchains, the
    interpreter, the working directories, `readable` and `visible`, nothing else; without it the whole
    filesystem is readable but the secrets. With `env` the command gets only its allowed variables."""
    bwrap = settings.bwrap_path or shutil.which("bwrap")
    if not bwrap or not os.access(bwrap, os.X_OK):
        raise SandboxUnavailable(
            "the sandbox is enabled but bubblewrap (bwrap) is not installed; install it "
            "(apt-get install bubblewrap) or set sandbox.enabled to false"
        )
    probe_bwrap(bwrap)
    # --cap-drop ALL matters when Yoke runs as root: bwrap would otherwise keep every capability, and
    # CAP_SYS_ADMIN could simply remount the read-only filesystem writable.
    args = [bwrap, "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    args += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net"]
    allowlisted = visible is not None
    bound: list[str] = []
    if allowlisted:
        path_env = (env if env is not None else os.environ).get("PATH", os.defpath)
        root, extra = root_args(path_env, home)
        args += root
        bound = [*SYSTEM_PATHS, *_existing([*extra, *(visible or []), *(readable or [])])]
    else:
        args += ["--ro-bind", "/", "/"]
    args += ["--dev", "/dev", "--proc", "/proc", "--bind", session_tmp(), "/tmp"]
    for path in bound[len(SYSTEM_PATHS) :]:
        args += ["--ro-bind", path, path]  # after /tmp is replaced: some of them live under the host's /tmp
    writable_dirs = _existing(
        [*working_dirs, *writable, *(settings.resolve(p, home) for p in settings.allow_write)]
    )
    for path in writable_dirs:
        args += ["--bind", path, path]
    pins, created = _pin_protected(writable_dirs, whole_git)
    args += pins
    for path in _existing(reopened or []):
        args += ["--bind", path, path]  # approved below a pinned name (`.claude/worktrees`)
    for path in _existing(settings.resolve(p, home) for p in settings.deny_write):
        args += ["--ro-bind", path, path]
    if not allowlisted:  # (allowlisted, they are bound with the rest of what is visible)
        for path in _existing(readable or []):
            # e.g. a file under the host's /tmp, which the sandbox cannot see
            args += ["--ro-bind", path, path]
    args += _hide_secrets(settings, home, [*bound, *writable_dirs] if allowlisted else None)
    network, proxy_env, inner = _network(argv, settings, proxy_socket, allowlisted)
    args += network
    args += _env_args(env, proxy_env, env_overrides or {})
    if allowlisted:
        args += home_args(home, [*bound, *writable_dirs])
    args += ["--chdir", os.path.realpath(cwd), "--", *inner]
    if "--seccomp" in args:
        # The filter reaches bwrap on a descriptor: a tiny shell opens it and execs bwrap.
        args = ["/bin/sh", "-c", f'exec "$@" {_SECCOMP_FD}<"$0"', seccomp_filter_file(), *args]
    if created:
        return _guarded(args, created)
    return args


def _env_args(
    env: Mapping[str, str] | None, proxy_env: dict[str, str], overrides: Mapping[str, str | None]
) -> list[str]:
    """The command's environment: `env`'s allowed variables only when given (bwrap would otherwise pass on
    everything it was started with), the sandbox's own (`TMPDIR`, the proxy), and `overrides` (credentials:
    a masked variable's sentinel, or None to remove it)."""
    args: list[str] = []
    set_env = {"TMPDIR": "/tmp", **proxy_env}
    if env is not None:
        args.append("--clearenv")
        set_env = {**allowed_env(env), **set_env}
    for key, override in overrides.items():
        if override is None:
            args += ["--unsetenv", key]
        else:
            set_env[key] = override
    for key, value in set_env.items():
        args += ["--setenv", key, value]
    return args


def _network(
    argv: list[str], settings: SandboxSettings, proxy_socket: str | None, allowlisted: bool = False
) -> tuple[list[str], dict[str, str], list[str]]:
    """What the network rules add: bwrap arguments, proxy variables, and the command to run (behind the
    relay to the filtering proxy when there is one; unix sockets denied by the relay or a seccomp filter)."""
    args: list[str] = []
    env: dict[str, str] = {}
    inner = list(argv)
    bridge: list[str] = []
    if proxy_socket is not None:
        args += ["--bind", proxy_socket, PROXY_SOCKET]
        url = f"http://127.0.0.1:{PROXY_PORT}"
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            env[name] = url
        env["NO_PROXY"] = env["no_proxy"] = ""
        bridge += ["--port", str(PROXY_PORT), "--socket", PROXY_SOCKET]
    no_unix_sockets = not settings.allow_all_unix_sockets
    if no_unix_sockets and bridge:
        bridge.append("--deny-unix-sockets")
    elif no_unix_sockets:
        args += ["--seccomp", str(_SECCOMP_FD)]  # bwrap installs the filter itself: no relay process
    if bridge:
        # The relay runs with the real interpreter and the standard library only (-I -S): no virtualenv is
        # needed inside. Whatever of it lives under the host's /tmp (a checkout or a Python built there) is
        # hidden by the private /tmp, so it is bound back read-only.
        python = os.path.realpath(sys.executable)
        relay = os.path.realpath(Path(__file__).with_name("bridge.py"))
        for path in _existing([python, relay, sys.base_prefix]):
            if allowlisted or path == "/tmp" or path.startswith("/tmp/"):
                args += ["--ro-bind", path, path]
        inner = [python, "-I", "-S", relay, *bridge, "--", *argv]
    return args, env, inner


def _guarded(args: list[str], created: list[str]) -> list[str]:
    """`args` run by a small shell that afterwards removes the mount points bubblewrap had to create for
    protected names that did not exist, each only if it is still empty (a command cannot fill it: it is
    a read-only mount while the command runs), so the project is left as it was. The shell catches
    TERM/INT/HUP (its children do not inherit a caught signal) so that stopping the group stops bwrap and
    the clean-up still runs; only a SIGKILL of the group could leave an empty file or folder behind."""
    import shlex

    paths = " ".join(shlex.quote(p) for p in reversed(created))  # deepest (last created) first
    script = (  # one rmdir for the folders (it leaves non-empty ones), one rm for the empty files
        'trap : TERM INT HUP; "$@"; rc=$?; set --; '
        f'for p in {paths}; do [ -d "$p" ] && [ ! -L "$p" ] && set -- "$@" "$p"; done; '
        '[ $# -eq 0 ] || rmdir -- "$@" 2>/dev/null; set --; '
        f'for p in {paths}; do [ -f "$p" ] && [ ! -L "$p" ] && [ ! -s "$p" ] && set -- "$@" "$p"; done; '
        '[ $# -eq 0 ] || rm -f -- "$@"; exit $rc'
    )
    return ["/bin/sh", "-c", script, "yoke-sandbox", *args]


def _pin_protected(writable_dirs: list[str], whole_git: bool = False) -> tuple[list[str], list[str]]:
    """bwrap arguments that keep every protected name in the writable folders read-only, and the mount
    points that will have to be created for the names that do not exist (removed afterwards)."""
    args: list[str] = []
    created: list[str] = []
    names: tuple[str, ...] = PROTECTED_IN_WORKDIR
    if whole_git:
        names = (".git", *(n for n in names if n not in _GIT_WRITABLE))
    for path in writable_dirs:
        for name in names:
            target = os.path.join(path, name)
            if os.path.lexists(target):
                args += ["--ro-bind", target, target]
            elif os.path.isdir(os.path.dirname(target)) and not os.path.islink(os.path.dirname(target)):
                if name in PROTECTED_DIRS_IN_WORKDIR or name == ".git":
                    args += ["--tmpfs", target, "--remount-ro", target]
                else:
                    args += ["--ro-bind", "/dev/null", target]
                created.append(target)
    return args, created


def _hide_secrets(settings: SandboxSettings, home: Path, within: list[str] | None = None) -> list[str]:
    """Hide the home's secret places, `denyRead` and Read deny rules' paths (only those inside `within`, the
    folders bound, when reads are allowlisted: nothing else exists there)."""
    homes = dict.fromkeys([str(home), str(Path.home())])  # the session's, and the user's when it differs
    hidden = [f"{h}/{rel}" for h in homes for rel in SECRET_HOME_PATHS]
    hidden += [settings.resolve(p, home) for p in settings.deny_read]
    args: list[str] = []
    for path in _existing(hidden):
        if within is not None and not any(path == w or path.startswith(w.rstrip("/") + "/") for w in within):
            continue
        if os.path.isdir(path):
            args += ["--tmpfs", path, "--remount-ro", path]
        else:
            args += ["--ro-bind", "/dev/null", path]
    for path in _existing(settings.resolve(p, home) for p in settings.allow_read):
        if any(path != h and path.startswith(h.rstrip("/") + "/") for h in hidden):
            args += ["--ro-bind", path, path]  # a narrower allowRead re-opens part of a hidden directory
    return args


def _existing(paths) -> list[str]:  # type: ignore[no-untyped-def]
    out: list[str] = []
    for path in paths:
        real = os.path.realpath(path)
        if os.path.lexists(real) and real not in out:
            out.append(real)
    return out


@functools.lru_cache(maxsize=4)
def probe_bwrap(bwrap: str) -> None:
    """Start one trivial sandbox to learn whether namespaces work here (once per process)."""
    from yoke import spawn

    try:
        result = spawn.run(  # the probe itself: a fixed, trivial sandbox
            [
                bwrap,
                "--cap-drop",
                "ALL",
                "--ro-bind",
                "/",
                "/",
                "--unshare-net",
                "--unshare-pid",
                "--dev",
                "/dev",
                "--",
                "true",
            ],
            confine=None,
            text=True,
            timeout=15,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxUnavailable(f"the sandbox is enabled but bubblewrap cannot start ({exc})") from None
    if result.returncode != 0:
        detail = (result.stderr.strip().splitlines() or ["unknown error"])[-1]
        raise SandboxUnavailable(
            f"the sandbox is enabled but bubblewrap cannot create namespaces here ({detail}); "
            "allow unprivileged user namespaces or set sandbox.enabled to false"
        )


_SECCOMP_FD = 9


@functools.lru_cache(maxsize=1)
def seccomp_filter_file() -> str:
    """The compiled seccomp filter that refuses Unix-domain sockets (bridge.py's program), written once per
    process into a private directory no sandboxed command can write (not the sandbox's /tmp)."""
    from yoke.sandbox.bridge import seccomp_program

    try:
        program = seccomp_program(os.uname().machine)
    except KeyError:
        raise SandboxUnavailable(
            f"the Unix-socket filter is not available on {os.uname().machine} "
            "(set sandbox.network.allowAllUnixSockets)"
        ) from None
    folder = tempfile.mkdtemp(prefix="yoke-seccomp-")
    atexit.register(shutil.rmtree, folder, True)
    path = os.path.join(folder, "unix-sockets.bpf")
    with open(path, "wb") as out:
        out.write(program)
    os.chmod(path, 0o400)
    return path


@functools.lru_cache(maxsize=1)
def session_tmp() -> str:
    """The sandbox's /tmp: one private directory per Yoke process, removed at exit."""
    path = tempfile.mkdtemp(prefix="yoke-sandbox-tmp-")
    atexit.register(shutil.rmtree, path, True)
    return path

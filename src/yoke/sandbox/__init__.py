"""The OS sandbox for Bash: bubblewrap on Linux, sandbox-exec on macOS, and a domain-filtering proxy.

`wrap_command(argv, settings, cwd, working_dirs)` returns the argv that runs `argv` inside the sandbox, or
raises `SandboxUnavailable` (one line; the caller must then refuse to run the command: fail closed).
`should_sandbox(command, settings, dangerously_disable, excluded)` says whether a Bash command runs sandboxed
at all (`sandbox.enabled`, `excludedCommands`, `allowUnsandboxedCommands`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from yoke.sandbox.errors import SandboxUnavailable
from yoke.sandbox.settings import SandboxSettings

__all__ = ["SandboxSettings", "SandboxUnavailable", "should_sandbox", "wrap_command"]


def wrap_command(
    argv: list[str],
    settings: SandboxSettings,
    cwd: Path,
    working_dirs: list[Path],
    *,
    writable: list[Path] | None = None,
    readable: list[Path] | None = None,
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> list[str]:
    """The sandboxed argv for `argv`. `writable` adds paths the caller itself needs to write from inside
    (e.g. the file the shell reports its final directory to); `readable` paths the command must be able to
    read even under the host's /tmp, which the Linux sandbox replaces (e.g. a shell snapshot). Starts the
    domain proxy on first use. `env` is the environment the command is started with: the variables
    `sandbox.credentials.envVars` names are masked or removed from it (`credentials.py`)."""
    home = home or Path.home()
    writable = list(writable or [])
    platform = sys.platform
    if platform.startswith("linux"):
        from yoke.sandbox.confine import denied_in
        from yoke.sandbox.linux import bwrap_command

        proxy = _proxy(settings)
        overrides, extra_readable = _credentials(settings, proxy, os.environ if env is None else env)
        if settings.read_denied is not None or settings.write_denied is not None:
            # what Read and Edit deny rules name (wildcards included) is hidden or pinned here too
            from yoke.sandbox.deny_only import rule_roots

            roots = rule_roots(settings)
            hidden, pinned = denied_in([*working_dirs, cwd, *roots], home, settings, secrets=False)
            settings = settings.replace(
                deny_read=(*settings.deny_read, *hidden), deny_write=(*settings.deny_write, *pinned)
            )
        return bwrap_command(
            argv,
            settings,
            cwd,
            working_dirs,
            home=home,
            writable=writable,
            readable=[*(readable or []), *extra_readable],
            proxy_socket=proxy.unix_path if proxy else None,
            env_overrides=overrides,
            # permissions.blockReadsOutsideWorkingDirectories: reads allowlisted as on the fast paths
            visible=[cwd, *working_dirs] if settings.block_reads_outside else None,
        )
    if platform == "darwin":
        from yoke.sandbox.macos import seatbelt_command

        proxy = _proxy(settings)
        tmp = os.environ.get("TMPDIR") or "/tmp"
        return seatbelt_command(
            argv,
            settings,
            cwd,
            working_dirs,
            home=home,
            writable=writable,
            proxy_port=proxy.tcp_port if proxy else None,
            tmp_dir=tmp,
        )
    raise SandboxUnavailable(
        f"the sandbox is enabled but not supported on {platform}; set sandbox.enabled to false"
    )


def _credentials(settings: SandboxSettings, proxy, env: Mapping[str, str]):  # type: ignore[no-untyped-def]
    """The environment changes `sandbox.credentials.envVars` asks for (a sentinel in place of a masked value,
    nothing for a denied one), each masked value handed to the proxy for its hosts, and what the sandbox must
    see for programs to trust the proxy's certificates."""
    from yoke.sandbox.credentials import DENY, authority, ca_env, sentinel

    overrides: dict[str, str | None] = {}
    readable: list[Path] = []
    for entry in settings.credential_env:
        value = env.get(entry.name)
        if value is None:
            continue
        if entry.mode == DENY:
            overrides[entry.name] = None
            continue
        overrides[entry.name] = sentinel(entry.name)
        if proxy is not None:
            proxy.add_secret(overrides[entry.name], value, entry.hosts)
    if proxy is not None and proxy.secrets:
        try:
            auth = authority()
        except ImportError:
            raise SandboxUnavailable(
                "sandbox.credentials masks values through the proxy, which needs the cryptography package "
                "(pip install 'yoke[credentials]')"
            ) from None
        overrides.update(ca_env(auth))
        readable.append(Path(auth.folder))
    return overrides, readable


def _proxy(settings: SandboxSettings):  # type: ignore[no-untyped-def]
    if not settings.allowed_domains:
        return None
    from yoke.sandbox.proxy import shared_proxy

    try:
        return shared_proxy(settings.allowed_domains, settings.denied_domains)
    except OSError as exc:
        raise SandboxUnavailable(f"the sandbox's network proxy cannot start ({exc})") from None


def should_sandbox(
    command: str,
    settings: SandboxSettings,
    dangerously_disable: bool = False,
    excluded: Callable[[str], bool] | None = None,
) -> bool:
    """Whether this Bash command runs inside the sandbox. `excluded` says whether the command line is one
    of `excludedCommands` (Bash rule patterns, matched by the permissions layer, which hands the check in:
    `permissions/sandbox_exclusions.py`); without it nothing is excluded, so the command stays sandboxed."""
    if not settings.enabled:
        return False
    if dangerously_disable and settings.allow_unsandboxed_commands:
        return False
    return not (excluded is not None and excluded(command))

"""The macOS sandbox: `sandbox-exec` with a generated Seatbelt profile.

Everything is readable except secret locations; writes are allowed only in the working directories, the
session's temp directory and a few devices, never to protected files; the network is closed except the
local domain proxy's port (and loopback binding when `allowLocalBinding` is set, and listed Unix sockets).
In Seatbelt the last matching rule wins, so the profile goes from broad to narrow.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from yoke.sandbox.errors import SandboxUnavailable
from yoke.sandbox.linux import PROTECTED_IN_WORKDIR, SECRET_HOME_PATHS
from yoke.sandbox.settings import SandboxSettings

SANDBOX_EXEC = "/usr/bin/sandbox-exec"
_DEVICES = ("/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/dtracehelper")


def seatbelt_command(
    argv: list[str],
    settings: SandboxSettings,
    cwd: Path,
    working_dirs: list[Path],
    *,
    home: Path,
    writable: list[Path],
    proxy_port: int | None,
    tmp_dir: str,
) -> list[str]:
    tool = shutil.which("sandbox-exec") or (SANDBOX_EXEC if os.path.exists(SANDBOX_EXEC) else None)
    if tool is None:
        raise SandboxUnavailable(
            "the sandbox is enabled but sandbox-exec was not found; set sandbox.enabled to false"
        )
    profile = seatbelt_profile(
        settings, working_dirs, home=home, writable=writable, proxy_port=proxy_port, tmp_dir=tmp_dir
    )
    env = [f"TMPDIR={tmp_dir}"]
    if proxy_port is not None:
        url = f"http://127.0.0.1:{proxy_port}"
        env += [f"{n}={url}" for n in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy")]
        env += ["NO_PROXY=", "no_proxy="]
    return [tool, "-p", profile, "/usr/bin/env", *env, *argv]


def seatbelt_profile(
    settings: SandboxSettings,
    working_dirs: list[Path],
    *,
    home: Path,
    writable: list[Path],
    proxy_port: int | None,
    tmp_dir: str,
) -> str:
    write_dirs = [os.path.realpath(p) for p in [*working_dirs, *writable]]
    write_dirs += [settings.resolve(p, home) for p in settings.allow_write]
    write_dirs.append(os.path.realpath(tmp_dir))
    lines = ["(version 1)", "(allow default)", "(deny network*)"]
    if proxy_port is not None:
        lines.append(f'(allow network-outbound (remote ip "localhost:{proxy_port}"))')
    if settings.allow_local_binding:
        lines.append('(allow network-bind (local ip "localhost:*"))')
        lines.append('(allow network-inbound (local ip "localhost:*"))')
    for sock in settings.allow_unix_sockets:
        lines.append(
            f"(allow network-outbound (remote unix-socket (path-literal {_q(settings.resolve(sock, home))})))"
        )
    if settings.allow_all_unix_sockets:
        lines.append("(allow network-outbound (remote unix-socket))")
    lines.append("(deny file-write*)")
    allowed = [f"(subpath {_q(p)})" for p in dict.fromkeys(write_dirs)]
    allowed += [f"(literal {_q(d)})" for d in _DEVICES]
    allowed.append('(regex #"^/dev/fd/")')
    allowed.append('(regex #"^/dev/ttys[0-9]+$")')
    lines.append(f"(allow file-write* {' '.join(allowed)})")
    protected = [os.path.join(d, name) for d in write_dirs for name in PROTECTED_IN_WORKDIR]
    protected += [settings.resolve(p, home) for p in settings.deny_write]
    if protected:
        lines.append(f"(deny file-write* {' '.join(f'(subpath {_q(p)})' for p in protected)})")
    hidden = [str(home / rel) for rel in SECRET_HOME_PATHS] + [
        settings.resolve(p, home) for p in settings.deny_read
    ]
    lines.append(f"(deny file-read* {' '.join(f'(subpath {_q(p)})' for p in hidden)})")
    reopened = [
        path
        for path in (settings.resolve(p, home) for p in settings.allow_read)
        if any(
            path != h and path.startswith(h.rstrip("/") + "/") for h in hidden
        )  # only narrower than a deny
    ]
    if reopened:
        lines.append(f"(allow file-read* {' '.join(f'(subpath {_q(p)})' for p in reopened)})")
    return "\n".join(lines) + "\n"


def _q(path: str) -> str:
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'

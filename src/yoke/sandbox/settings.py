"""The `sandbox` settings block (Claude Code's shape), read into one frozen object.

Sandbox path prefixes differ from permission rules: `/x` is absolute, `~/x` is in the home directory, and
`./x` or a bare name is relative to the project directory.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from yoke.records import FrozenRecord
from yoke.sandbox.credentials import MaskedVariable, parse_env_vars


class SandboxSettings(FrozenRecord):
    __slots__ = (
        "enabled",
        "auto_allow_bash",
        "excluded_commands",
        "allow_unsandboxed_commands",
        "allow_write",
        "deny_write",
        "deny_read",
        "allow_read",
        "allowed_domains",
        "denied_domains",
        "allow_unix_sockets",
        "allow_all_unix_sockets",
        "allow_local_binding",
        "bwrap_path",
        "base_dir",
        "read_denied",
        "write_denied",
        "block_reads_outside",
        "credential_env",
    )
    enabled: bool
    auto_allow_bash: bool
    excluded_commands: tuple[str, ...]
    allow_unsandboxed_commands: bool
    allow_write: tuple[str, ...]
    deny_write: tuple[str, ...]
    deny_read: tuple[str, ...]
    allow_read: tuple[str, ...]
    allowed_domains: tuple[str, ...]
    denied_domains: tuple[str, ...]
    allow_unix_sockets: tuple[str, ...]
    allow_all_unix_sockets: bool
    allow_local_binding: bool
    bwrap_path: str | None
    base_dir: Path | None
    # set by the permission layer: whether an absolute path is one a Read (Edit) deny rule names, wildcards
    # included; the kernel hides (pins) what they name in the working directories
    read_denied: Callable[[str], bool] | None
    write_denied: Callable[[str], bool] | None
    block_reads_outside: bool  # permissions.blockReadsOutsideWorkingDirectories: reads are allowlisted
    credential_env: tuple[MaskedVariable, ...]  # sandbox.credentials.envVars (credentials.py)

    def __init__(
        self,
        enabled: bool = False,
        auto_allow_bash: bool = True,
        excluded_commands: tuple[str, ...] = (),
        allow_unsandboxed_commands: bool = True,
        allow_write: tuple[str, ...] = (),
        deny_write: tuple[str, ...] = (),
        deny_read: tuple[str, ...] = (),
        allow_read: tuple[str, ...] = (),
        allowed_domains: tuple[str, ...] = (),
        denied_domains: tuple[str, ...] = (),
        allow_unix_sockets: tuple[str, ...] = (),
        allow_all_unix_sockets: bool = False,
        allow_local_binding: bool = False,
        bwrap_path: str | None = None,
        base_dir: Path | None = None,
        read_denied: Callable[[str], bool] | None = None,
        write_denied: Callable[[str], bool] | None = None,
        block_reads_outside: bool = False,
        credential_env: tuple[MaskedVariable, ...] = (),
    ) -> None:
        self._fill(
            enabled=enabled,
            auto_allow_bash=auto_allow_bash,  # autoAllowBashIfSandboxed
            excluded_commands=excluded_commands,
            # whether dangerouslyDisableSandbox is honoured
            allow_unsandboxed_commands=allow_unsandboxed_commands,
            allow_write=allow_write,
            deny_write=deny_write,
            deny_read=deny_read,
            allow_read=allow_read,
            allowed_domains=allowed_domains,
            denied_domains=denied_domains,
            allow_unix_sockets=allow_unix_sockets,
            allow_all_unix_sockets=allow_all_unix_sockets,
            allow_local_binding=allow_local_binding,
            bwrap_path=bwrap_path,
            base_dir=Path.cwd() if base_dir is None else base_dir,  # what `./x` paths are relative to
            read_denied=read_denied,
            write_denied=write_denied,
            block_reads_outside=block_reads_outside,
            credential_env=credential_env,
        )

    @classmethod
    def from_settings(cls, merged: dict[str, Any], base_dir: Path) -> SandboxSettings:
        block = merged.get("sandbox")
        if not isinstance(block, dict):
            return cls(base_dir=base_dir)
        fs, net = _section(block, "filesystem"), _section(block, "network")
        creds = _section(block, "credentials")
        # credential files are hidden, `mask` as `deny` (a file's value is not substituted: Claude Code's
        # degraded form)
        files = tuple(
            e["path"]
            for e in creds.get("files") or []
            if isinstance(e, dict) and isinstance(e.get("path"), str)
        )
        return cls(
            enabled=block.get("enabled") is True,
            auto_allow_bash=block.get("autoAllowBashIfSandboxed", True) is not False,
            excluded_commands=_strings(block.get("excludedCommands")),
            allow_unsandboxed_commands=block.get("allowUnsandboxedCommands", True) is not False,
            allow_write=_strings(fs.get("allowWrite")),
            deny_write=_strings(fs.get("denyWrite")),
            deny_read=(*_strings(fs.get("denyRead")), *files),
            allow_read=_strings(fs.get("allowRead")),
            allowed_domains=_strings(net.get("allowedDomains")),
            denied_domains=_strings(net.get("deniedDomains")),
            allow_unix_sockets=_strings(net.get("allowUnixSockets")),
            allow_all_unix_sockets=net.get("allowAllUnixSockets") is True,
            allow_local_binding=net.get("allowLocalBinding") is True,
            bwrap_path=block.get("bwrapPath") if isinstance(block.get("bwrapPath"), str) else None,
            base_dir=base_dir,
            credential_env=parse_env_vars(creds.get("envVars")),
        )

    def resolve(self, entry: str, home: Path | None = None) -> str:
        """A sandbox path entry as an absolute path (`/x` absolute, `~/x` home, else project-relative)."""
        home = home or Path.home()
        if entry == "~" or entry.startswith("~/"):
            return os.path.normpath(str(home) + entry[1:])
        if entry.startswith("/"):
            return os.path.normpath(entry)
        return os.path.normpath(os.path.join(str(self.base_dir), entry))


def _strings(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(v for v in value if isinstance(v, str) and v)


def _section(block: dict[str, Any], key: str) -> dict[str, Any]:
    """`block[key]` when it is an object, else {} (a malformed section is ignored, not an error)."""
    value = block.get(key)
    return value if isinstance(value, dict) else {}

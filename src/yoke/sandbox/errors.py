"""The sandbox's one user-facing error."""

from __future__ import annotations


class SandboxUnavailable(RuntimeError):
    """The sandbox is enabled but cannot run here. The message is one line saying what to do; the Bash tool
    reports it and does not run the command (fail closed)."""

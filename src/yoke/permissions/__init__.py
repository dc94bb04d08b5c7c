"""Permissions: Claude Code's rules and modes, the bash analyser, path checks, and the gate built from them.

Entry points (imported lazily so `import yoke.seams` stays cheap):
`build_gate(settings, cwd=…, mode=…, allowed_tools=…, disallowed_tools=…, add_dirs=…, interactive=…)`,
`PermissionGate`, `PermissionModeError`, `is_read_only_command`.
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "build_gate": "yoke.permissions.build",
    "PermissionGate": "yoke.permissions.pipeline",
    "PermissionModeError": "yoke.permissions.pipeline",
    "is_read_only_command": "yoke.permissions.bash_analysis",
    "is_trusted": "yoke.config.trust",
    "trust_folder": "yoke.config.trust",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'yoke.permissions' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)

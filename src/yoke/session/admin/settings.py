"""Settings values as `yoke config set` checks them before writing: what a session would refuse to start
with, or silently ignore, is refused here with one line."""

from __future__ import annotations

from typing import Any

from yoke.session.admin import AdminError


def check_setting(keys: tuple[str, ...], value: Any) -> None:
    """AdminError when `value` cannot be the setting at `keys` (a permission mode, a reasoning effort)."""
    from yoke.config.settings_write import SETTABLE_MODES

    if keys == ("permissions", "defaultMode") and value not in SETTABLE_MODES:
        raise AdminError(
            f"defaultMode must be one of {', '.join(SETTABLE_MODES)} "
            "(auto and bypassPermissions are chosen with --permission-mode)"
        )
    if keys == ("effortLevel",):
        from yoke.providers.effort import EffortError, check_level

        try:
            check_level(value, "effortLevel")
        except EffortError as exc:
            raise AdminError(str(exc)) from None

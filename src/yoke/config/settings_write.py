"""Writing one key of a settings file: atomically, keeping every other key (used by `/config` and
`yoke config`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from yoke.fsutil import read_regular_text
from yoke.jsonsafe import loads as safe_json

# Modes a settings file may name as the default; auto and bypassPermissions are chosen with a flag.
SETTABLE_MODES = ("default", "acceptEdits", "plan", "dontAsk")


def write_setting(path: Path, keys: tuple[str, ...], value: Any) -> None:
    """Set `keys` (a path into nested objects) in a settings file, keeping the rest; None removes the key.
    ValueError (one line) when the file is not a JSON object."""
    from yoke.config.trust import write_json_atomic

    data: Any = {}
    if path.exists():
        try:
            data = safe_json(read_regular_text(path) or "{}")
        except (OSError, ValueError):
            raise ValueError(f"{path} is not valid JSON; fix or remove it first") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} does not hold a JSON object; fix it first")
    node = data
    for key in keys[:-1]:
        child = node.setdefault(key, {})
        if not isinstance(child, dict):
            raise ValueError(f"`{key}` in {path} is not an object; fix it first")
        node = child
    if value is None:
        node.pop(keys[-1], None)
    else:
        node[keys[-1]] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path, data)


def add_to_list_setting(path: Path, key: str, value: str) -> None:
    """Add `value` to the list setting `key` of a settings file (once), keeping the rest."""
    current: Any = []
    if path.exists():
        try:
            current = safe_json(read_regular_text(path) or "{}").get(key, [])
        except (OSError, ValueError, AttributeError):
            current = []  # write_setting reports a broken file
    items = [v for v in current if isinstance(v, str)] if isinstance(current, list) else []
    if value not in items:
        write_setting(path, (key,), [*items, value])

"""The settings files the terminal reads and writes: the merged settings of the folder, and single keys
written into the project's local or the user's settings file (atomically, keeping every other key)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from yoke.jsonsafe import loads as safe_json


def local_settings_file(cwd: str) -> Path:
    from yoke.config.settings import local_settings_path

    return local_settings_path(Path(cwd))


def user_settings_file(env: dict[str, str]) -> Path:
    from yoke.config.settings import claude_config_dir

    return claude_config_dir(Path(env.get("HOME") or Path.home()), env) / "settings.json"


def write_setting(path: Path, keys: tuple[str, ...], value: Any) -> None:
    """Set `keys` (a path into nested objects) in a settings file, keeping the rest; None removes the key.
    ValueError (one line) when the file is not a JSON object."""
    from yoke.permissions.trust import write_json_atomic

    data: Any = {}
    if path.exists():
        try:
            data = safe_json(path.read_text(encoding="utf-8") or "{}")
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


def merged_settings(ui: Any) -> dict[str, Any]:
    from yoke.config.settings import load_settings

    try:
        home = Path(ui.env.get("HOME") or Path.home())
        return load_settings(Path(ui.cwd), home=home, flag_settings=getattr(ui, "settings_flag", None)).merged
    except (OSError, ValueError):
        return {}

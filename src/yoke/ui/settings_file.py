"""The settings files the terminal reads and writes: the merged settings of the folder, and single keys
written into the project's local or the user's settings file (atomically, keeping every other key)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from yoke.config.settings_write import write_setting

__all__ = ["local_settings_file", "merged_settings", "user_settings_file", "write_setting"]


def local_settings_file(cwd: str) -> Path:
    from yoke.config.settings import local_settings_path

    return local_settings_path(Path(cwd))


def user_settings_file(env: dict[str, str]) -> Path:
    from yoke.config.settings import claude_config_dir

    return claude_config_dir(Path(env.get("HOME") or Path.home()), env) / "settings.json"


def merged_settings(ui: Any) -> dict[str, Any]:
    from yoke.config.settings import load_settings

    try:
        home = Path(ui.env.get("HOME") or Path.home())
        return load_settings(Path(ui.cwd), home=home, flag_settings=getattr(ui, "settings_flag", None)).merged
    except (OSError, ValueError):
        return {}

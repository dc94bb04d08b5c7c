"""Workspace trust: which folders the user has said may configure their own permissions.

Project settings (`.claude/settings*.json`, `.yoke/settings*.json`) may only widen permissions (allow rules,
additional directories, a default mode, sandbox settings) once the folder is trusted, so a cloned repository
cannot grant itself anything. Yoke keeps its answers in `<yoke home>/trusted.json`; it also honours Claude
Code's record (`projects[<path>].hasTrustDialogAccepted` in `~/.claude.json`) so a folder trusted there is
trusted here. Trusting a folder covers the folders below it, except that trusting the home directory or
the filesystem root covers only that folder itself.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from yoke.fsutil import read_regular_text, replace_file
from yoke.jsonsafe import loads as safe_json

TRUST_FILE = "trusted.json"


def is_trusted(
    folder: Path, yoke_home: Path, *, home: Path | None = None, claude_dir: Path | None = None
) -> bool:
    folder_text = os.path.realpath(folder)
    home_text = os.path.realpath(home or Path.home())
    entries = set(_yoke_entries(yoke_home)) | set(_claude_entries(home or Path.home(), claude_dir))
    for entry in entries:
        entry = os.path.realpath(entry)
        if folder_text == entry:
            return True
        if entry not in ("/", home_text) and folder_text.startswith(entry.rstrip("/") + "/"):
            return True
    return False


def trust_folder(folder: Path, yoke_home: Path) -> Path:
    """Record that the user trusts `folder` (atomically); returns the trust file's path."""
    path = yoke_home / TRUST_FILE
    entries = _yoke_entries(yoke_home)
    target = os.path.realpath(folder)
    if target not in entries:
        entries.append(target)
    yoke_home.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path, {"trusted": entries})
    return path


def _yoke_entries(yoke_home: Path) -> list[str]:
    try:
        data = safe_json(read_regular_text(yoke_home / TRUST_FILE))
    except (OSError, ValueError):
        return []
    items = data.get("trusted") if isinstance(data, dict) else None
    return [str(x) for x in items if isinstance(x, str)] if isinstance(items, list) else []


def _claude_entries(home: Path, claude_dir: Path | None) -> list[str]:
    config_dir = os.environ.get("CLAUDE_CONFIG_DIR")
    path = Path(config_dir) / ".claude.json" if config_dir else home / ".claude.json"
    if claude_dir is not None and config_dir:
        path = claude_dir / ".claude.json"
    try:
        data = safe_json(read_regular_text(path))
    except (OSError, ValueError):
        return []
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return []
    return [p for p, v in projects.items() if isinstance(v, dict) and v.get("hasTrustDialogAccepted") is True]


def write_json_atomic(path: Path, data: object) -> None:
    """Write JSON through a temporary file in the same folder and rename it into place."""
    replace_file(path, (json.dumps(data, indent=2) + "\n").encode("utf-8"))

"""The sub-agent definitions sessions started in a folder can use, as `yoke agents --definitions` lists
them: built-in, user, project and plugin ones, where each comes from, and the files that were skipped."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def definitions(cwd: Path, env: Mapping[str, str]) -> tuple[list[tuple[str, str, Path | None]], list[str]]:
    """(name, source, file or None for a built-in) of each definition in force, and the warnings met."""
    from yoke.agents.definitions import load_catalog

    catalog = load_catalog(cwd, env=env)
    rows = [(d.name, d.source, d.path) for d in catalog.by_name.values()]
    return rows, list(catalog.warnings)

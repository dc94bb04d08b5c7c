"""Helpers for hook tests: real scripts in `scripts/`, a lifecycle with the hook listener on it."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from yoke.hooks.config import parse_hooks
from yoke.hooks.listener import HookListener
from yoke.loop.lifecycle import Lifecycle

SCRIPTS = Path(__file__).parent / "scripts"
needs_jq = pytest.mark.skipif(shutil.which("jq") is None, reason="jq is not installed (make system-deps)")


def script(name: str) -> str:
    """The command line for a script, as a settings file would write it."""
    path = SCRIPTS / name
    return f"{sys.executable} {path}" if name.endswith(".py") else str(path)


def common(project: Path) -> dict:
    return {
        "session_id": "0381b11b-1111-2222-3333-444455556666",
        "transcript_path": str(project / "t.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
    }


def make(project: Path, hooks: dict, **kwargs) -> tuple[Lifecycle, HookListener]:
    warnings: list[str] = []
    groups = parse_hooks(hooks, scope="project", source="test settings", warnings=warnings)
    assert not warnings, warnings
    listener = HookListener(groups, project_dir=project, work_dir=project / ".work", **kwargs)
    lifecycle = Lifecycle(lambda: common(project))
    lifecycle.add(listener)
    return lifecycle, listener


def received(project: Path, name: str) -> dict:
    return json.loads((project / f".hook-input-{name}.json").read_text())

"""Fixtures the permission tests share."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from tests.permissions.sessions import hide_bwrap


@pytest.fixture(params=["bwrap", "no-sandbox"])
def kernel(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    """Every test runs twice: with bubblewrap, and with it hidden from PATH (no kernel sandbox)."""
    if request.param == "no-sandbox":
        return hide_bwrap(monkeypatch, tmp_path / "bin")
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    return os.environ["PATH"]

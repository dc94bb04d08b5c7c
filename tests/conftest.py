"""Shared fixtures: an isolated home, and the real `yoke` command run as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# The suite starts `yoke` hundreds of times; without cached bytecode each start compiles every module again.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str

    def lines(self) -> list[dict]:
        """stdout as NDJSON (every line must be JSON)."""
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]

    def result(self) -> dict:
        return [o for o in self.lines() if o.get("type") == "result"][-1]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    return h


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "project"
    p.mkdir()
    return p


@pytest.fixture
def base_env(home: Path) -> dict[str, str]:
    """An environment with nothing of the developer's: fresh HOME, no provider variables."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(
            ("ANTHROPIC_", "OPENAI_", "YOKE_", "CLAUDE_", "AWS_", "GOOGLE_", "GEMINI_", "XAI_", "GROK_")
        )
    }
    env.update(
        {
            "HOME": str(home),
            "YOKE_HOME": str(home / ".yoke"),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "YOKE_RETRY_BASE_DELAY": "0.01",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


@pytest.fixture
def yoke(base_env: dict[str, str], project: Path):
    """Run the real `yoke` command: yoke(*args, env={...}, cwd=..., input=...) -> Run."""

    def run(
        *args: str,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        input: str | None = None,
        timeout: float = 60,
    ) -> Run:
        full_env = dict(base_env)
        full_env.update(env or {})
        proc = subprocess.run(
            [sys.executable, "-m", "yoke", *args],
            cwd=cwd or project,
            env=full_env,
            input=input if input is not None else "",
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return Run(proc.returncode, proc.stdout, proc.stderr)

    return run


def anthropic_env(srv) -> dict[str, str]:
    return {"ANTHROPIC_BASE_URL": srv.url, "ANTHROPIC_API_KEY": "sk-test"}


def openai_env(srv) -> dict[str, str]:
    return {"OPENAI_BASE_URL": srv.openai_url, "OPENAI_API_KEY": "sk-test", "YOKE_PROVIDER": "openai"}

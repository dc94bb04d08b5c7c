"""Shared pieces of the auto-memory tests: a git repository, its memory directory, memory files."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    )
    return proc.stdout


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    (path / "README.md").write_text("demo\n")
    git(path, "add", "README.md")
    git(path, "commit", "-q", "-m", "init")
    return path


def memory_dir(home: Path, root: Path) -> Path:
    name = re.sub(r"[^a-zA-Z0-9]", "-", os.path.realpath(root))
    return home / ".claude" / "projects" / name / "memory"


def memory_text(name: str, description: str, type: str, body: str, extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\ntype: {type}\n{extra}---\n\n{body}\n"


DB_MEMORY = memory_text(
    "Integration tests hit a real database",
    "integration tests must use the real Postgres test database, never mocks",
    "feedback",
    "Integration tests use the real Postgres database in docker, never mocked connections.\n\n"
    "**Why:** a mocked test passed while a broken migration shipped.\n"
    "**How to apply:** for any test touching queries or migrations, start the docker db fixture.",
)
FREEZE_MEMORY = memory_text(
    "Release freeze in December",
    "no merges of non-critical changes during the mobile release freeze",
    "project",
    "Non-critical merges are frozen from Dec 15 to Jan 5 for the mobile release.\n\n"
    "**Why:** the mobile release train is cut then.\n**How to apply:** flag any merge request in that window.",
)
DASHBOARD_MEMORY = memory_text(
    "Payments latency dashboard",
    "where the payments service latency graphs live",
    "reference",
    "The Grafana board grafana.internal/d/pay tracks payments service latency and error budgets.",
)
INDEX = (
    "- [Integration tests hit a real database](feedback_db_tests.md) — no mocks for db tests\n"
    "- [Release freeze in December](project_release_freeze.md) — merge freeze for the mobile release\n"
    "- [Payments latency dashboard](reference_dashboards.md) — grafana board for payments\n"
)


def seed(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "feedback_db_tests.md").write_text(DB_MEMORY)
    (directory / "project_release_freeze.md").write_text(FREEZE_MEMORY)
    (directory / "reference_dashboards.md").write_text(DASHBOARD_MEMORY)
    (directory / "MEMORY.md").write_text(INDEX)


def system_text(body: dict) -> str:
    system = body.get("system") or []
    if isinstance(system, str):
        return system
    return "\n\n".join(b.get("text", "") for b in system)


def first_user_text(body: dict) -> str:
    content = body["messages"][0]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if b.get("type") == "text")

"""Append-only JSONL transcripts, one complete record per line, flushed before the event is shown.

Location follows Claude Code's convention under Yoke's home: `<home>/projects/<sanitized-cwd>/<id>.jsonl`,
where the sanitized cwd replaces every character outside [a-zA-Z0-9] with '-'.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_UNSAFE = re.compile(r"[^a-zA-Z0-9]")


def yoke_home(env: dict[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    return Path(env.get("YOKE_HOME") or (Path.home() / ".yoke")).expanduser()


def sanitize_project(cwd: str | Path) -> str:
    name = _UNSAFE.sub("-", os.path.realpath(str(cwd)))
    if len(name) > 200:
        import hashlib

        name = name[:200] + "-" + hashlib.sha256(name.encode()).hexdigest()[:8]
    return name


def project_dir(cwd: str | Path, home: Path | None = None) -> Path:
    return (home or yoke_home()) / "projects" / sanitize_project(cwd)


def transcript_path(cwd: str | Path, session_id: str, home: Path | None = None) -> Path:
    return project_dir(cwd, home) / f"{session_id}.jsonl"


def session_dir(cwd: str | Path, session_id: str, home: Path | None = None) -> Path:
    """The session's own folder beside its transcript (spilled tool results, file checkpoints)."""
    return project_dir(cwd, home) / session_id


class Transcript:
    """An append-only JSONL file. `append` writes one whole line and flushes it to the OS at once, so a
    crash can at worst tear the last line (which `load_records` ignores)."""

    def __init__(self, path: Path, enabled: bool = True):
        self.path = path
        self.enabled = enabled
        self._fh = None

    def append(self, record: dict[str, Any]) -> None:
        if not self.enabled:
            return
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str) + "\n"
        try:
            if self._fh is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - held open for the session
            self._fh.write(line)
            self._fh.flush()
        except OSError as exc:
            # A full disk or read-only home must not kill the run the user is watching: say so once, go on.
            self.enabled = False
            import sys

            print(
                f"yoke: warning: cannot write the transcript {self.path} ({exc.strerror or exc}); "
                "this session will not be resumable",
                file=sys.stderr,
            )

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def load_records(path: Path) -> Iterator[dict[str, Any]]:
    """Every complete record of a transcript; a torn or corrupt line (from a crash) is skipped, never fatal."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                yield record

"""CLAUDE_ENV_FILE: the file SessionStart, Setup, CwdChanged and FileChanged hooks append `export` lines
to, so that later Bash commands see the environment they set up (direnv, nvm, a virtualenv...)."""

from __future__ import annotations

import shlex
import tempfile
from pathlib import Path


class EnvFiles:
    """One empty file per hook run under the session's work folder; what the hooks wrote, collected."""

    def __init__(self, work_dir: Path | None, export_to: dict[str, str] | None = None):
        self._work_dir = work_dir  # a temporary folder is made on first use when None
        self._scripts: list[str] = []
        self.exports: dict[str, str] = {}
        self.export_to = export_to  # the session's environment, which later Bash commands are run with

    def work(self) -> Path:
        if self._work_dir is None:
            self._work_dir = Path(tempfile.mkdtemp(prefix="yoke-hooks-"))
        path = self._work_dir / "hooks"
        path.mkdir(parents=True, exist_ok=True)
        return path

    def new_file(self, event: str, hook_id: str) -> Path:
        path = self.work() / f"env-{event}-{hook_id}.sh"
        path.write_text("", encoding="utf-8")
        return path

    def collect(self, path: Path | None) -> None:
        if path is None:
            return
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return
        if text.strip():
            self._scripts.append(text.rstrip("\n"))
            found = parse_env_exports(text)
            self.exports.update(found)
            if self.export_to is not None:
                self.export_to.update(found)

    @property
    def script(self) -> str:
        return "\n".join(self._scripts) + ("\n" if self._scripts else "")


def parse_env_exports(text: str) -> dict[str, str]:
    """`export NAME=value` (and bare `NAME=value`) lines of an env file, values unquoted as a shell would."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            continue
        if words and words[0] == "export":
            words = words[1:]
        for word in words:
            name, sep, value = word.partition("=")
            if sep and name.isidentifier():
                out[name] = value
    return out

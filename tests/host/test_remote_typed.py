"""`RemoteSession` is a typed proxy of what the terminal UI reads of a session (`ui/port.py`
`TerminalSession`): a member missing from it is a mypy error, not an AttributeError in a user's terminal.
mypy is run on a copy of host/remote.py with one member taken out."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _mypy(path: Path, cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--hide-error-context", "--no-pretty",
         "--cache-dir", str(cache), "--follow-imports=silent", str(path)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def test_a_member_missing_from_remote_session_is_a_type_error(tmp_path):
    source = (ROOT / "src" / "yoke" / "host" / "remote.py").read_text()
    whole = tmp_path / "remote_whole.py"
    whole.write_text(source)
    # take out `permission_modes` (the terminal UI's Shift+Tab asks for it)
    cut, count = re.subn(
        r"\n    def permission_modes\(self\) -> list\[str\]:\n        return list\(self\.modes\)\n",
        "\n",
        source,
    )
    assert count == 1
    missing = tmp_path / "remote_missing.py"
    missing.write_text(cut)
    cache = tmp_path / "cache"
    assert _mypy(whole, cache).returncode == 0, _mypy(whole, cache).stdout
    run = _mypy(missing, cache)
    assert run.returncode != 0
    assert "permission_modes" in run.stdout and "TerminalSession" in run.stdout, run.stdout

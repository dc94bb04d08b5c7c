"""Every front-end drives its session through `SessionPort` (`yoke.events.port`): a member the port lacks is a
mypy error, not something a front-end may quietly reach for. mypy is run on copies of the front-ends' files,
as they are (clean) and with one use each of a member only the concrete `Session` has (each an error naming
`SessionPort`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# front-end file -> (what it says now, a use of a member the port lacks in its place)
CUTS = {
    "cli/headless_session.py": (
        "self.session.snapshot().background_agents",
        "self.session.background_busy(commands=False)",
    ),
    "sdk/client.py": ("started = self.session.snapshot().started", "started = self.session.started"),
    "batch/attempt.py": ("interrupt(self.session)", "self.session.interrupt()"),
    "protocols/acp.py": (
        "session = self._session(session_id)\n",
        "session = self._session(session_id)\n        session.init_fields()\n",
    ),
}


def _mypy(paths: list[Path], cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--hide-error-context", "--no-pretty",
         "--cache-dir", str(cache), "--follow-imports=silent", *map(str, paths)],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )  # fmt: skip


def test_a_front_end_using_a_member_the_port_lacks_is_a_type_error(tmp_path):
    whole, cut = [], []
    for n, (name, (now, missing)) in enumerate(CUTS.items()):
        source = (ROOT / "src" / "yoke" / name).read_text()
        assert now in source, name
        (whole_path := tmp_path / f"whole_{n}.py").write_text(source)
        (cut_path := tmp_path / f"cut_{n}.py").write_text(source.replace(now, missing, 1))
        whole.append(whole_path)
        cut.append(cut_path)
    cache = tmp_path / "cache"
    clean = _mypy(whole, cache)  # (errors of the mypy baseline may stand; none about the port)
    assert "SessionPort" not in clean.stdout, clean.stdout
    run = _mypy(cut, cache)
    for n, (_name, (_now, missing)) in enumerate(CUTS.items()):
        member = (
            missing.split("self.session.")[-1].split("(")[0].strip()
            if "self.session." in missing
            else "init_fields"
        )
        errors = [line for line in run.stdout.splitlines() if line.startswith(str(cut[n]))]
        assert any('"SessionPort" has no attribute' in e and member in e for e in errors), (n, run.stdout)

"""`yoke demo` replays the bundled run on a fresh copy of the example project: the project ends up fixed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path


def test_demo_fixes_the_example_project(base_env, tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "yoke", "demo"],
        env=base_env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "── done" in proc.stdout
    project = Path(re.search(r"The project is left at (\S+);", proc.stdout).group(1))
    assert "return len(words(text))" in (project / "textstats" / "core.py").read_text()
    check = subprocess.run(
        [sys.executable, "-m", "unittest", "discover", "-s", "tests"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert check.returncode == 0, check.stderr

"""A fresh machine's setup, as a new user meets it: the README's first screen, `make` with a wrong Python or a
broken .venv, and `make install` putting `yoke` on PATH."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def make(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    return subprocess.run(
        ["make", "-C", str(cwd), *args], capture_output=True, text=True, timeout=120, env=env
    )


def test_the_readme_starts_with_the_two_commands_and_says_how_to_get_yoke_on_path():
    text = (ROOT / "README.md").read_text()
    block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    assert [line.split()[:2] for line in block.splitlines()] == [["make", "demo"], ["make", "test"]]
    first_screen = "\n".join(text.splitlines()[:45])
    for needed in (".venv/bin/yoke", "make install", "Python 3.11", "bubblewrap", "yoke trust", ".mcp.json"):
        assert needed in first_screen, needed
    assert "apt-get install bubblewrap" in first_screen


@needs_make
def test_a_too_old_python_is_one_clear_line(tmp_path):
    fake = tmp_path / "python3.10"
    fake.write_text('#!/bin/sh\n[ "$1" = --version ] && { echo "Python 3.10.12"; exit 0; }\necho 0\n')
    fake.chmod(0o755)
    run = make("demo", f"PYTHON={fake}", f"VENV={tmp_path / 'venv'}")
    assert run.returncode != 0
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert "needs Python 3.11 or newer" in lines[0] and "Python 3.10.12" in lines[0]


@needs_make
def test_a_broken_venv_is_rebuilt_from_scratch(tmp_path):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("#!/bin/sh\nexit 1\n")
    (venv / "bin" / "python").chmod(0o755)
    (venv / ".installed").touch()  # a setup that claims to be done, over a Python that cannot run
    run = make("-n", "demo", f"VENV={venv}")
    assert run.returncode == 0, run.stderr
    assert f"-m venv --clear {venv}" in run.stdout
    working = make("-n", "demo")  # this checkout's working .venv is left alone
    assert "venv --clear" not in working.stdout


@needs_make
def test_make_install_links_yoke_and_says_when_the_folder_is_not_on_path(tmp_path):
    if not (ROOT / ".venv" / "bin" / "yoke").exists():
        pytest.skip("this checkout has no .venv")
    bindir = tmp_path / "bin"
    # -o: never rebuild this checkout's .venv here (a pyproject.toml newer than its marker would wipe it mid-run)
    run = make("-o", ".venv/.installed", "install", f"BINDIR={bindir}")
    assert run.returncode == 0, run.stderr
    assert (bindir / "yoke").resolve() == (ROOT / ".venv" / "bin" / "yoke").resolve()
    assert f"{bindir} is not on your PATH" in run.stdout
    version = subprocess.run([str(bindir / "yoke"), "--version"], capture_output=True, text=True, timeout=30)
    assert version.returncode == 0 and version.stdout.strip()

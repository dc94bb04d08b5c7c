"""`make lint`'s contracts, as a developer meets them: an upward import (also one inside a function) fails
the layers check, a front-end importing a part of the session fails the front-ends check, a baseline entry
whose import is gone fails too, and the mypy baseline only shrinks."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
needs_import_linter = pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter is not installed")


def lint_imports(tmp_path: Path, config: str | None = None) -> subprocess.CompletedProcess:
    """lint-imports over the copy of the package in `tmp_path/src` (the checkout's config unless given)."""
    config_file = tmp_path / ".importlinter"
    config_file.write_text(config if config is not None else (ROOT / ".importlinter").read_text())
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(config_file), "--no-cache"],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path / "src")},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def package_copy(tmp_path: Path) -> Path:
    shutil.copytree(
        ROOT / "src" / "yoke", tmp_path / "src" / "yoke", ignore=shutil.ignore_patterns("__pycache__")
    )
    return tmp_path


@needs_import_linter
def test_the_checkout_keeps_its_layers(package_copy):
    run = lint_imports(package_copy)
    assert run.returncode == 0, run.stdout[-2000:]


@needs_import_linter
def test_an_upward_import_inside_a_function_fails(package_copy):
    walk = package_copy / "src" / "yoke" / "tools" / "walk.py"
    walk.write_text(
        walk.read_text() + "\n\ndef _upward():\n    from yoke.session import engine\n\n    return engine\n"
    )
    run = lint_imports(package_copy)
    assert run.returncode != 0
    assert "yoke.tools is not allowed to import yoke.session" in run.stdout
    assert "yoke.tools.walk -> yoke.session.engine" in run.stdout


@needs_import_linter
def test_a_front_end_reaching_past_the_session_inside_a_function_fails(package_copy):
    view = package_copy / "src" / "yoke" / "ui" / "view.py"
    view.write_text(view.read_text() + "\n\ndef _past():\n    from yoke.loop import run\n\n    return run\n")
    run = lint_imports(package_copy)
    assert run.returncode != 0
    assert "Front-ends reach the core through the session BROKEN" in run.stdout
    assert "yoke.ui.view -> yoke.loop.run" in run.stdout


@needs_import_linter
def test_a_front_end_may_reach_the_core_through_the_session(package_copy):
    """The forbidden contract counts direct imports only: ui -> session -> loop is what the session is for."""
    view = package_copy / "src" / "yoke" / "ui" / "view.py"
    view.write_text(
        view.read_text() + "\n\ndef _through():\n    from yoke.session import wiring\n\n    return wiring\n"
    )
    run = lint_imports(package_copy)
    assert run.returncode == 0, run.stdout[-2000:]


@needs_import_linter
@pytest.mark.parametrize("internal", ["build", "engine", "capabilities", "stages", "scheduling"])
def test_a_front_end_reaching_into_the_sessions_internals_fails(package_copy, internal):
    """The session's public surface is the `yoke.session` package and its public modules; how it is
    assembled and run is not a front-end's to import, not even inside a function."""
    view = package_copy / "src" / "yoke" / "ui" / "view.py"
    view.write_text(
        view.read_text()
        + f"\n\ndef _inside():\n    from yoke.session import {internal}\n\n    return {internal}\n"
    )
    run = lint_imports(package_copy)
    assert run.returncode != 0
    assert "Front-ends reach the core through the session BROKEN" in run.stdout
    assert f"yoke.ui.view -> yoke.session.{internal}" in run.stdout


@needs_import_linter
def test_a_front_end_takes_open_session_from_the_session_package(package_copy):
    """The package facade is the way in: `from yoke.session import open_session, SessionError` passes."""
    view = package_copy / "src" / "yoke" / "ui" / "view.py"
    view.write_text(
        view.read_text()
        + "\n\ndef _open():\n    from yoke.session import SessionError, open_session\n\n"
        + "    return open_session, SessionError\n"
    )
    run = lint_imports(package_copy)
    assert run.returncode == 0, run.stdout[-2000:]


@needs_import_linter
def test_a_baseline_entry_whose_import_is_gone_fails(package_copy):
    config = (ROOT / ".importlinter").read_text()
    stale = config.replace(
        "ignore_imports =\n", "ignore_imports =\n    yoke.tools.walk -> yoke.loop.run\n", 1
    )
    run = lint_imports(package_copy, stale)
    assert run.returncode != 0
    assert "No matches for ignored import yoke.tools.walk -> yoke.loop.run" in run.stdout


@needs_import_linter
def test_a_package_missing_from_the_layers_fails(package_copy):
    (package_copy / "src" / "yoke" / "newpart").mkdir()
    (package_copy / "src" / "yoke" / "newpart" / "__init__.py").write_text("")
    run = lint_imports(package_copy)
    assert run.returncode != 0 and "yoke.newpart" in run.stdout


@pytest.fixture
def check_types(tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import check_types as module
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    monkeypatch.setattr(module, "BASELINE", tmp_path / "baseline.txt")
    return module


def errors(*keys: tuple[str, str, str]) -> Counter[tuple[str, str, str]]:
    return Counter(keys)


A = ("src/yoke/a.py", "arg-type", "Argument 1 has incompatible type")
B = ("src/yoke/b.py", "union-attr", 'Item "None" has no attribute "get"')


def test_the_mypy_baseline_fails_on_a_new_error_and_on_a_fixed_one(check_types, monkeypatch, capsys):
    check_types.write_baseline(errors(A, A, B))
    monkeypatch.setattr(check_types, "current", lambda: errors(A, A, B))
    assert check_types.main([]) == 0
    monkeypatch.setattr(check_types, "current", lambda: errors(A, A, A, B))  # one more of a known kind
    assert check_types.main([]) == 1
    assert "1 error(s) not in the baseline" in capsys.readouterr().out
    monkeypatch.setattr(check_types, "current", lambda: errors(A, B))  # one fixed: the baseline must shrink
    assert check_types.main([]) == 1
    assert "--update" in capsys.readouterr().out
    assert check_types.main(["--update"]) == 0
    assert check_types.read_baseline() == errors(A, B)
    monkeypatch.setattr(check_types, "current", lambda: errors(A, A, B))  # --update never grows it
    assert check_types.main(["--update"]) == 1
    assert check_types.read_baseline() == errors(A, B)


def test_a_mypy_error_is_keyed_without_its_line(check_types):
    output = "\n".join(
        [
            'src/yoke/a.py:10: error: Name "x" already defined on line 3  [no-redef]',
            'src/yoke/a.py:42: error: Name "x" already defined on line 30  [no-redef]',
            "src/yoke/a.py:42: note: this is only a note",
            "src/yoke/b.py:7:5: error: Cannot infer type of lambda  [misc]",
        ]
    )
    assert check_types.parse(output) == Counter(
        {
            ("src/yoke/a.py", "no-redef", 'Name "x" already defined on line N'): 2,
            ("src/yoke/b.py", "misc", "Cannot infer type of lambda"): 1,
        }
    )

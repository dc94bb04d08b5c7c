"""Bad input: one clear line on stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest


def one_line(run) -> str:
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert "Traceback" not in run.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--output-format", "xml"], "--output-format"),
        (["--permission-mode", "yolo"], "--permission-mode"),
        (["--max-turns", "zero"], "--max-turns"),
        (["--provider", "nonsense"], "nonsense"),
        (["--session-id", "not-a-uuid"], "UUID"),
        (["--system-prompt-file", "/does/not/exist"], "/does/not/exist"),
    ],
)
def test_bad_flags(yoke, args, needle):
    run = yoke("-p", "hi", *args)
    assert run.code != 0
    assert needle in one_line(run)


def test_missing_api_key(yoke):
    """As in Claude Code, the failed model call is the result: text mode prints it on stdout, exit 1."""
    run = yoke("-p", "hi")
    assert run.code == 1
    assert len(run.stdout.splitlines()) == 1 and "ANTHROPIC_API_KEY" in run.stdout
    assert "Traceback" not in run.stderr


def test_no_prompt(yoke):
    run = yoke("-p", input="")
    assert run.code != 0
    one_line(run)


def test_unreadable_stdin(project, base_env):
    # stdin that is not text (invalid UTF-8) cannot be read as a prompt
    env = dict(base_env, PYTHONIOENCODING="utf-8:strict")
    proc = subprocess.run(
        [sys.executable, "-m", "yoke", "-p"],
        input=b"\xff\xfe\xfa binary",
        cwd=project,
        env=env,
        capture_output=True,
        timeout=30,
    )
    proc.stderr = proc.stderr.decode()
    assert proc.returncode != 0
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "Traceback" not in proc.stderr


def test_version_is_fast_path(base_env):
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "yoke", "--version"],
        env=base_env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 0 and "(Yoke)" in proc.stdout
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    for heavy in ("yoke.loop", "yoke.providers", "pydantic", "httpx", "asyncio", "argparse"):
        assert heavy not in imported, f"{heavy} imported by --version"


def test_unwritable_yoke_home_warns_and_still_answers(yoke, tmp_path):
    from tests.conftest import anthropic_env

    from yoke.testing import ScriptedServer

    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the Yoke home should be")
    with ScriptedServer([{"content": [{"type": "text", "text": "still here"}]}]) as srv:
        run = yoke("-p", "hi", env=dict(anthropic_env(srv), YOKE_HOME=str(blocker)))
    assert run.code == 0, run.stderr
    assert run.stdout.strip() == "still here"
    assert "cannot write the transcript" in run.stderr

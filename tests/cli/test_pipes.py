"""`yoke -p` in a pipe, as shell users run it: a reader that stops early (`| head -1`) ends Yoke quietly."""

from __future__ import annotations

import subprocess
import sys

import pytest
from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

LONG = {"content": [{"type": "text", "text": "word " * 4000}]}


@pytest.mark.parametrize("partial", [False, True])
def test_stream_json_into_head_prints_no_error(base_env, project, partial):
    flags = ["--include-partial-messages"] if partial else []
    with ScriptedServer([LONG]) as srv:
        shell = f"{sys.executable} -m yoke -p hi --output-format stream-json --verbose {' '.join(flags)} | head -1"
        run = subprocess.run(
            ["bash", "-c", shell],
            cwd=project,
            env={**base_env, **anthropic_env(srv)},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert run.stdout.startswith('{"type": "system", "subtype": "init"')
    assert run.stdout.count("\n") == 1
    assert run.stderr == ""

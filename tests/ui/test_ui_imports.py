"""The terminal UI's libraries load only on the interactive path: `yoke --version` and `yoke -p` stay fast."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

PROBE = (
    "import sys, runpy\n"
    "sys.argv = ['yoke', *sys.argv[1:]]\n"
    "from yoke.cli.main import main\n"
    "code = main(sys.argv[1:])\n"
    "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('prompt_toolkit', 'rich') or m.startswith('yoke.ui.'))\n"
    "print('HEAVY:' + ','.join(heavy))\n"
)


def _heavy(args: list[str], env: dict[str, str], cwd) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        input="",
    )
    line = [x for x in proc.stdout.splitlines() if x.startswith("HEAVY:")]
    assert line, proc.stdout + proc.stderr
    return line[-1][len("HEAVY:") :]


def test_version_and_print_mode_do_not_load_the_ui(base_env, project):
    assert _heavy(["--version"], base_env, project) == ""
    with ScriptedServer([{"content": "ok"}]) as srv:
        env = {**base_env, **anthropic_env(srv)}
        assert _heavy(["-p", "hello"], env, project) == ""

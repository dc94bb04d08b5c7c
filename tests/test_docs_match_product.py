"""The docs say what the product does: `yoke --help` (parsed from the real command) and the CLI's own tables
(`cli/main.py` SUBCOMMANDS, every flag the parser accepts, `cli/args_compat.py` NOT_ACTED_ON) are each
given a status in docs/compatibility.md, and no document calls a working command unavailable."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from yoke.cli.args import COMMANDS_HELP, build_parser
from yoke.cli.args_compat import NOT_ACTED_ON
from yoke.cli.main import SUBCOMMANDS

ROOT = Path(__file__).resolve().parent.parent
COMPAT = ROOT / "docs" / "compatibility.md"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _rows(text: str) -> dict[str, str]:
    """Every table row of a document: each name in its first cell -> the row's last cell (the status)."""
    rows: dict[str, str] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("| `") else []
        if len(cells) >= 2:
            for name in re.findall(r"`([^`]+)`", cells[0]):
                for part in name.split(", "):
                    rows.setdefault(part, cells[-1])
    return rows


def _working(name: str) -> bool:
    return not SUBCOMMANDS[name].startswith("yoke.cli.coming:")


@pytest.fixture(scope="module")
def help_text() -> str:
    """`yoke --help` as a user's terminal prints it."""
    env = dict(os.environ, COLUMNS="100")
    run = subprocess.run(
        [sys.executable, "-m", "yoke", "--help"], capture_output=True, text=True, timeout=60, env=env
    )
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_every_flag_in_help_and_in_the_parser_has_a_status_in_the_docs(help_text):
    rows = _rows(COMPAT.read_text())
    shown = set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", help_text.split("commands:")[0]))
    accepted = {o for a in build_parser()._actions for o in a.option_strings}
    assert shown <= accepted | {"--tcp", "--ws", "--offline", "--definitions", "--html", "--all"}
    missing = sorted(o for o in accepted if o not in rows)
    assert not missing, f"flags with no row in docs/compatibility.md: {missing}"
    for option in accepted:
        assert rows[option], option


def test_flags_that_say_so_in_one_line_are_documented_as_such():
    rows = _rows(COMPAT.read_text())
    for dest in NOT_ACTED_ON:
        flag = "--" + dest.replace("_", "-")
        assert "one stderr line" in rows[flag], (flag, rows[flag])


def test_every_subcommand_has_its_true_status_in_the_docs():
    rows = _rows(COMPAT.read_text())
    for name in SUBCOMMANDS:
        assert name in rows, f"subcommand {name!r} has no row in docs/compatibility.md"
        status = rows[name]
        if _working(name):
            assert status.startswith("works"), (name, status)
        else:
            assert status.startswith("not available"), (name, status)


def test_help_lists_every_working_subcommand(help_text):
    listed = " ".join(COMMANDS_HELP)
    epilog = help_text.split("commands:", 1)[1]
    for name in SUBCOMMANDS:
        if _working(name):
            assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", listed), name
    for flag in ("--bg", "--remote-control", "doctor", "attach", "logs", "stop", "rm", "respawn", "host"):
        assert flag in help_text, flag
    assert "yoke doctor" in " ".join(epilog.split())


def _sentences(text: str) -> list[str]:
    """The prose of a document in sentences (tables are checked row by row above)."""
    prose = "\n".join(line for line in text.splitlines() if not line.startswith("|"))
    flat = " ".join(prose.split())
    return re.split(r"(?<=[.;:])\s+(?=[A-Z`(])", flat)


def test_no_document_calls_a_working_command_unavailable():
    wrong = []
    for doc in DOCS:
        for sentence in _sentences(doc.read_text()):
            if not re.search(r"not available|unavailable|a later issue", sentence):
                continue
            for name in re.findall(r"`(?:yoke |claude )?([a-z][a-z-]*)`", sentence):
                if name in SUBCOMMANDS and _working(name):
                    wrong.append((doc.name, name, sentence[:160]))
    assert not wrong, "\n".join(map(str, wrong))


def test_the_check_catches_a_stale_line(tmp_path):
    """The sentence the README used to carry is caught."""
    stale = "`update`, `install` and the background-session ones (`attach`, `logs`) say in one line that they are not available yet."
    hits = [n for s in _sentences(stale) for n in re.findall(r"`(?:yoke )?([a-z][a-z-]*)`", s) if _working(n)]
    assert hits == ["attach", "logs"]


# Runs `yoke` with a profiler that notes each file of the package whose code runs: in the whole run, and
# from the moment the session's `query` starts (the turn) to the end.
TRACER = r"""
import json, os, sys, threading
root = os.path.dirname(__import__("yoke").__file__) + os.sep
seen = {"all": set(), "turn": set()}
on = []
def note(frame, event, arg):
    name = frame.f_code.co_filename
    if event != "call" or not name.startswith(root):
        return
    rel = name[len(root):]
    seen["all"].add(rel)
    if not on and rel == "session/engine.py" and frame.f_code.co_name == "query":
        on.append(True)
    if on:
        seen["turn"].add(rel)
sys.setprofile(note)
threading.setprofile(note)
from yoke.cli.main import main
try:
    main(sys.argv[1:])
finally:
    sys.setprofile(None)
    with open(os.environ["TRACE_OUT"], "w") as out:
        json.dump({k: sorted(v) for k, v in seen.items()}, out)
"""


def _trace_one_turn(tmp_path: Path) -> dict[str, list[str]]:
    from tests.conftest import anthropic_env

    from yoke.testing import ScriptedServer

    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (project / "calc.py").write_text("print(1 + 1)\n")
    (tmp_path / "tracer.py").write_text(TRACER)
    read = {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "Read",
        "input": {"file_path": str(project / "calc.py")},
    }
    turns = [{"content": [read]}, {"content": [{"type": "text", "text": "it prints 2"}]}]
    with ScriptedServer(turns) as srv:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "YOKE_", "CLAUDE_"))}
        env |= anthropic_env(srv) | {"HOME": str(home), "TRACE_OUT": str(tmp_path / "trace.json")}
        argv = [sys.executable, str(tmp_path / "tracer.py"), "-p", "what does calc.py print?"]
        argv += ["--output-format", "stream-json", "--verbose"]
        run = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and '"result": "it prints 2"' in run.stdout, run.stderr
    import json

    return json.loads((tmp_path / "trace.json").read_text())


def test_architecture_states_the_traced_turn(tmp_path):
    """docs/architecture.md's turn section: each step's first file runs in a traced `yoke -p` turn with one
    tool call, and the file counts it states are the measured ones (within 15%: no hand-kept number drifts)."""
    trace = _trace_one_turn(tmp_path)
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text[text.index("The turn itself") : text.index("## The seams")]
    steps = re.findall(r"^\d+\. `([\w/]+\.py)`", section, re.M)
    assert len(steps) >= 5
    for path in steps:
        assert path in trace["turn"], f"{path} is named as a step of the turn but no code of it ran"
    stated = re.search(r"runs code in about (\d+) files .* about (\d+)", " ".join(section.split()))
    assert stated, "the section states the measured counts"
    for claimed, measured in zip(
        map(int, stated.groups()), (len(trace["turn"]), len(trace["all"])), strict=True
    ):
        assert abs(claimed - measured) <= 0.15 * measured, (claimed, measured)


def test_paths_the_docs_name_exist():
    """A module path such as `config/env.py` in the docs is a file of the package (or of the checkout)."""
    packages = {p.name for p in (ROOT / "src" / "yoke").iterdir() if p.is_dir()}
    missing = []
    for doc in DOCS:
        for path in set(re.findall(r"(?<![\w./-])((?:[a-z_]+/)+[a-z_0-9]+\.py)\b", doc.read_text())):
            ours = path.split("/")[0] in packages | {"tests", "scripts", "benchmarks", "docs"}
            if ours and not ((ROOT / "src" / "yoke" / path).exists() or (ROOT / path).exists()):
                missing.append((doc.name, path))
    assert not missing, missing


def test_settings_not_acted_on_are_listed_as_such():
    from yoke.config.known_keys import NOT_ACTED_ON, known_key

    rows = _rows(COMPAT.read_text())
    for key in NOT_ACTED_ON:
        assert known_key(key)
        assert rows[key].startswith("not acted on"), (key, rows.get(key))

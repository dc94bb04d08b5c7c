"""The fast path for common headless command lines (`yoke.cli.args_fast`) reads exactly what argparse
reads, hands everything else to argparse, and a `yoke -p` run imports no argparse."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from yoke.cli import args_fast
from yoke.cli.args import UsageError, build_parser
from yoke.cli.args import parse as full_parse

FAST = [
    ["-p", "hi"],
    ["hi", "-p"],
    ["-p", ""],
    ["-p", "hi", "--output-format", "json", "--no-session-persistence"],
    ["-p", "--output-format=stream-json", "--verbose", "--include-partial-messages", "go"],
    ["--print", "x", "--max-turns", "3", "--model", "haiku", "--model", "sonnet"],
    ["-p", "x", "--permission-mode", "plan", "--append-system-prompt", "be brief", "-c"],
    ["-p", "x", "--settings", '{"a": 1}', "--setting-sources", "user", "--strict-mcp-config"],
    ["-p", "x", "--session-id", "6f1c0b1e-5a36-4a43-9f39-0b4f6d0c2a11", "--effort", "high"],
    ["-p", "x", "--dangerously-skip-permissions", "--fallback-model", "haiku", "--json-schema", "{}"],
    ["--output-format", "stream-json", "--input-format", "stream-json", "--verbose", "-p"],
]
SLOW = [
    ["-p", "x", "--allowedTools", "Read"],  # a list flag
    ["-p", "x", "--model"],  # a missing value
    ["-p", "x", "--model", "-x"],  # a value that looks like an option
    ["-p", "x", "y"],  # a second prompt
    ["-p", "--", "x"],
    ["-p", "x", "--verbose=1"],
    ["-p", "x", "--max-turns", "three"],
    ["-pc", "x"],
    ["--version"],
    ["-p", "-"],
    ["-p", "x", "--unknown-flag"],
]


def test_defaults_are_the_parsers() -> None:
    parser = build_parser()
    expected = {a.dest: a.default for a in parser._actions if a.dest != "help"}
    assert args_fast.defaults() == expected, "a flag was added or changed: update cli/args_fast.py's defaults"


def test_flag_tables_match_the_parser() -> None:
    actions = {s: a for a in build_parser()._actions for s in a.option_strings}
    for flag, dest in args_fast._SWITCHES.items():
        assert isinstance(actions[flag], argparse._StoreTrueAction) and actions[flag].dest == dest, flag
    for flag, dest in {**args_fast._VALUED, **args_fast._WHOLE}.items():
        action = actions[flag]
        assert type(action) is argparse._StoreAction and action.nargs is None and action.dest == dest, flag
        assert (action.type is not None) == (flag in args_fast._WHOLE), flag


@pytest.mark.parametrize("argv", FAST)
def test_common_lines_read_as_argparse_reads_them(argv: list[str]) -> None:
    fast = args_fast.fast_parse(argv)
    assert fast is not None
    assert vars(fast) == vars(full_parse(argv))


@pytest.mark.parametrize("argv", SLOW)
def test_anything_else_goes_to_argparse(argv: list[str]) -> None:
    assert args_fast.fast_parse(argv) is None
    try:
        expected: object = vars(full_parse(argv))
    except UsageError as exc:
        expected = str(exc)
    try:
        got: object = vars(args_fast.parse(argv))
    except UsageError as exc:
        got = str(exc)
    assert got == expected


def test_checks_still_run_on_the_fast_path() -> None:
    with pytest.raises(UsageError, match="requires --verbose"):
        args_fast.parse(["-p", "x", "--output-format", "stream-json"])
    with pytest.raises(UsageError, match="is invalid"):
        args_fast.parse(["-p", "x", "--output-format", "yaml"])


def test_a_print_run_imports_no_argparse() -> None:
    code = (
        "import sys; from yoke.cli.args_fast import parse; "
        "a = parse(['-p', 'hi', '--output-format', 'json']); "
        "import yoke.cli.headless, yoke.cli.options, yoke.cli.args_compat; "
        "print('argparse' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr

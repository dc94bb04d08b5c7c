"""Command-line flags, Claude Code's names and forms (`--flag value` and `--flag=value`).

Every flag `claude --help` of the Claude Code release Yoke follows accepts is accepted here (hidden ones the
Agent SDKs pass too); anything else is refused before any work with Claude Code's own line,
`error: unknown option '--x'`, and exit code 1. Flags for features other parts bring (agents, MCP, plugins,
worktrees) are parsed and mapped into `SessionOptions` (cli/options.py); the flags Yoke accepts only so
scripts keep working are declared in `args_compat.py`.
"""

from __future__ import annotations

import argparse
import re
from typing import NoReturn

from yoke.cli.args_fast import (  # re-exported: their home before the fast path
    EFFORT_LEVELS,
    PERMISSION_MODES,
    UsageError,
    validate,
)

# What `yoke --help` lists under "commands" (tests/test_docs_match_product.py: every working subcommand of
# cli/main.py's SUBCOMMANDS is here, and the docs give each its status).
COMMANDS_HELP = (
    "sessions list [--from codex|gemini|opencode]",
    "rewind [MESSAGE_ID]",
    "trust [FOLDER]",
    "doctor [--offline]",
    "demo",
    "memory list|show|forget|search",
    "agents [--definitions]",
    "attach ID",
    "logs ID",
    "stop|kill ID",
    "rm ID",
    "respawn ID|--all",
    "host [--tcp|--ws HOST:PORT]",
    "acp",
    "mcp",
    "plugin|plugins",
    "hooks",
    "config",
    "stats",
    "batch",
    "auto-mode",
    "export [--html | --to codex] SESSION",
    "profile|profiles add|use|list|rm",
    "import-config --from codex|gemini|opencode",
    "remote-control|rc [NAME] | devices | revoke ID",
)


class _HelpFormatter(argparse.HelpFormatter):
    """argparse makes a formatter for every option it adds (to check the option's shape), and the default
    one asks the terminal for its width each time, importing shutil: a fixed width, until help or usage is
    actually printed."""

    live = False

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=None if _HelpFormatter.live else 100)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(_commander_wording(message, self), exact=True)

    def format_help(self) -> str:
        _HelpFormatter.live = True
        return super().format_help()

    def format_usage(self) -> str:
        _HelpFormatter.live = True
        return super().format_usage()


def _commander_wording(message: str, parser: argparse.ArgumentParser) -> str:
    """argparse's complaint in the words of Claude Code's parser (commander), which scripts may match."""
    missing = re.match(r"argument (\S+?)(?:/\S+)*: expected (?:one|at least one) argument", message)
    if missing:
        flag = missing.group(1).split("/")[0]
        return f"error: option '{_flag_usage(parser, flag)}' argument missing"
    choice = re.match(r"argument (\S+?)(?:/\S+)*: invalid choice: '(.*)' \(choose from (.*)\)", message)
    if choice:
        allowed = choice.group(3).replace("'", "")
        return (
            f"error: option '{_flag_usage(parser, choice.group(1))}' argument '{choice.group(2)}' is invalid. "
            f"Allowed choices are {allowed}."
        )
    unknown = re.match(r"unrecognized arguments: (.*)", message)
    if unknown:
        return unknown_option_message(unknown.group(1).split()[0], parser)
    return f"error: {message}"


def _flag_usage(parser: argparse.ArgumentParser, flag: str) -> str:
    for action in parser._actions:
        if flag in action.option_strings:
            names = ", ".join(action.option_strings)
            label = action.metavar if isinstance(action.metavar, str) and action.metavar else action.dest
            return f"{names} <{label.lower().replace('_', '-')}>"
    return flag


def unknown_option_message(option: str, parser: argparse.ArgumentParser) -> str:
    line = f"error: unknown option '{option}'"
    known = [s for a in parser._actions for s in a.option_strings if s.startswith("--")]
    import difflib

    close = difflib.get_close_matches(option.split("=", 1)[0], known, n=1, cutoff=0.7)
    return f"{line}\n(Did you mean {close[0]}?)" if close else line


def build_parser() -> argparse.ArgumentParser:
    from yoke.cli.args_compat import add_compat_flags

    p = _Parser(
        prog="yoke",
        description="Yoke: an open, provider-agnostic agent harness for coding models.",
        epilog="commands: " + " · ".join(f"yoke {c}" for c in COMMANDS_HELP),
        allow_abbrev=False,
        formatter_class=_HelpFormatter,
    )
    _run_flags(p)
    _model_flags(p)
    _permission_flags(p)
    _session_flags(p)
    add_compat_flags(p)
    return p


def _run_flags(p: argparse.ArgumentParser) -> None:
    """The prompt, the headless run and its output, and its limits."""
    p.add_argument("prompt", nargs="?", help="the prompt (or pipe it on stdin)")
    p.add_argument("-p", "--print", dest="print_mode", action="store_true", help="headless: run, print, exit")
    p.add_argument("--output-format", default="text", metavar="format", help="text | json | stream-json")
    p.add_argument("--input-format", default="text", metavar="format", help="text | stream-json")
    p.add_argument("--verbose", action="store_true", help="full turn-by-turn output (needed for stream-json)")
    p.add_argument(
        "--include-partial-messages", action="store_true", help="stream-json: emit stream_event lines"
    )
    p.add_argument(
        "--include-hook-events", action="store_true", help="stream-json: emit hook_started/response lines"
    )
    p.add_argument(
        "--replay-user-messages", action="store_true", help="stream-json in and out: echo user messages"
    )
    p.add_argument("--json-schema", metavar="schema", help="answer with JSON valid against this schema")
    p.add_argument("--max-turns", type=_whole, metavar="turns", help="stop after N model round trips")
    p.add_argument("--max-budget-usd", type=_amount, metavar="amount", help="stop once it has cost this")


def _model_flags(p: argparse.ArgumentParser) -> None:
    """The model, its provider and the system prompt."""
    p.add_argument("--model", metavar="model", help="model id or alias (sonnet, opus, haiku)")
    p.add_argument("--profile", metavar="name", help="use this profile (yoke profile list)")
    p.add_argument("--fallback-model", metavar="model", help="models to try when the first is overloaded")
    p.add_argument("--effort", metavar="level", help="reasoning effort: " + " | ".join(EFFORT_LEVELS))
    p.add_argument("--betas", nargs="*", action="extend", default=[], metavar="betas", help="beta headers")
    p.add_argument(
        "--provider",
        help="anthropic | openai | openai-responses | gemini | grok | bedrock | vertex | foundry | replay "
        "(Yoke's own)",
    )
    p.add_argument("--max-tokens", type=_whole, help="output token limit per response (Yoke's own)")
    p.add_argument("--max-thinking-tokens", type=_whole, metavar="tokens", help="extended thinking budget")
    p.add_argument("--system-prompt", metavar="prompt", help="replace the default system prompt")
    p.add_argument("--system-prompt-file", metavar="file", help="replace the system prompt with a file")
    p.add_argument("--append-system-prompt", metavar="prompt", help="append to the system prompt")
    p.add_argument("--append-system-prompt-file", metavar="file", help="append a file to the system prompt")


def _permission_flags(p: argparse.ArgumentParser) -> None:
    """Tools and permissions."""
    for names, dest in ((("--allowedTools", "--allowed-tools"), "allowed_tools"),
                        (("--disallowedTools", "--disallowed-tools"), "disallowed_tools")):  # fmt: skip
        p.add_argument(*names, dest=dest, nargs="*", action="extend", default=[], metavar="tools")
    p.add_argument(
        "--tools", nargs="*", action="extend", metavar="tools", help='built-ins: "a b", "", default'
    )
    p.add_argument("--permission-mode", metavar="mode", help=" | ".join(PERMISSION_MODES))
    p.add_argument("--permission-prompt-tool", metavar="tool", help="who answers permission prompts (stdio)")
    p.add_argument(
        "--permission-prompts",
        metavar="target",
        help="host: the SDK host or --permission-prompt-tool answers; none: what would ask is denied",
    )
    p.add_argument(
        "--restricted",
        action="store_true",
        help="no Bash or WebFetch unless --tools names them, no user/project/local settings, no bypass mode",
    )
    p.add_argument("--dangerously-skip-permissions", action="store_true", help="= bypassPermissions mode")
    p.add_argument("--allow-dangerously-skip-permissions", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--enable-auto-mode", action="store_true", help="terminal: auto mode in Shift+Tab's cycle")


def _session_flags(p: argparse.ArgumentParser) -> None:
    """The session (resume, persistence), its folders, settings, MCP, agents, plugins and debugging."""
    p.add_argument("-c", "--continue", dest="continue_session", action="store_true", help="continue here")
    p.add_argument("-r", "--resume", nargs="?", const="", metavar="value", help="resume a session by id")
    p.add_argument("--fork-session", action="store_true", help="with --resume/--continue: a new session id")
    p.add_argument("--session-id", metavar="uuid", help="use this session id (a UUID)")
    p.add_argument("--no-session-persistence", action="store_true", help="do not write a transcript")
    p.add_argument("--add-dir", dest="add_dirs", nargs="*", action="extend", default=[], metavar="dirs")
    p.add_argument("--settings", metavar="file-or-json", help="a settings JSON file or string")
    p.add_argument("--setting-sources", metavar="sources", help="comma-separated: user,project,local")
    p.add_argument("--mcp-config", nargs="*", action="extend", default=[], metavar="configs")
    p.add_argument("--strict-mcp-config", action="store_true", help="only the servers of --mcp-config")
    p.add_argument("--agents", metavar="json", help="extra sub-agents as JSON: {name: {description, prompt}}")
    p.add_argument(
        "--agent", metavar="agent", help="run the session as this agent (.claude/agents, --agents)"
    )
    p.add_argument("--plugin-dir", dest="plugin_dirs", action="append", default=[], metavar="paths")
    p.add_argument("-w", "--worktree", nargs="?", const="", metavar="name", help="work in a git worktree")
    p.add_argument("-d", "--debug", nargs="?", const="all", metavar="filter", help="debug details on stderr")
    p.add_argument("--debug-file", metavar="path", help="write debug details to this file")
    p.add_argument("--record", help="record every model exchange to this cassette (Yoke's own)")
    p.add_argument("--replay", help="answer from this cassette instead of a model (Yoke's own)")
    p.add_argument("--compact", nargs="?", const="", metavar="INSTRUCTIONS", help="with -c/-r: /compact now")
    p.add_argument(
        "--memory-target",
        choices=("project", "user", "local"),
        help="where a `# note` prompt is saved: project (./CLAUDE.md), user (~/.claude/CLAUDE.md), local",
    )
    p.add_argument("--print-context", action="store_true", help="show the assembled context and its cost")
    p.add_argument("-v", "--version", action="store_true", help="print the version")


def _whole(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None


def _amount(value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not an amount") from None


def parse(argv: list[str]) -> argparse.Namespace:
    """Parse and check the command line; UsageError for anything Claude Code would refuse."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    unknown = [u for u in unknown if u != "--"]
    options = [u for u in unknown if u.startswith("-") and u != "-"]
    if options:
        raise UsageError(unknown_option_message(options[0], parser), exact=True)
    if unknown:  # a second positional: Claude Code takes one prompt; say so rather than drop words
        raise UsageError(f'too many arguments: {" ".join(unknown)!r} (quote the prompt: yoke -p "...")')
    validate(args)
    return args

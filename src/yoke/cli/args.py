"""Command-line flags, Claude Code's names and forms (`--flag value` and `--flag=value`)."""

from __future__ import annotations

import argparse
from typing import NoReturn

OUTPUT_FORMATS = ("text", "json", "stream-json")
INPUT_FORMATS = ("text", "stream-json")
PERMISSION_MODES = ("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions")


class UsageError(Exception):
    """Bad command-line input: printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="yoke",
        description="Yoke: an open, provider-agnostic agent harness for coding models.",
        epilog=(
            "other commands: yoke demo (replay a recorded run, no API key needed) · yoke sessions list · "
            "yoke rewind MESSAGE_ID · yoke trust [FOLDER] · yoke memory list|show|forget|search · "
            "yoke mcp add|list|get|remove|serve … · yoke plugin --help"
        ),
        allow_abbrev=False,
    )
    p.add_argument("prompt", nargs="?", help="the prompt (or pipe it on stdin)")
    p.add_argument("-p", "--print", dest="print_mode", action="store_true", help="headless: run, print, exit")
    p.add_argument("--output-format", default="text", help="text | json | stream-json")
    p.add_argument("--input-format", default="text", help="text | stream-json")
    p.add_argument("--verbose", action="store_true", help="full turn-by-turn output (needed for stream-json)")
    p.add_argument(
        "--include-partial-messages", action="store_true", help="stream-json: emit stream_event lines"
    )
    p.add_argument(
        "--include-hook-events",
        action="store_true",
        help="stream-json: emit hook_started/hook_response lines",
    )
    p.add_argument("--max-turns", type=int, help="stop after N model round trips")
    p.add_argument("--max-budget-usd", type=float, help="stop once the session has cost this much")
    p.add_argument("--model", help="model id or alias (sonnet, opus, haiku)")
    p.add_argument(
        "--provider",
        help="anthropic | openai | openai-responses | gemini | grok | bedrock | vertex | foundry | replay",
    )
    p.add_argument("--fallback-model", help="switch to this model when the main one stays overloaded (529)")
    p.add_argument("--max-tokens", type=int, help="output token limit per response")
    p.add_argument("--max-thinking-tokens", type=int, help="enable extended thinking with this budget")
    p.add_argument("--system-prompt", help="replace the default system prompt")
    p.add_argument("--system-prompt-file", help="replace the system prompt with this file's text")
    p.add_argument("--append-system-prompt", help="append to the system prompt")
    p.add_argument("--append-system-prompt-file", help="append this file's text to the system prompt")
    p.add_argument(
        "--allowedTools", "--allowed-tools", dest="allowed_tools", nargs="*", action="extend", default=[]
    )
    p.add_argument(
        "--disallowedTools",
        "--disallowed-tools",
        dest="disallowed_tools",
        nargs="*",
        action="extend",
        default=[],
    )
    p.add_argument("--tools", help='restrict the built-in tools: "a,b", "" for none, "default"')
    p.add_argument("--permission-mode", help="default | acceptEdits | plan | dontAsk | bypassPermissions")
    p.add_argument("--permission-prompt-tool", help="who answers permission prompts headlessly (stdio)")
    p.add_argument(
        "--dangerously-skip-permissions", action="store_true", help="= --permission-mode bypassPermissions"
    )
    p.add_argument("--allow-dangerously-skip-permissions", action="store_true", help=argparse.SUPPRESS)
    p.add_argument(
        "-c",
        "--continue",
        dest="continue_session",
        action="store_true",
        help="continue the latest session here",
    )
    p.add_argument("-r", "--resume", nargs="?", const="", help="resume a session by id or path")
    p.add_argument(
        "--fork-session", action="store_true", help="with --resume/--continue: use a new session id"
    )
    p.add_argument("--session-id", help="use this session id (a UUID)")
    p.add_argument("--no-session-persistence", action="store_true", help="do not write a transcript")
    p.add_argument(
        "--add-dir", dest="add_dirs", nargs="*", action="extend", default=[], help="extra working dirs"
    )
    p.add_argument("--settings", help="a settings JSON file or string")
    p.add_argument(
        "--plugin-dir",
        dest="plugin_dirs",
        action="append",
        default=[],
        help="load a plugin folder (session only)",
    )
    p.add_argument("--setting-sources", help="comma-separated: user,project,local")
    p.add_argument(
        "--mcp-config", nargs="*", action="extend", default=[], help="MCP servers from JSON files or strings"
    )
    p.add_argument(
        "--strict-mcp-config",
        action="store_true",
        help="use only the --mcp-config servers (ignore all others)",
    )
    p.add_argument("--agents", help="extra sub-agent definitions as JSON: {name: {description, prompt, ...}}")
    p.add_argument("--agent", help="run the session as this agent (from .claude/agents or --agents)")
    p.add_argument("--record", help="record every model exchange to this cassette (JSONL)")
    p.add_argument("--replay", help="answer from this cassette instead of a model (sets --provider replay)")
    p.add_argument(
        "--compact",
        nargs="?",
        const="",
        metavar="INSTRUCTIONS",
        help="with -c/-r: summarize the conversation now (= the prompt /compact [instructions])",
    )
    p.add_argument(
        "--memory-target",
        choices=("project", "user", "local"),
        help="where a `# note` prompt is saved: project (./CLAUDE.md), user (~/.claude/CLAUDE.md), local",
    )
    p.add_argument(
        "--print-context", action="store_true", help="show the assembled context and its token cost"
    )
    p.add_argument("--debug", nargs="?", const="all", help="print debug details and tracebacks to stderr")
    p.add_argument("-v", "--version", action="store_true", help="print the version")
    return p


def validate(args: argparse.Namespace) -> None:
    """Checks argparse cannot express, each failing with one line that says what to fix."""
    if args.output_format not in OUTPUT_FORMATS:
        raise UsageError(
            f"--output-format must be one of {', '.join(OUTPUT_FORMATS)} (got {args.output_format!r})"
        )
    if args.input_format not in INPUT_FORMATS:
        raise UsageError(
            f"--input-format must be one of {', '.join(INPUT_FORMATS)} (got {args.input_format!r})"
        )
    if args.permission_mode is not None and args.permission_mode not in PERMISSION_MODES:
        raise UsageError(
            f"--permission-mode must be one of {', '.join(PERMISSION_MODES)} (got {args.permission_mode!r})"
        )
    if args.max_turns is not None and args.max_turns < 1:
        raise UsageError("--max-turns must be a positive whole number")
    if args.max_budget_usd is not None and args.max_budget_usd <= 0:
        raise UsageError("--max-budget-usd must be a positive amount")
    if args.system_prompt is not None and args.system_prompt_file:
        raise UsageError("use either --system-prompt or --system-prompt-file, not both")
    if args.print_mode and args.output_format == "stream-json" and not args.verbose:
        raise UsageError("When using --print, --output-format=stream-json requires --verbose")
    if args.session_id is not None and args.session_id:
        import uuid

        try:
            uuid.UUID(args.session_id)
        except ValueError:
            raise UsageError(f"--session-id must be a valid UUID (got {args.session_id!r})") from None

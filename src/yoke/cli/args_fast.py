"""The common headless command lines (`yoke -p "..." --output-format json ...`) parsed without argparse.

Building the full parser (some 100 flags) and importing argparse cost a `-p` run 3-5 ms before any work.
A command line made only of the flags below, each in its plain form, is read here into the same namespace
`yoke.cli.args.parse` would give; anything else (another flag, `--flag=value` of a list flag, a value that
looks like an option, a second prompt, `--`) returns None and goes to argparse, so every error and corner
case stays the parser's. `DEFAULTS` is every flag's default, kept equal to the parser's by a test.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

OUTPUT_FORMATS = ("text", "json", "stream-json")
INPUT_FORMATS = ("text", "stream-json")
# "manual" is 2.1.330's name for "default" (both accepted)
PERMISSION_MODES = ("acceptEdits", "auto", "bypassPermissions", "manual", "default", "dontAsk", "plan")
PERMISSION_PROMPTS = ("host", "none")
EFFORT_LEVELS = ("low", "medium", "high", "xhigh", "max")


class UsageError(Exception):
    """Bad command-line input: one line on stderr, exit code 1 (as Claude Code's option parser)."""

    def __init__(self, message: str, *, exact: bool = False):
        super().__init__(message)
        self.exact = exact  # print the message as it is (Claude Code's own wording), no "yoke:" prefix


# the flags read here: (dest, how the value is read; None for a switch)
_SWITCHES = {
    "-p": "print_mode",
    "--print": "print_mode",
    "--verbose": "verbose",
    "--include-partial-messages": "include_partial_messages",
    "--no-session-persistence": "no_session_persistence",
    "--dangerously-skip-permissions": "dangerously_skip_permissions",
    "-c": "continue_session",
    "--continue": "continue_session",
    "--strict-mcp-config": "strict_mcp_config",
}
_VALUED = {
    "--output-format": "output_format",
    "--input-format": "input_format",
    "--model": "model",
    "--permission-mode": "permission_mode",
    "--system-prompt": "system_prompt",
    "--append-system-prompt": "append_system_prompt",
    "--settings": "settings",
    "--setting-sources": "setting_sources",
    "--session-id": "session_id",
    "--effort": "effort",
    "--fallback-model": "fallback_model",
    "--json-schema": "json_schema",
}
_WHOLE = {"--max-turns": "max_turns"}  # int(), as the parser's `_whole`

_LISTS = (
    "add_dirs",
    "allowed_tools",
    "betas",
    "disallowed_tools",
    "file",
    "mcp_config",
    "plugin_dirs",
)
_FALSE = (
    "allow_dangerously_skip_permissions",
    "await_claim",
    "await_initialize",
    "ax_screen_reader",
    "background",
    "bare",
    "brief",
    "chrome",
    "continue_session",
    "dangerously_skip_permissions",
    "debug_to_stderr",
    "desktop",
    "disable_slash_commands",
    "enable_auth_status",
    "enable_auto_mode",
    "exclude_dynamic_system_prompt_sections",
    "fork_session",
    "forward_subagent_text",
    "ide",
    "include_hook_events",
    "include_partial_messages",
    "init",
    "init_only",
    "maintenance",
    "mcp_debug",
    "no_chrome",
    "no_session_persistence",
    "print_context",
    "print_mode",
    "replay_user_messages",
    "restricted",
    "safe_mode",
    "session_mirror",
    "strict_mcp_config",
    "tmux",
    "verbose",
    "version",
)
_NONE = (
    "advisor",
    "agent",
    "agents",
    "append_subagent_system_prompt",
    "append_system_prompt",
    "append_system_prompt_file",
    "autocompact",
    "cloud",
    "compact",
    "debug",
    "debug_file",
    "effort",
    "environment",
    "fallback_model",
    "from_pr",
    "json_schema",
    "max_budget_usd",
    "max_thinking_tokens",
    "max_tokens",
    "max_turns",
    "memory_target",
    "model",
    "name",
    "permission_mode",
    "permission_prompt_tool",
    "permission_prompts",
    "plugin_url",
    "profile",
    "prompt",
    "prompt_suggestions",
    "provider",
    "record",
    "remote",
    "remote_control",
    "remote_control_session_name_prefix",
    "replay",
    "resume",
    "resume_drops_turn",
    "resume_session_at",
    "sdk_url",
    "session_id",
    "setting_sources",
    "settings",
    "system_prompt",
    "system_prompt_file",
    "system_prompt_snapshot",
    "task_budget",
    "teleport",
    "thinking",
    "thinking_display",
    "tools",
    "workload",
    "worktree",
)
_OTHER: dict[str, Any] = {"output_format": "text", "input_format": "text"}


def defaults() -> dict[str, Any]:
    """Every flag's default (fresh lists each time)."""
    values: dict[str, Any] = dict.fromkeys(_NONE)
    values.update(dict.fromkeys(_FALSE, False))
    values.update({name: [] for name in _LISTS})
    values.update(_OTHER)
    return values


def fast_parse(argv: list[str]) -> SimpleNamespace | None:
    """The namespace of a plain common command line, or None for argparse to read it."""
    values = defaults()
    prompt_seen = False
    index = 0
    while index < len(argv):
        arg = argv[index]
        index += 1
        if arg in _SWITCHES:
            values[_SWITCHES[arg]] = True
            continue
        flag, eq, inline = arg.partition("=")
        dest = _VALUED.get(flag) or _WHOLE.get(flag)
        if dest is not None and flag.startswith("--"):
            if eq:
                value = inline
            elif index < len(argv) and not argv[index].startswith("-"):
                value = argv[index]
                index += 1
            else:
                return None  # a missing value: the parser's message
            if flag in _WHOLE:
                try:
                    values[dest] = int(value)
                except ValueError:
                    return None
            else:
                values[dest] = value
            continue
        if arg.startswith("-") or prompt_seen:
            return None
        values["prompt"], prompt_seen = arg, True
    return SimpleNamespace(**values)


def _choice(flag: str, value: str | None, allowed: tuple[str, ...]) -> None:
    if value is not None and value not in allowed:
        raise UsageError(
            f"error: option '{flag}' argument '{value}' is invalid. Allowed choices are {', '.join(allowed)}.",
            exact=True,
        )


def validate(args: Any) -> None:
    """Checks argparse cannot express, each failing with one line that says what to fix."""
    _choice("--output-format <format>", args.output_format, OUTPUT_FORMATS)
    _choice("--input-format <format>", args.input_format, INPUT_FORMATS)
    _choice("--permission-mode <mode>", args.permission_mode, PERMISSION_MODES)
    _choice("--permission-prompts <target>", args.permission_prompts, PERMISSION_PROMPTS)
    from yoke.cli.args_compat import CHOICES

    for flag, (dest, allowed) in CHOICES.items():
        _choice(flag, getattr(args, dest) or None, allowed)
    compact = args.autocompact
    if compact not in (None, "auto") and (not compact.isdigit() or int(compact) < 100_000):
        raise UsageError(f"--autocompact takes auto or a number of tokens, at least 100000 (got {compact!r})")
    if args.restricted and (args.dangerously_skip_permissions or args.permission_mode == "bypassPermissions"):
        raise UsageError("--restricted refuses bypassPermissions mode (drop --dangerously-skip-permissions)")
    _choice("--effort <level>", args.effort, EFFORT_LEVELS)
    if args.max_turns is not None and args.max_turns < 1:
        raise UsageError("--max-turns must be a positive whole number")
    if args.max_budget_usd is not None and args.max_budget_usd <= 0:
        raise UsageError("--max-budget-usd must be a positive amount")
    if args.system_prompt is not None and args.system_prompt_file:
        raise UsageError("use either --system-prompt or --system-prompt-file, not both")
    if args.input_format == "stream-json" and args.output_format != "stream-json":
        raise UsageError("Error: --input-format stream-json needs --output-format stream-json", exact=True)
    if args.print_mode and args.output_format == "stream-json" and not args.verbose:
        raise UsageError(
            "Error: When using --print, --output-format=stream-json requires --verbose", exact=True
        )
    if args.session_id is not None and args.session_id:
        import uuid

        try:
            uuid.UUID(args.session_id)
        except ValueError:
            raise UsageError(f"--session-id must be a valid UUID (got {args.session_id!r})") from None


def parse(argv: list[str]) -> Any:
    """The command line read and checked: here when it is a plain common one, else by argparse (`yoke.cli.args
    parse`); UsageError for anything Claude Code would refuse."""
    args = fast_parse(argv)
    if args is None:
        from yoke.cli.args import parse as full_parse

        return full_parse(argv)
    validate(args)
    return args

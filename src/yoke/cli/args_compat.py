"""Claude Code flags Yoke accepts so that scripts and the Agent SDKs keep working, though Yoke has no part
of its own behind them yet (or needs none headless). Each is parsed with Claude Code's arity, so it never
swallows the prompt or leaves its value behind as one; `COMPAT_NOTES` says what Yoke does with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse


# flag -> what Yoke does with it (shown by `yoke --help` only as a group; the README lists them)
FLAG_VALUES: dict[tuple[str, ...], str] = {
    ("-n", "--name"): "name",
    ("--thinking",): "mode",
    ("--thinking-display",): "display",
    ("--task-budget",): "tokens",
    ("--resume-session-at",): "uuid",
    ("--resume-drops-turn",): "uuid",
    ("--advisor",): "model",
    ("--append-subagent-system-prompt",): "prompt",
    ("--plugin-url",): "url",
    ("--sdk-url",): "url",
    ("--workload",): "name",
    ("--autocompact",): "auto|tokens",
    ("--environment",): "environment_id",
    ("--system-prompt-snapshot",): "on|off",
    ("--remote-control-session-name-prefix",): "prefix",
}
FLAG_OPTIONAL_VALUES: dict[tuple[str, ...], str] = {
    ("--from-pr",): "value",
    ("--teleport",): "session",
    ("--remote",): "description",
    ("--cloud",): "description|session_id|url",
    ("--remote-control",): "name",
    ("--prompt-suggestions",): "value",
}
FLAG_LISTS: dict[tuple[str, ...], str] = {
    ("--file",): "specs",
}
SWITCHES: tuple[tuple[str, ...], ...] = (
    ("--bare",),
    ("--safe-mode",),
    ("--ide",),
    ("--chrome",),
    ("--no-chrome",),
    ("--tmux",),
    ("--disable-slash-commands",),
    ("--exclude-dynamic-system-prompt-sections",),
    ("--init",),
    ("--init-only",),
    ("--maintenance",),
    ("--session-mirror",),
    ("--await-initialize",),
    ("--await-claim",),
    ("--mcp-debug",),
    ("-d2e", "--debug-to-stderr"),
    ("--enable-auth-status",),
    ("--brief",),
    ("--ax-screen-reader",),
    ("--bg", "--background"),
    ("--desktop",),
    ("--forward-subagent-text",),
)
# Flags a user reaches for on purpose, for a part Yoke does not have (yet): using one says so, in one line on
# stderr, instead of silently doing nothing. (The SDKs' plumbing flags above stay silent.)
NOT_ACTED_ON: dict[str, str] = {
    "cloud": "--cloud: cloud sessions are not in Yoke; this session runs here",
    "desktop": "--desktop: not acted on; there is no desktop app, this session runs in the terminal",
    "environment": "--environment: cloud environments are not in Yoke; this session runs here",
    "remote_control": "--remote-control: not acted on with -p or stream-json; without them the session runs in the host and a web page steers it (docs/remote.md)",
    "remote_control_session_name_prefix": "--remote-control-session-name-prefix: not acted on; --remote-control NAME names the session",
    "teleport": "--teleport: teleport sessions are not in Yoke",
    "remote": "--remote: remote sessions are not in Yoke",
    "from_pr": "--from-pr: PR-linked sessions are not in Yoke yet",
    "system_prompt_snapshot": "--system-prompt-snapshot: not acted on; Yoke renders the system prompt once per session",
    "prompt_suggestions": "--prompt-suggestions: not acted on; Yoke writes no prompt_suggestion messages",
    "ax_screen_reader": "--ax-screen-reader: not acted on yet",
    "tmux": "--tmux: not acted on; Yoke opens no tmux session for a worktree",
    "bare": "--bare: not acted on; hooks, CLAUDE.md files, plugins and auto memory load as usual",
    "safe_mode": "--safe-mode: not acted on; customizations load as usual (--setting-sources '' leaves out the settings files)",
}
# The few of these that Yoke acts on and `yoke --help` shows (the rest stay hidden, as the SDKs' plumbing).
SHOWN: dict[str, str] = {
    "--bg": "run the session in the background, in yoke host; prints its id for attach, logs, stop, rm",
    "--remote-control": "run the session in yoke host and serve a web page that steers it (docs/remote.md)",
    "--name": "a display name for the session (with --bg or --remote-control: its name in yoke agents)",
}
CHOICES = {
    "--system-prompt-snapshot <on|off>": ("system_prompt_snapshot", ("on", "off")),
    "--prompt-suggestions [value]": (
        "prompt_suggestions",
        ("true", "false", "1", "0", "yes", "no", "on", "off"),
    ),
}


def not_acted_on(args: argparse.Namespace) -> list[str]:
    """One line for each flag given that Yoke accepts without acting on it."""
    lines = []
    for dest, line in NOT_ACTED_ON.items():
        value = getattr(args, dest, None)
        if line and value not in (None, False):
            lines.append(f"yoke: {line}")
    return lines


def _dest(names: tuple[str, ...]) -> str:
    return names[-1].lstrip("-").replace("-", "_")


def _help(names: tuple[str, ...]) -> str:
    import argparse

    return next((SHOWN[n] for n in names if n in SHOWN), argparse.SUPPRESS)


def add_compat_flags(parser: argparse.ArgumentParser) -> None:
    import argparse

    group = parser.add_argument_group(
        "sessions in yoke host (the other Claude Code flags Yoke accepts: README)"
    )
    for names, metavar in FLAG_VALUES.items():
        group.add_argument(*names, dest=_dest(names), metavar=metavar, help=_help(names))
    for names, metavar in FLAG_OPTIONAL_VALUES.items():
        group.add_argument(*names, dest=_dest(names), nargs="?", const="", metavar=metavar, help=_help(names))
    for names, metavar in FLAG_LISTS.items():
        group.add_argument(
            *names, dest=_dest(names), nargs="*", action="extend", default=[], metavar=metavar,
            help=argparse.SUPPRESS,
        )  # fmt: skip
    for names in SWITCHES:
        group.add_argument(*names, dest=_dest(names), action="store_true", help=_help(names))

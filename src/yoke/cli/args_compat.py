"""Claude Code flags Yoke accepts so that scripts and the Agent SDKs keep working, though Yoke has no part
of its own behind them yet (or needs none headless). Each is parsed with Claude Code's arity, so it never
swallows the prompt or leaves its value behind as one; `COMPAT_NOTES` says what Yoke does with it.
"""

from __future__ import annotations

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
}
FLAG_OPTIONAL_VALUES: dict[tuple[str, ...], str] = {
    ("--from-pr",): "value",
    ("--teleport",): "session",
    ("--remote",): "description",
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
)


def _dest(names: tuple[str, ...]) -> str:
    return names[-1].lstrip("-").replace("-", "_")


def add_compat_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("accepted for compatibility with Claude Code (see README)")
    for names, metavar in FLAG_VALUES.items():
        group.add_argument(*names, dest=_dest(names), metavar=metavar, help=argparse.SUPPRESS)
    for names, metavar in FLAG_OPTIONAL_VALUES.items():
        group.add_argument(
            *names, dest=_dest(names), nargs="?", const="", metavar=metavar, help=argparse.SUPPRESS
        )
    for names, metavar in FLAG_LISTS.items():
        group.add_argument(
            *names, dest=_dest(names), nargs="*", action="extend", default=[], metavar=metavar,
            help=argparse.SUPPRESS,
        )  # fmt: skip
    for names in SWITCHES:
        group.add_argument(*names, dest=_dest(names), action="store_true", help=argparse.SUPPRESS)

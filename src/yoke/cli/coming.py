"""Claude Code's subcommands Yoke does not have yet: one line on stderr, exit 1, never a prompt.

Each is a stub its developer replaces (point its entry in `cli/main.py` SUBCOMMANDS at the real one).
"""

from __future__ import annotations

import sys


def _not_yet(name: str, hint: str = "") -> int:
    line = f"yoke {name}: not available in this version of Yoke yet"
    print(f"{line}; {hint}" if hint else line, file=sys.stderr)
    return 1


def mcp(argv: list[str]) -> int:  # coming: cli/mcp_command.py (MCP issue)
    return _not_yet("mcp", "MCP servers in .mcp.json and --mcp-config are coming")


def update(argv: list[str]) -> int:
    return _not_yet("update", "upgrade with pip: pip install -U yoke")


def install(argv: list[str]) -> int:
    return _not_yet("install", "install with pip: pip install yoke")


def setup_token(argv: list[str]) -> int:
    return _not_yet("setup-token", "set ANTHROPIC_API_KEY (or OPENAI_API_KEY) instead")


def migrate_installer(argv: list[str]) -> int:
    return _not_yet("migrate-installer", "Yoke is installed with pip")


def auth(argv: list[str]) -> int:
    return _not_yet("auth", "Yoke reads ANTHROPIC_API_KEY / OPENAI_API_KEY from the environment")


def gateway(argv: list[str]) -> int:
    return _not_yet("gateway")


def import_config(argv: list[str]) -> int:
    return _not_yet("import", "Yoke reads Claude Code's .claude/ files as they are")


def purge(argv: list[str]) -> int:
    return _not_yet("purge", "a project's transcripts are under ~/.yoke/projects/")


def ultrareview(argv: list[str]) -> int:
    return _not_yet("ultrareview", "cloud reviews are not in Yoke")


def daemon(argv: list[str]) -> int:
    return _not_yet(
        "daemon", "background sessions run in yoke host, started on demand (yoke --bg, yoke agents)"
    )


def self_hosted_runner(argv: list[str]) -> int:
    return _not_yet("self-hosted-runner", "cloud session runners are not in Yoke")

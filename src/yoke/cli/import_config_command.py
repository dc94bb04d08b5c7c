"""`yoke import-config --from codex|gemini|opencode [--force] [--dry-run]`: copy what maps from another
agent's configuration (MCP servers, model and provider, instruction files); print what was not mapped.
The work is in `session/admin/import_config.py`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

USAGE = (
    "usage: yoke import-config --from codex|gemini|opencode [--force] [--dry-run]\n"
    "Copies MCP servers (into ~/.claude.json or .mcp.json), the model and provider (into a Yoke profile named\n"
    "after the agent) and instruction files (as @imports in CLAUDE.md); prints what it did not map. Nothing\n"
    "that exists is replaced without --force."
)


def run(argv: list[str]) -> int:
    from yoke.session.admin import AdminError
    from yoke.session.admin.import_config import import_config

    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    source, rest = None, []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--from" and i + 1 < len(argv):
            source, i = argv[i + 1], i + 2
            continue
        if arg.startswith("--from="):
            source = arg.partition("=")[2]
        else:
            rest.append(arg)
        i += 1
    unknown = [a for a in rest if a not in ("--force", "--dry-run")]
    if source is None or unknown:
        print(
            f"yoke import-config: {'unknown argument ' + unknown[0] if unknown else '--from is required'}\n{USAGE}",
            file=sys.stderr,
        )
        return 2
    try:
        report = import_config(
            source, Path.cwd(), os.environ, force="--force" in rest, dry_run="--dry-run" in rest
        )
    except AdminError as exc:
        print(f"yoke import-config: {exc}", file=sys.stderr)
        return 1
    for line in report.lines():
        print(line)
    return 0

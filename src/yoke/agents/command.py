"""`yoke agents`: the agent definitions this folder's sessions can use, where each comes from, and any
file that was skipped (with why)."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def agents_command(argv: list[str]) -> int:
    if argv and argv[0] in ("-h", "--help"):
        print("usage: yoke agents\n\nList the sub-agent definitions available here, with their source.")
        return 0
    if argv:
        print(f"yoke agents: unexpected argument {argv[0]!r} (see yoke agents --help)", file=sys.stderr)
        return 2
    from yoke.agents.definitions import load_catalog

    catalog = load_catalog(Path.cwd(), env=os.environ)
    for warning in catalog.warnings:
        print(f"yoke: warning: {warning}", file=sys.stderr)
    width = max(len(name) for name in catalog.names())
    for definition in catalog.by_name.values():
        where = str(definition.path) if definition.path else definition.source
        print(
            f"{definition.name.ljust(width)}  {definition.source:<8}  {where if definition.path else ''}".rstrip()
        )
    return 0

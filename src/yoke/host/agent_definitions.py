"""`yoke agents --definitions`: the agent definitions this folder's sessions can use, where each comes from,
and any file that was skipped (with why)."""

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
    from yoke.session.admin.agents import definitions

    rows, warnings = definitions(Path.cwd(), os.environ)
    for warning in warnings:
        print(f"yoke: warning: {warning}", file=sys.stderr)
    width = max(len(name) for name, _, _ in rows)
    for name, source, path in rows:
        print(f"{name.ljust(width)}  {source:<8}  {path if path else ''}".rstrip())
    return 0

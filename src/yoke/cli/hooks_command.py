"""`yoke hooks`: which hooks are configured, where, and whether they will run here."""

from __future__ import annotations

import json
import sys
from pathlib import Path

USAGE = """usage: yoke hooks [--json] [--settings FILE_OR_JSON]

List the hooks configured for sessions started in this folder: every settings file (managed, --settings,
local, project, user) and enabled plugin, grouped by event, with the file each comes from. Project hooks of a folder that has
not been trusted are listed as skipped (`yoke trust` lets them run)."""


def hooks_command(argv: list[str]) -> int:
    if argv and argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    as_json = "--json" in argv
    flag_settings = None
    rest = [a for a in argv if a != "--json"]
    if rest[:1] == ["--settings"] and len(rest) >= 2:
        flag_settings, rest = rest[1], rest[2:]
    if rest:
        print(f"yoke hooks: unexpected argument {rest[0]!r}\n{USAGE}", file=sys.stderr)
        return 2
    from yoke.session.admin.hooks import configured_hooks

    rows, warnings = configured_hooks(Path.cwd(), flag_settings)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if as_json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("No hooks configured.")
        return 0
    for event in dict.fromkeys(r["event"] for r in rows):
        print(event)
        for r in (r for r in rows if r["event"] == event):
            matcher = r["matcher"] or "*"
            extra = f" if {r['if']}" if r["if"] else ""
            timeout = f" (timeout {r['timeout']:g} s)" if r["timeout"] else ""
            state = "" if r["state"] == "active" else " [skipped]"
            print(f"  [{matcher}] {r['type']}: {r['target']}{extra}{timeout}{state}")
            print(f"      from {r['source']} ({r['scope']})")
    return 0

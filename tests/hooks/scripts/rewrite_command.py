#!/usr/bin/env python3
"""PreToolUse: make test runs quiet by rewriting `pytest` to `pytest -q` through updatedInput."""

import json
import os
import sys

data = json.load(sys.stdin)
with open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], ".hook-input-rewrite.json"), "w") as f:
    json.dump(data, f)
command = data["tool_input"].get("command", "")
if command.startswith("pytest") and "-q" not in command.split():
    updated = dict(data["tool_input"], command=command.replace("pytest", "pytest -q", 1))
    print(
        json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "allow",
                    "permissionDecisionReason": "test runs are quiet here",
                    "updatedInput": updated,
                }
            }
        )
    )
sys.exit(0)

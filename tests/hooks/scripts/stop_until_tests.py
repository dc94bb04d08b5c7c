#!/usr/bin/env python3
"""Stop hook: make Claude run the tests once more before it finishes (and not loop forever)."""

import json
import os
import sys

data = json.load(sys.stdin)
log = os.path.join(os.environ["CLAUDE_PROJECT_DIR"], ".hook-input-stop.jsonl")
with open(log, "a") as f:
    f.write(json.dumps(data) + "\n")
if data.get("stop_hook_active"):
    sys.exit(0)  # already continuing because of this hook: let Claude stop
print(json.dumps({"decision": "block", "reason": "Run the test suite once more before finishing."}))

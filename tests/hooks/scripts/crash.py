#!/usr/bin/env python3
"""A hook with a bug in it."""

import json
import sys

data = json.load(sys.stdin)
raise RuntimeError(f"boom while handling {data['hook_event_name']}")

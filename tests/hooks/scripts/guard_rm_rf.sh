#!/usr/bin/env bash
# PreToolUse guard (the classic Claude Code example): refuse `rm -rf`, tell Claude why on stderr, exit 2.
input=$(cat)
printf '%s' "$input" > "$CLAUDE_PROJECT_DIR/.hook-input-guard.json"
command=$(printf '%s' "$input" | jq -r '.tool_input.command // empty')
if printf '%s' "$command" | grep -Eq '(^|[;&| ])rm[[:space:]]+-[a-zA-Z]*(rf|fr)'; then
  echo "Blocked: rm -rf is not allowed in this project. Remove files one at a time." >&2
  exit 2
fi
exit 0

#!/usr/bin/env bash
# SessionStart: persist environment for later Bash commands through CLAUDE_ENV_FILE.
input=$(cat)
printf '%s' "$input" > "$CLAUDE_PROJECT_DIR/.hook-input-session.json"
if [ -n "$CLAUDE_ENV_FILE" ]; then
  echo 'export DEPLOY_TARGET=staging' >> "$CLAUDE_ENV_FILE"
  echo 'export GREETING="hello world"' >> "$CLAUDE_ENV_FILE"
fi
echo "Loaded staging environment."

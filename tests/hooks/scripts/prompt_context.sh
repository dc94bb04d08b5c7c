#!/usr/bin/env bash
# UserPromptSubmit: plain stdout becomes context for Claude.
input=$(cat)
printf '%s' "$input" > "$CLAUDE_PROJECT_DIR/.hook-input-prompt.json"
echo "Project conventions: tabs, never spaces. Today is release day."

#!/usr/bin/env bash
# PostToolUse formatter: after Claude edits a Python file, strip trailing whitespace (a stand-in formatter).
input=$(cat)
printf '%s' "$input" > "$CLAUDE_PROJECT_DIR/.hook-input-format.json"
file=$(printf '%s' "$input" | jq -r '.tool_input.file_path // empty')
case "$file" in
  *.py) sed -i 's/[[:space:]]*$//' "$file"; echo "formatted $file" ;;
esac
exit 0

#!/usr/bin/env bash
# A hook that never finishes, with a child of its own.
cat > /dev/null
sleep 300 &
echo $! > "$CLAUDE_PROJECT_DIR/.hang-child.pid"
sleep 300

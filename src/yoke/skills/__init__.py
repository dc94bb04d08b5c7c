"""Skills, slash commands, output styles and @mentions: Claude Code's `.claude/skills` and `.claude/commands`."""

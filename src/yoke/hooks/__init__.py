"""Claude Code's hooks: configuration, matching, runners and the lifecycle listener (docs/hooks.md)."""

"""Memory files (CLAUDE.md, AGENTS.md, CLAUDE.local.md, rules, imports): discovery and formatting."""

from yoke.memory.files import (
    MemoryFile,
    MemoryIndex,
    config_dir,
    discover_memory,
    find_repo_root,
    format_memory,
    memory_reminder,
)

__all__ = [
    "MemoryFile",
    "MemoryIndex",
    "config_dir",
    "discover_memory",
    "find_repo_root",
    "format_memory",
    "memory_reminder",
]

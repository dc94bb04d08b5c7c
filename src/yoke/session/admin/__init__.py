"""The operations behind Yoke's management commands (`yoke mcp`, `yoke plugin`, `yoke memory`, `yoke hooks`,
`yoke auto-mode`, `yoke config`, `yoke stats`), for any front-end: each module takes plain values (a folder,
a name, a scope) and returns data or raises `AdminError` with one line to show, reading and writing the files
Claude Code uses. The CLI keeps only argument parsing and printing, and never imports `mcp/`, `plugins/`,
`memory/`, `hooks/`, `permissions/` or `providers/` itself (`.importlinter`, docs/architecture.md).

The parts are imported inside the operations, so importing a module here costs nothing at start-up."""

from __future__ import annotations


class AdminError(Exception):
    """A management operation that could not be done; the message is one line saying what to fix."""

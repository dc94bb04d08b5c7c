"""Claude Code's message shapes, in one place: events become stream-json dicts (`stream.py`), with the
`system/init` message and the result (`shapes.py`), the status lines (`status.py`) and the assistant lines
assembled from partial blocks (`blocks.py`), and the hook lines of `--include-hook-events` (`hook_lines.py`).

It sits above `events` and `providers/base` and below every front-end: the CLI's printers, the SDK and the
session host all speak through it, so a shape is built once. It does no I/O and never imports a session.
"""

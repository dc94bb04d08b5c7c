"""What a front-end shows of a session beyond its properties: the `/context` and `/usage` texts, the output
styles it can switch to, the diff an edit would make (for its permission prompt), a permission mode's
canonical name. Front-ends import this module, never the parts that work these out (`context/`, `skills/`,
`tools/`, `permissions/`); each part is imported when its view is asked for, so start-up pays nothing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yoke.context.inspect import ContextUsage
    from yoke.session.engine import Session


def context_view(session: Session, cwd: Path) -> tuple[ContextUsage, str]:
    """What fills the context window now, and its `/context` report (memory files named relative to `cwd`)."""
    from yoke.context.inspect import usage_report

    usage = session.context_measure()
    return usage, usage_report(usage, cwd)


def usage_text(session: Session) -> str:
    """`/usage`: cost, tokens, context and activity of the session so far."""
    from yoke.skills.daily_commands import usage_text as text

    return text(session)


def output_styles(session: Session | None, cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    """The output styles there are (name -> style): built-in, user, project and the session's plugins'."""
    from yoke.skills.output_styles import find_styles
    from yoke.skills.session import session_plugins

    plugins = session_plugins(session) if session is not None else []
    dirs = [d for p in plugins for d in p.output_style_dirs()]
    return find_styles(cwd, env=env, plugin_dirs=dirs, warnings=[])


def permission_mode_name(value: str) -> str:
    """A permission mode as the gate names it (`manual` is `default`); unknown names are returned unchanged."""
    from yoke.permissions.pipeline import MODE_ALIASES

    return MODE_ALIASES.get(value, value)


def edit_preview(name: str, input: dict[str, Any], cwd: str) -> list[dict[str, Any]]:
    """The hunks (Claude Code's `structuredPatch`) a Write, Edit or MultiEdit call would make to the file as
    it is now, for its permission prompt; [] when they cannot be worked out."""
    from yoke.tools.files import structured_patch

    path = input.get("file_path")
    if not isinstance(path, str):
        return []
    full = path if os.path.isabs(path) else os.path.join(cwd, path)
    try:
        with open(full, encoding="utf-8", errors="replace") as handle:
            old = handle.read()
    except OSError:
        old = ""
    if name == "Write" and isinstance(input.get("content"), str):
        return structured_patch(old, input["content"])
    edits = input.get("edits") if name == "MultiEdit" else [input]
    new = old
    for edit in edits or []:
        if not isinstance(edit, dict):
            return []
        before, after = str(edit.get("old_string", "")), str(edit.get("new_string", ""))
        if before and before in new:
            new = new.replace(before, after) if edit.get("replace_all") else new.replace(before, after, 1)
    return structured_patch(old, new) if new != old else []

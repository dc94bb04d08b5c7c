"""`/export`: the conversation as plain text, as the screen showed it: prompts, answers, and every tool call
with its result (`● Bash(ls)` and `⎿ output` under it)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from yoke import jsonsafe

MAX_RESULT_LINES = 40
# The reminders an `@file` mention sends (skills/mentions.py writes them): shown as the screen shows the
# attachment, `⎿  Read calc.py (3 lines)`; any other reminder is for the model only.
_REMINDER = re.compile(r"<system-reminder>\n?(.*?)\n?</system-reminder>", re.S)
_CALLED = re.compile(r"(\w+) was called with this input: (\{.*\})", re.S)
_RETURNED = re.compile(r"What (\w+) returned:\n?(.*)", re.S)


class Attachments:
    """The `@` mention a prompt's reminders describe: its call is in one reminder, its result in the next."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self.call: tuple[str, dict[str, Any]] | None = None
        self.held: list[str] = []  # attachment lines waiting for the prompt they belong under

    def split(self, text: str) -> tuple[list[str], str]:
        """A user text block as the screen showed it: its attachment lines, and what was typed."""
        lines = []
        for match in _REMINDER.finditer(text):
            lines += self._reminder(match.group(1).strip())
        return lines, _REMINDER.sub("", text).strip()

    def _reminder(self, body: str) -> list[str]:
        from yoke.ui.tool_view import brief

        called, returned = _CALLED.fullmatch(body), _RETURNED.fullmatch(body)
        if called:
            try:
                tool_input = jsonsafe.loads(called.group(2))
            except ValueError:
                tool_input = {}
            self.call = (called.group(1), tool_input if isinstance(tool_input, dict) else {})
            return []
        if returned and self.call is not None:
            tool, tool_input = self.call
            self.call = None
            count = len(returned.group(2).strip("\n").splitlines())
            what = brief(tool, tool_input, self.cwd, limit=200) or tool
            return [f"  ⎿  {tool} {what} ({count} line{'s' if count != 1 else ''})"]
        return []


def export_text(messages: list[dict[str, Any]], cwd: str, errors: Sequence[tuple[int, str]] = ()) -> str:
    """`errors`: (how many messages came before it, text) of each turn that failed (`LoadedSession.turn_errors`)."""
    parts: list[str] = []
    attachments = Attachments(cwd)
    failed = dict(errors)
    for index, message in enumerate(messages):
        if index in failed:
            parts.append(f"  ⎿  {failed.pop(index)}")
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for block in blocks:
            if not isinstance(block, dict):
                continue
            text = _block(block, message.get("role") == "user", cwd, attachments)
            if text:
                parts.append(text)
    parts += [f"  ⎿  {text}" for text in failed.values()]
    return "\n\n".join(parts) + "\n"


def _block(block: dict[str, Any], from_user: bool, cwd: str, attachments: Attachments) -> str:
    from yoke.ui.tool_view import brief

    kind = block.get("type")
    if kind == "text" and from_user:
        lines, typed = attachments.split(str(block.get("text") or ""))
        attachments.held += lines
        if not typed:
            return ""  # the reminders sent before the prompt: shown under it, as the screen shows them
        shown, attachments.held = [_typed(typed), *attachments.held], []
        return "\n".join(shown)
    if kind == "tool_use" and block.get("name") == "ExitPlanMode":  # the plan as written, not its JSON
        tool_input = block.get("input")
        plan = tool_input.get("plan") if isinstance(tool_input, dict) else None
        return "● ExitPlanMode" + (f"\n{_under(str(plan))}" if plan else "")
    if kind == "text":
        text = str(block.get("text") or "").strip()
        return f"● {text}" if text else ""
    return _call_or_result(block, cwd, brief)


def _typed(text: str) -> str:
    from yoke.session.store import split_shell_context

    commands, typed = split_shell_context(text)
    shown = [f"! {command}\n{_under(output or '(no output)')}" for command, output in commands]
    return "\n".join([*shown, *([f"> {typed}"] if typed else [])])


def _call_or_result(block: dict[str, Any], cwd: str, brief: Any) -> str:
    kind = block.get("type")
    if kind == "tool_use":
        name = str(block.get("name") or "tool")
        tool_input = block.get("input")
        arg = brief(name, tool_input if isinstance(tool_input, dict) else {}, cwd, limit=200)
        return f"● {name}({arg})" if arg else f"● {name}"
    if kind == "tool_result":
        from yoke.messages import result_text

        body = block.get("content")
        text = body if isinstance(body, str) else result_text(body or [])
        text = text.replace("<tool_use_error>", "").replace("</tool_use_error>", "").strip()
        return _under(text or "(no output)", error=bool(block.get("is_error")))
    return ""


def _under(text: str, error: bool = False) -> str:
    lines = text.splitlines() or [""]
    more = len(lines) - MAX_RESULT_LINES
    lines = lines[:MAX_RESULT_LINES] + ([f"… +{more} lines"] if more > 0 else [])
    first = "  ⎿  Error: " if error else "  ⎿  "
    return "\n".join((first if i == 0 else "     ") + line for i, line in enumerate(lines))

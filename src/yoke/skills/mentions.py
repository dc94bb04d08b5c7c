"""`@path` mentions in a prompt: what they name is attached before the model answers, as Claude Code does.

- `@src/app.py` (or `@"a file.txt"`, `@notes.txt#L10-20`): the file as a Read result;
- `@src` (a directory): its listing, as the result of an `ls`;
- `@server:uri`: an MCP resource, as a ReadMcpResourceTool result;
- a path that does not exist (or that the permission gate would not let Read open unasked): nothing.

The shape the model receives follows 2.1.330's (observed on the scripted server, tests/skills/
test_mentions.py): for each attachment a reminder that says which tool was called with what input, then one
with its result; the first call's reminder is a user message of its own, the rest go, in order, at the start
of the prompt's message, before the prompt's text. The wording is Yoke's own.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from yoke.messages import Block, Message, user_message
from yoke.regex import lazy_compile

# @"quoted path" or @path; at the start or after whitespace (so e-mail addresses are not mentions)
MENTION = lazy_compile(r'(?:^|(?<=\s))@(?:"([^"]+)"|(\S+))')
LINES = lazy_compile(r"^(.*)#L(\d+)(?:-(\d+))?$")
TRAILING = ".,;:!?)]}'\""
MAX_MENTIONS = 20
MAX_LISTED = 1000  # a directory's entries attached at most (node_modules must not flood the prompt)


class Attachments:
    """What a prompt's mentions attach: the first call's own message, and the blocks that go before the
    prompt's text in its message."""

    __slots__ = ("first", "blocks", "shown")

    def __init__(self, first: Message, blocks: list[Block], shown: list[str] | None = None) -> None:
        self.first = first
        self.blocks = blocks
        self.shown = (
            shown or []
        )  # one line per attachment, as the terminal shows it: `Read calc.py (6 lines)`


def mentions(text: str) -> list[str]:
    found = []
    for match in MENTION.finditer(text):
        name = match.group(1) or match.group(2)
        if name and name not in found:
            found.append(name)
    return found[:MAX_MENTIONS]


async def attach_mentions(session: Any, prompt: Any) -> Attachments | None:
    """The attachments for the `@` mentions in a prompt (a string, or blocks with text), or None."""
    text = prompt if isinstance(prompt, str) else _text_of(prompt)
    if "@" not in text:
        return None
    calls: list[tuple[str, dict[str, Any], str]] = []
    for name in mentions(text):
        call = await _attach_one(session, name)
        if call is not None:
            calls.append(call)
    if not calls:
        return None
    reminders: list[str] = []
    for tool, input, result in calls:
        reminders.append(_reminder(f"{tool} was called with this input: {json.dumps(input)}"))
        reminders.append(_reminder(f"What {tool} returned:\n{result}"))
    first = user_message(reminders[0])
    shown = [_shown(tool, input, result, Path(session.cwd)) for tool, input, result in calls]
    return Attachments(first, [{"type": "text", "text": r} for r in reminders[1:]], shown)


def _shown(tool: str, input: dict[str, Any], result: str, cwd: Path) -> str:
    count = len(result.strip("\n").splitlines())
    if tool == "Read":
        path = Path(str(input.get("file_path", "")))
        name = str(path.relative_to(cwd)) if path.is_relative_to(cwd) else str(path)
        return f"Read {name} ({count} line{'s' if count != 1 else ''})"
    if tool == "Bash":
        return f"Listed directory {input.get('command', '').removeprefix('ls ')} ({count} entries)"
    return f"{tool} {input.get('uri') or ''}".strip()


def _reminder(text: str) -> str:
    return f"<system-reminder>\n{text}\n</system-reminder>"


def _text_of(blocks: Any) -> str:
    if not isinstance(blocks, list):
        return ""
    return "\n".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")


async def _attach_one(session: Any, name: str) -> tuple[str, dict[str, Any], str] | None:
    resource = _mcp_resource(session, name)
    if resource is not None:
        attached = await _run(session, "ReadMcpResourceTool", resource)
        if attached is not None:
            return attached
    cwd = Path(session.cwd)
    for candidate in _candidates(name):
        path, offset, limit = candidate
        full = (cwd / os.path.expanduser(path)).resolve() if path else None
        if full is None or not full.exists():
            continue
        if full.is_dir():
            return await _listing(session, full)
        input: dict[str, Any] = {"file_path": str(full)}
        if offset is not None:
            input.update(offset=offset, limit=limit)
        return await _run(session, "Read", input)
    return None


def _candidates(name: str) -> list[tuple[str, int | None, int | None]]:
    """The path a mention names: as written, with a `#Lstart-end` range, without trailing punctuation."""
    out: list[tuple[str, int | None, int | None]] = []
    for text in dict.fromkeys((name, name.rstrip(TRAILING))):
        lines = LINES.match(text)
        if lines:
            start = int(lines.group(2))
            end = int(lines.group(3) or start)
            out.append((lines.group(1), start, max(end - start + 1, 1)))
        out.append((text, None, None))
    return out


def _mcp_resource(session: Any, name: str) -> dict[str, Any] | None:
    """`server:uri` where `server` is one of the session's MCP servers."""
    server, sep, uri = name.partition(":")
    if not sep or not uri or "/" in server:
        return None
    if session.agent.executor.registry.get("ReadMcpResourceTool") is None:
        return None  # no MCP server in this session
    return {"server": server, "uri": uri.rstrip(TRAILING)}


async def _listing(session: Any, folder: Path) -> tuple[str, dict[str, Any], str] | None:
    """A directory's entries, as `ls` would list them, if the gate lets the session read there unasked."""
    glob = session.agent.executor.registry.get("Glob")  # the read-only tool that looks into a folder
    if glob is not None and not await _allowed(session, glob, {"pattern": "*", "path": str(folder)}):
        return None
    try:
        names = sorted(entry.name for entry in folder.iterdir() if not entry.name.startswith("."))
    except OSError:
        return None
    if len(names) > MAX_LISTED:
        names = [*names[:MAX_LISTED], f"... and {len(names) - MAX_LISTED} more"]
    return "Bash", {"command": f"ls {folder}", "description": f"List the files in {folder}"}, "\n".join(names)


async def _run(session: Any, name: str, input: dict[str, Any]) -> tuple[str, dict[str, Any], str] | None:
    """Run a read-only tool for a mention, as the model would call it, if the gate allows it unasked."""
    executor = session.agent.executor
    tool = executor.registry.get(name)
    if tool is None or not await _allowed(session, tool, input):
        return None
    from yoke.tools.base import ToolError, ToolInputError

    try:
        result = await tool.run(tool.validate(input), executor.ctx.for_call(f"mention-{name}"))
    except (ToolError, ToolInputError, OSError):
        return None
    if result.is_error:
        return None
    content = result.content
    if not isinstance(content, str):
        content = "\n".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    return name, input, content


async def _allowed(session: Any, tool: Any, input: dict[str, Any]) -> bool:
    executor = session.agent.executor
    try:
        decision = await executor.gate.decide(tool, input, executor.ctx.for_call("mention"))
    except Exception:  # a mention never breaks the prompt: unknown means no attachment
        return False
    return decision.behavior == "allow"

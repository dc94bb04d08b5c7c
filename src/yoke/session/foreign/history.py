"""Building Yoke's history from another agent's session: the pieces every importer shares.

An importer walks its source in order and says what it saw (a prompt, a reply, a tool call and its result,
reasoning); `History` turns that into Anthropic-shaped messages that alternate user/assistant and answer
every tool call. A tool call becomes a real `tool_use` only when the source's tool maps onto one of
Yoke's own tools with an input Yoke's tool reads; any other call becomes text saying which tool of which
agent was called and with what, and its result becomes text too, so the model never sees a call to a
tool it does not have. Reasoning is dropped (it is signed for, or only readable by, the model that wrote
it), counted in a note.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from yoke.messages import Block, Message

# A source tool -> (Yoke's tool, its input) or None when Yoke has no such tool.
ToolMap = Callable[[str, dict[str, Any], str], "tuple[str, dict[str, Any]] | None"]

MAX_TEXT_INPUT = 2000  # how much of an unmapped call's input or result is kept as text


class ForeignFormatError(LookupError):
    """A foreign session that cannot be read: the message names the file and what is wrong, in one line."""


@dataclass
class Imported:
    """What an importer read: the conversation as Yoke's messages, and what it could not carry over."""

    source: str  # "codex", "gemini", "opencode"
    id: str  # the session's id in its own tool
    path: str  # where it was read from
    cwd: str | None = None
    model: str | None = None
    version: str | None = None  # the version of the tool that wrote it, when the file says
    messages: list[Message] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def call_id(raw: Any, fallback: int) -> str:
    """A tool call id every provider accepts (letters, digits, `_` and `-`)."""
    text = re.sub(r"[^A-Za-z0-9_-]", "_", str(raw or ""))[:64]
    return text or f"imported_call_{fallback}"


def absolute(args: dict[str, Any], key: str, cwd: str) -> str | None:
    """A path argument made absolute against the session's folder, as Yoke's file tools take paths."""
    value = args.get(key)
    return os.path.join(cwd, value) if isinstance(value, str) and value else None


def in_folder(command: str, workdir: str | None, cwd: str) -> str:
    """A shell command run in `workdir` when that is not the session's folder (Yoke's Bash has no workdir)."""
    return f"cd {shlex.quote(workdir)} && {command}" if workdir and workdir != cwd else command


def clip(text: str, limit: int = MAX_TEXT_INPUT) -> str:
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more characters]"


class History:
    """Messages built in order from what a source says happened."""

    def __init__(self, agent: str, tool_map: ToolMap, cwd: str) -> None:
        self.agent = agent  # shown in the text an unmapped call becomes ("Codex", "Gemini CLI", ...)
        self.tool_map = tool_map
        self.cwd = cwd
        self.messages: list[Message] = []
        self.reasoning_dropped = 0
        self.unmapped: dict[str, int] = {}
        self._calls: dict[str, str | None] = {}  # source call id -> Yoke tool_use id (None: became text)
        self._names: dict[str, str] = {}  # source call id -> the source's tool name
        self._count = 0
        self.unanswered = 0

    # -- what a source reports ----------------------------------------------------------------------

    def user_text(self, text: str) -> None:
        if text.strip():
            self._answer_pending()
            self._add("user", {"type": "text", "text": text})

    def assistant_text(self, text: str) -> None:
        if text.strip():
            self._new_reply()
            self._add("assistant", {"type": "text", "text": text})

    def reasoning(self) -> None:
        self.reasoning_dropped += 1

    def tool_call(self, source_id: Any, name: str, arguments: dict[str, Any]) -> None:
        self._count += 1
        self._new_reply()
        key = str(source_id or f"#{self._count}")
        self._names[key] = name
        mapped = self.tool_map(name, arguments, self.cwd)
        if mapped is None:
            self._calls[key] = None
            self.unmapped[name] = self.unmapped.get(name, 0) + 1
            shown = clip(json.dumps(arguments, ensure_ascii=False))
            self._add(
                "assistant",
                {
                    "type": "text",
                    "text": f"[{self.agent} called its tool `{name}`, which Yoke does not have, with {shown}]",
                },
            )
            return
        tool, tool_input = mapped
        yoke_id = call_id(source_id, self._count)
        self._calls[key] = yoke_id
        self._add("assistant", {"type": "tool_use", "id": yoke_id, "name": tool, "input": tool_input})

    def tool_result(self, source_id: Any, output: str, is_error: bool = False) -> None:
        key = str(source_id or "")
        if key not in self._calls:
            return  # a result without its call (the call was cut by a compaction): nothing to answer
        yoke_id = self._calls.pop(key)
        if yoke_id is None:
            label = "error" if is_error else "result"
            text = f"[{label} of {self.agent}'s `{self._names.get(key, '?')}` call: {clip(output)}]"
            self._add("user", {"type": "text", "text": text})
            return
        self._add(
            "user", {"type": "tool_result", "tool_use_id": yoke_id, "content": output, "is_error": is_error}
        )

    # -- the result ----------------------------------------------------------------------------------

    def finish(self, imported: Imported) -> Imported:
        """The messages, with calls left unanswered given an error result, and the notes."""
        self._answer_pending()
        while self.messages and self.messages[0]["role"] != "user":
            self.messages.pop(0)  # a history opens with the user
        imported.messages = self.messages
        if self.reasoning_dropped:
            imported.notes.append(
                f"dropped {self.reasoning_dropped} reasoning block(s): {self.agent}'s reasoning is readable "
                "only by the model that wrote it"
            )
        if self.unmapped:
            names = ", ".join(f"{n} ({c})" for n, c in sorted(self.unmapped.items()))
            imported.notes.append(f"calls to tools Yoke does not have were kept as text: {names}")
        if self.unanswered:
            imported.notes.append(
                f"{self.unanswered} tool call(s) without a recorded result were answered with an error result"
            )
        return imported

    def _new_reply(self) -> None:
        """An assistant block after results: calls of the earlier reply still unanswered never will be."""
        if self.messages and self.messages[-1]["role"] == "user":
            self._answer_pending()

    def _answer_pending(self) -> None:
        for key, cid in list(self._calls.items()):
            del self._calls[key]
            if cid is None:
                continue
            self.unanswered += 1
            result = {
                "type": "tool_result",
                "tool_use_id": cid,
                "content": f"(no result was recorded by {self.agent})",
                "is_error": True,
            }
            self._add("user", result)

    def _add(self, role: str, block: Block) -> None:
        last = self.messages[-1] if self.messages else None
        if last is not None and last["role"] == role:
            content = last["content"]
            assert isinstance(content, list)
            if role == "user" and block["type"] == "tool_result":
                # results answer the calls before them: they come first in the user message
                position = sum(1 for b in content if b.get("type") == "tool_result")
                content.insert(position, block)
            else:
                content.append(block)
            return
        self.messages.append({"role": role, "content": [block]})  # type: ignore[typeddict-item]

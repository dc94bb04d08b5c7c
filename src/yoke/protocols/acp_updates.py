"""Session events as ACP session updates, and ACP prompt content as a Yoke prompt."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any, get_args

import acp
from acp import schema

from yoke import events as ev
from yoke.messages import Block, Message


def prompt_from_blocks(blocks: list[Any]) -> str | list[Block]:
    """Text stays text; images become image blocks; embedded resources are given with their URI; links are
    named so the model can Read them."""
    out: list[Block] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            out.append({"type": "text", "text": block.text})
        elif kind == "image":
            out.append(
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": block.mime_type, "data": block.data},
                }
            )
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            if text is None:
                blob = getattr(resource, "blob", "")
                text = base64.b64decode(blob).decode("utf-8", "replace") if blob else ""
            out.append({"type": "text", "text": f'<context uri="{resource.uri}">\n{text}\n</context>'})
        elif kind == "resource_link":
            out.append({"type": "text", "text": f"[{block.name}]({block.uri})"})
    if len(out) == 1 and out[0]["type"] == "text":
        return out[0]["text"]
    return out


class UpdateMapper:
    """Turns one query's events into session updates; remembers each tool call's input for its diff."""

    def __init__(
        self,
        describe_call: Callable[[str, dict[str, Any]], tuple[str, list[str]]],
        terminal: Any = None,
        terminal_meta: bool = False,
    ):
        self.describe_call = describe_call  # a tool call's ACP kind and the paths it touches
        self.terminal = terminal  # the session's ClientTerminal: calls that ran in an editor terminal
        self.terminal_meta = terminal_meta  # the client shows Bash output given in `_meta` (Zed's extension)
        self.inputs: dict[str, dict[str, Any]] = {}

    def updates(self, event: ev.Event) -> list[Any]:
        if event.agent_id != "main":
            return []  # a sub-agent's inner steps stay inside its Agent tool call
        if isinstance(event, ev.TextDelta):
            return [acp.update_agent_message_text(event.text)]
        if isinstance(event, ev.ThinkingDelta):
            return [acp.update_agent_thought_text(event.thinking)]
        if isinstance(event, ev.ToolCallStarted):
            kind = _kind(self.describe_call(event.name, {})[0])
            start = acp.start_tool_call(event.tool_use_id, event.name, kind=kind, status="pending")
            if self.terminal_meta and event.name == "Bash":
                start.content = [_terminal(event.tool_use_id)]
                start.field_meta = {"terminal_info": {"terminal_id": event.tool_use_id}}
            return [start]
        if isinstance(event, ev.ToolCallCompleted):
            self.inputs[event.tool_use_id] = event.input
            described, paths = self.describe_call(event.name, event.input)
            kind = _kind(described)
            return [
                acp.update_tool_call(
                    event.tool_use_id,
                    title=_title(event.name, event.input, paths),
                    kind=kind,
                    locations=[schema.ToolCallLocation(path=p) for p in paths],
                    raw_input=event.input,
                )
            ]
        if isinstance(event, ev.PermissionDecided) and event.behavior == "allow":
            return [acp.update_tool_call(event.tool_use_id, status="in_progress")]
        if isinstance(event, ev.ToolResultEvent):
            if self.terminal_meta and event.name == "Bash":
                return _terminal_meta_updates(event)
            return [self._finished(event)]
        if isinstance(event, ev.TodosChanged):
            return [acp.update_plan([_plan_entry(t) for t in event.todos])]
        return []

    def _finished(self, event: ev.ToolResultEvent) -> Any:
        content: list[Any] = []
        diff = _diff(event.data)
        if diff is not None and not event.is_error:
            content.append(diff)
        terminal_id = self.terminal.by_call.pop(event.tool_use_id, None) if self.terminal else None
        text = _text(event.block.get("content"))
        if terminal_id is not None:  # the output is in the editor's terminal: keep showing that
            content.append(_terminal(terminal_id))
        elif text:
            content.append(acp.tool_content(acp.text_block(text)))
        return acp.update_tool_call(
            event.tool_use_id,
            status="failed" if event.is_error else "completed",
            content=content,
            raw_output=event.data if isinstance(event.data, (dict, list, str)) else None,
        )

    def history(self, messages: list[Message]) -> list[Any]:
        """A loaded session's conversation, replayed to the client."""
        out: list[Any] = []
        for message in messages:
            content = message["content"]
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
            for block in blocks:
                if block.get("type") != "text":
                    continue
                if message["role"] == "user":
                    out.append(acp.update_user_message_text(block["text"]))
                else:
                    out.append(acp.update_agent_message_text(block["text"]))
        return out


def _terminal(terminal_id: str) -> Any:
    return schema.TerminalToolCallContent(type="terminal", terminal_id=terminal_id)


def _terminal_meta_updates(event: ev.ToolResultEvent) -> list[Any]:
    """A locally run command shown as a terminal by a client that takes its output in `_meta` (Zed's
    `terminal_output` extension): the output, then the exit with the call's status. Display only."""
    data = event.data if isinstance(event.data, dict) else {}
    stdout = data.get("stdout")
    output = stdout if isinstance(stdout, str) else _text(event.block.get("content"))
    code = data.get("exitCode")
    code = code if isinstance(code, int) and code >= 0 else (1 if event.is_error else 0)
    tid = event.tool_use_id
    shown = acp.update_tool_call(tid)
    shown.field_meta = {"terminal_output": {"terminal_id": tid, "data": output}}
    done = acp.update_tool_call(
        tid,
        status="failed" if event.is_error else "completed",
        content=[_terminal(tid)],
        raw_output=data or None,
    )
    done.field_meta = {"terminal_exit": {"terminal_id": tid, "exit_code": code, "signal": None}}
    return [shown, done]


def _title(name: str, input: dict[str, Any], paths: list[str]) -> str:
    if name == "Bash" and isinstance(input.get("command"), str):
        return f"Bash: {input['command'][:80]}"
    if paths:
        return f"{name} {paths[0]}"
    return name


def _diff(data: Any) -> Any:
    """Edit and Write results carry the file before and after: shown as a diff in the editor."""
    if not isinstance(data, dict) or not isinstance(data.get("filePath"), str):
        return None
    old = data.get("originalFile")
    new = data.get("content")
    if new is None and isinstance(old, str) and isinstance(data.get("oldString"), str):
        new = old.replace(data["oldString"], data.get("newString", ""), -1 if data.get("replaceAll") else 1)
    if not isinstance(new, str):
        return None
    return acp.tool_diff_content(data["filePath"], new, old if isinstance(old, str) else None)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def _plan_entry(todo: dict[str, Any]) -> Any:
    status = todo.get("status", "pending")
    return acp.plan_entry(
        str(todo.get("content", "")),
        status=status if status in ("pending", "in_progress", "completed") else "pending",
    )


def _kind(kind: str) -> schema.ToolKind | None:
    """A tool's kind as ACP names it (None: one ACP does not know)."""
    return next((k for k in get_args(schema.ToolKind) if k == kind), None)

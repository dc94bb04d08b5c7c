"""`/export --html` and `yoke export --html`: one self-contained HTML file of a session (docs/remote.md).

The file is the remote-control page's own renderer run over the session's messages: `render.js` and
`style.css` (package data of the host's page, read as files: no code of the host is imported) and the
messages as stream-json shapes, all inlined. Its Content-Security-Policy allows those inline script and
style (by hash) and nothing else, so opening it makes no request. Secrets are redacted first, by the
patterns the permission layer protects (`yoke.redact`)."""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from yoke import jsonsafe
from yoke.redact import REDACTED, command_names_secret, redact_value, secret_file

FILE_TOOLS_INPUT = ("content", "old_string", "new_string", "edits", "new_source")  # what a file tool writes


def session_stream(
    messages: Sequence[Mapping[str, Any]],
    transcript: Path | None = None,
    cwd: str = "",
    errors: Sequence[tuple[int, str]] = (),
) -> list[dict[str, Any]]:
    """The conversation as stream-json `user`/`assistant` messages; each sub-agent's messages (from its
    transcript beside the session's) carry `parent_tool_use_id` and come just before its Agent call's result.
    An `@` mention's reminders are shown as the attachment line the screen shows; a failed turn's error
    (`errors`: how many messages came before it, its text) as an assistant line."""
    from yoke.ui.export import Attachments

    agents = _agent_transcripts(transcript) if transcript is not None else {}
    attachments = Attachments(cwd)
    failed = dict(errors)
    stream: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        if index in failed:
            stream.append(_line("assistant", [{"type": "text", "text": failed.pop(index)}], None))
        role = message.get("role")
        if role not in ("user", "assistant"):
            continue
        content = message.get("content")
        if isinstance(content, list):
            for block in content:
                path = agents.get(str(block.get("tool_use_id"))) if isinstance(block, dict) else None
                if path is not None and block.get("type") == "tool_result":
                    stream += _sub_agent(path, str(block.get("tool_use_id")))
        if role == "user":
            content = _typed(_attachments_shown(content, attachments))
        stream.append(_line(role, content, None))
    stream += [_line("assistant", [{"type": "text", "text": text}], None) for text in failed.values()]
    return stream


def _attachments_shown(content: Any, attachments: Any) -> Any:
    """Text blocks without their `<system-reminder>`s: an `@` mention's become `⎿  Read calc.py (3 lines)`."""
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return content
    shown = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text":
            lines, typed = attachments.split(str(block.get("text") or ""))
            text = "\n".join([*lines, *([typed] if typed else [])])
            if text:
                shown.append({**block, "text": text})
        else:
            shown.append(block)
    return shown


def _line(role: str, content: Any, parent: str | None) -> dict[str, Any]:
    """One stream-json message, as `yoke -p --output-format stream-json` writes a user or assistant line."""
    return {"type": role, "message": {"role": role, "content": _slim(content)}, "parent_tool_use_id": parent}


def _slim(content: Any) -> Any:
    """Images without their data: the page shows "[image]" for them, and the file stays small."""
    if isinstance(content, list):
        return [_slim(block) for block in content]
    if isinstance(content, dict):
        if content.get("type") == "image":
            return {"type": "image"}
        if content.get("type") == "tool_result" and isinstance(content.get("content"), list):
            return {**content, "content": _slim(content["content"])}
    return content


def _typed(content: Any) -> Any:
    """A prompt as the user typed it: `!` commands run before it as `! command` and their output."""
    from yoke.session.store import split_shell_context

    if isinstance(content, list):
        return [
            {**block, "text": _typed(block.get("text") or "")}
            if isinstance(block, dict) and block.get("type") == "text"
            else block
            for block in content
        ]
    if not isinstance(content, str) or "<bash-input>" not in content:
        return content
    commands, typed = split_shell_context(content)
    shown = [f"! {command}\n{output}".rstrip() for command, output in commands]
    return "\n\n".join([*shown, *([typed] if typed else [])])


def _records(path: Path) -> list[dict[str, Any]]:
    records = []
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    for line in lines:
        try:
            record = jsonsafe.loads(line)
        except ValueError:
            continue  # a torn last line: the rest stands
        if isinstance(record, dict):
            records.append(record)
    return records


def _agent_transcripts(transcript: Path) -> dict[str, Path]:
    """Agent call id -> its sub-agent's transcript (`<session>/subagents/agent-<agentId>.jsonl`)."""
    folder = transcript.with_suffix("") / "subagents"
    found: dict[str, Path] = {}
    for record in _records(transcript) if folder.is_dir() else []:
        result = record.get("toolUseResult")
        content = (record.get("message") or {}).get("content")
        if not isinstance(result, dict) or not result.get("agentId") or not isinstance(content, list):
            continue
        path = folder / f"agent-{result['agentId']}.jsonl"
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result" and path.is_file():
                found[str(block.get("tool_use_id"))] = path
    return found


def _sub_agent(path: Path, parent: str) -> list[dict[str, Any]]:
    out = []
    for record in _records(path):
        message = record.get("message")
        if (
            record.get("type") in ("user", "assistant")
            and isinstance(message, dict)
            and message.get("content")
        ):
            out.append(_line(record["type"], message["content"], parent))
    return out


def redacted(stream: list[dict[str, Any]], home: Path, cwd: str = "/") -> list[dict[str, Any]]:
    """The stream with every secret masked: what a file tool read from or wrote to a secret file, and the
    output of a command naming one, whole; secret values anywhere else."""
    secret_calls: set[str] = set()
    out = []
    for message in stream:
        content = (message.get("message") or {}).get("content")
        if isinstance(content, list):
            content = [_redact_block(block, secret_calls, home, cwd) for block in content]
            message = {**message, "message": {**message["message"], "content": content}}
        out.append(redact_value(message))
    return out


def _redact_block(block: Any, secret_calls: set[str], home: Path, cwd: str) -> Any:
    if not isinstance(block, dict):
        return block
    if block.get("type") == "tool_use" and isinstance(block.get("input"), dict):
        given = block["input"]
        command = given.get("command")
        if isinstance(command, str) and command_names_secret(command, cwd, home):
            secret_calls.add(str(block.get("id")))
        if any(secret_file(given.get(key), home, cwd) for key in ("file_path", "notebook_path", "path")):
            secret_calls.add(str(block.get("id")))
            kept = {key: (REDACTED if key in FILE_TOOLS_INPUT else value) for key, value in given.items()}
            return {**block, "input": kept}
    if block.get("type") == "tool_result" and str(block.get("tool_use_id")) in secret_calls:
        return {**block, "content": REDACTED}
    return block


def _asset(name: str) -> str:
    # the host's page assets, read as data files (resources of the `yoke` package: nothing of yoke.host runs)
    return resources.files("yoke").joinpath("host", "static", name).read_text(encoding="utf-8")


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


def export_html(stream: list[dict[str, Any]], title: str, where: str = "") -> str:
    """The page: the (already redacted) stream as JSON in an inert script element, rendered by render.js."""
    style, script = _asset("style.css"), _asset("render.js")
    data = json.dumps(stream, ensure_ascii=False).replace("<", "\\u003c")  # no `</script>` can close it
    policy = (
        f"default-src 'none'; script-src {_hash(script)}; style-src {_hash(style)}; "
        "base-uri 'none'; form-action 'none'"
    )
    name = html.escape(title)
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        f"<title>{name}</title><style>{style}</style></head>"
        f"<body><header><strong>{name}</strong><span>{html.escape(where)}</span></header>"
        '<main id="session"><div id="stream"></div></main>'
        f'<script type="application/json" id="yoke-export">{data}</script>'
        f"<script>{script}</script></body></html>\n"
    )


def session_html(
    messages: Sequence[Mapping[str, Any]],
    transcript: Path | None,
    title: str,
    cwd: str,
    home: Path | None = None,
    errors: Sequence[tuple[int, str]] = (),
) -> str:
    """The whole export of one session: its messages and sub-agents, redacted, as one HTML page."""
    stream = redacted(session_stream(messages, transcript, cwd, errors), home or Path.home(), cwd)
    return export_html(stream, title, cwd)

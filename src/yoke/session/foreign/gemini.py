"""Gemini CLI sessions: `~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl` (`GEMINI_CLI_HOME`
replaces the home folder), and `checkpoint-<tag>.json` saved by `/chat save <tag>` beside `chats/`.

The format, from google-gemini/gemini-cli `packages/core/src/services/chatRecordingTypes.ts` and
`chatRecordingService.ts` `loadConversationRecord` (checked against files Gemini CLI 0.61.0 wrote,
tests/session/foreign/): one JSON object a line. The first holds the metadata (`sessionId`, `projectHash`,
`startTime`); a line with an `id` is a message record (`type` user/gemini/info/error/warning, `content` a
part list, on gemini messages `toolCalls` with each call's `result` and `thoughts`), and a later record with
the same id replaces the earlier one in its place; `{"$set": {...}}` updates the metadata (with `messages`:
replaces them all); `{"$rewindTo": id}` removes that message and every later one. The history Gemini CLI
resumes from it (`convertSessionToClientHistory`): user messages except its own context (`<session_context>`)
and slash commands; gemini messages as text, then their tool calls and results. Older versions wrote one
JSON object (`ConversationRecord`, with `messages`) per `.json` file; it is read the same way. A checkpoint
is the Gemini API history itself (`[{role, parts}]`, or `{"history": [...]}`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from yoke.jsonsafe import loads as safe_loads
from yoke.session.foreign.history import ForeignFormatError, History, Imported, absolute
from yoke.session.foreign.listing import ForeignInfo, mtime, one_line, one_match

AGENT = "Gemini CLI"
IGNORED_USER_PREFIXES = ("/", "?", "<session_context>", "<hook_context>")


def home(env: Mapping[str, str]) -> Path:
    base = env.get("GEMINI_CLI_HOME") or env.get("HOME") or str(Path.home())
    return Path(base).expanduser() / ".gemini"


def session_files(env: Mapping[str, str]) -> list[Path]:
    root = home(env) / "tmp"
    if not root.is_dir():
        return []
    found = [*root.glob("*/chats/session-*.jsonl"), *root.glob("*/chats/session-*.json")]
    found += root.glob("*/checkpoint-*.json")
    return sorted(found, key=mtime, reverse=True)


def find(ref: str, env: Mapping[str, str]) -> Path:
    """A session by its id (or a unique prefix), or a checkpoint by `checkpoint-<tag>`."""
    matches = []
    for path in session_files(env):
        if path.name.startswith("checkpoint-"):
            if path.stem == ref or path.stem == f"checkpoint-{ref}":
                matches.append(path)
            continue
        found = info(path)
        if found is not None and found.id.startswith(ref):
            matches.append(path)
    return one_match(matches, AGENT, ref, home(env) / "tmp")


def started_in(path: Path) -> str:
    """The project a session belongs to (its folder's `.project_root`), "" when unknown."""
    return _project_root(path)


def _project_root(path: Path) -> str:
    folder = path.parent.parent if path.parent.name == "chats" else path.parent
    try:
        return (folder / ".project_root").read_text(encoding="utf-8").strip()
    except OSError:
        return ""


def info(path: Path) -> ForeignInfo | None:
    try:
        record = _conversation(path)
    except ForeignFormatError:
        return None
    messages = record["messages"]
    users = [m.get("content") for m in messages if m.get("type") == "user"]
    if record.get("checkpoint"):  # the API history: Gemini CLI's context and the prompt are parts of a turn
        prompts = [_text([part]) for content in users for part in _parts(content)]
    else:
        prompts = [_text(content) for content in users]
    prompts = [p for p in prompts if p.strip() and not p.strip().startswith(IGNORED_USER_PREFIXES)]
    return ForeignInfo(
        source="gemini",
        id=str(record.get("sessionId") or path.stem),
        path=path,
        cwd=_project_root(path),
        modified=datetime.fromtimestamp(mtime(path)),
        first_prompt=one_line(prompts[0]) if prompts else "",
        messages=sum(1 for m in messages if m.get("type") in ("user", "gemini")),
    )


def read(path: Path) -> Imported:
    record = _conversation(path)
    cwd = _project_root(path)
    imported = Imported(source="gemini", id=str(record.get("sessionId") or path.stem), path=str(path))
    imported.cwd = cwd or None
    history = History(AGENT, _tool_map, cwd or os.getcwd())
    if record.get("checkpoint"):
        _add_contents(history, record["messages"])
        return history.finish(imported)
    for message in record["messages"]:
        kind = message.get("type")
        if kind == "user":
            text = _text(message.get("content"))
            if not text.strip().startswith(IGNORED_USER_PREFIXES):
                history.user_text(text)
        elif kind == "gemini":
            imported.model = message.get("model") or imported.model
            _add_reply(history, message)
    return history.finish(imported)


# ---- reading the files ---------------------------------------------------------------------------------


def _conversation(path: Path) -> dict[str, Any]:
    """The conversation record as Gemini CLI's loader rebuilds it: metadata and messages in order."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ForeignFormatError(f"{path}: cannot read it ({exc.strerror or exc}).") from None
    if path.suffix != ".json":
        return _jsonl(text, path)
    try:
        whole = safe_loads(text)
    except ValueError:
        raise ForeignFormatError(f"{path}: is not JSON (cut off?); nothing was imported.") from None
    if isinstance(whole, dict) and isinstance(whole.get("messages"), list):  # an older session file
        return {**whole, "messages": [m for m in whole["messages"] if isinstance(m, dict)]}
    history = whole.get("history") if isinstance(whole, dict) else whole
    if isinstance(history, list):  # a checkpoint: {history, authType}, or older, the list itself
        return _checkpoint(history, path)
    raise ForeignFormatError(
        f"{path}: neither a Gemini CLI session nor a checkpoint (no messages, no history); nothing was imported."
    )


def _jsonl(text: str, path: Path) -> dict[str, Any]:
    rows = text.split("\n")
    meta: dict[str, Any] = {}
    messages: dict[str, dict[str, Any]] = {}  # insertion-ordered, as the loader's Map
    for number, row in enumerate(rows, 1):
        if not row.strip():
            continue
        try:
            record = safe_loads(row)
        except ValueError:
            where = "is cut off (the file is truncated)" if number >= len(rows) - 1 else "is not JSON"
            raise ForeignFormatError(f"{path}: line {number} {where}; nothing was imported.") from None
        if not isinstance(record, dict):
            continue
        if number == 1 and not (isinstance(record.get("sessionId"), str) and "projectHash" in record):
            raise ForeignFormatError(
                f"{path}: not a Gemini CLI session this Yoke reads (the first line has no sessionId and "
                "projectHash; Gemini CLI 0.61 writes them); nothing was imported."
            )
        if isinstance(record.get("$rewindTo"), str):
            keys = list(messages)
            cut = keys.index(record["$rewindTo"]) if record["$rewindTo"] in keys else 0
            for key in keys[cut:]:
                del messages[key]
        elif isinstance(record.get("id"), str):
            messages[record["id"]] = record
        elif isinstance(record.get("$set"), dict):
            update = record["$set"]
            if isinstance(update.get("messages"), list):
                messages = {m["id"]: m for m in update["messages"] if isinstance(m, dict) and "id" in m}
            meta.update({k: v for k, v in update.items() if k != "messages"})
        elif isinstance(record.get("sessionId"), str):
            meta.update(record)
    return {**meta, "messages": list(messages.values())}


def _checkpoint(history: list[Any], path: Path) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for number, content in enumerate(history):
        if not isinstance(content, dict):
            continue
        parts = content.get("parts") if isinstance(content.get("parts"), list) else []
        kind = "gemini" if content.get("role") == "model" else "user"
        messages.append({"id": str(number), "type": kind, "content": parts})
    tag = path.stem.removeprefix("checkpoint-")
    return {"sessionId": f"checkpoint-{tag}", "messages": messages, "checkpoint": True}


def _parts(content: Any) -> list[Any]:
    if isinstance(content, list):
        return content
    return [content] if content is not None else []


def _text(content: Any) -> str:
    out = []
    for part in _parts(content):
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought"):
            out.append(part["text"])
    return "".join(out)


def _add_reply(history: History, message: dict[str, Any]) -> None:
    if message.get("thoughts"):
        history.reasoning()
    parts = _parts(message.get("content"))
    if any(isinstance(p, dict) and p.get("thought") for p in parts):
        history.reasoning()
    history.assistant_text(_text(parts))
    for call in message.get("toolCalls") or []:
        if not isinstance(call, dict):
            continue
        args: dict[str, Any] = call["args"] if isinstance(call.get("args"), dict) else {}
        history.tool_call(call.get("id"), str(call.get("name") or "?"), args)
        if call.get("result") is not None:
            output, failed = _result(call.get("result"))
            history.tool_result(call.get("id"), output, failed or call.get("status") == "error")


def _add_contents(history: History, contents: list[dict[str, Any]]) -> None:
    """A checkpoint: the Gemini API history itself, part by part (a user turn may hold Gemini CLI's own
    context, the prompt and function responses; a model turn text, thoughts and function calls)."""
    for content in contents:
        model = content.get("type") == "gemini"
        for part in _parts(content.get("content")):
            if not isinstance(part, dict):
                continue
            call, response = part.get("functionCall"), part.get("functionResponse")
            if part.get("thought"):
                history.reasoning()
            elif isinstance(part.get("text"), str):
                if model:
                    history.assistant_text(part["text"])
                elif not part["text"].strip().startswith(IGNORED_USER_PREFIXES):
                    history.user_text(part["text"])
            elif model and isinstance(call, dict):
                args: dict[str, Any] = call["args"] if isinstance(call.get("args"), dict) else {}
                history.tool_call(call.get("id") or call.get("name"), str(call.get("name") or "?"), args)
            elif not model and isinstance(response, dict):
                output, failed = _result([part])
                history.tool_result(response.get("id") or response.get("name"), output, failed)


def _result(result: Any) -> tuple[str, bool]:
    """A tool call's `result`: a string, or parts holding a `functionResponse` whose `response` carries
    `output` or `error`."""
    if isinstance(result, str):
        return result, False
    texts, failed = [], False
    for part in _parts(result):
        if not isinstance(part, dict):
            continue
        response = (part.get("functionResponse") or {}).get("response")
        if isinstance(response, dict):
            if "error" in response:
                failed = True
                texts.append(str(response["error"]))
            else:
                output = response.get("output", response)
                texts.append(output if isinstance(output, str) else json.dumps(output, ensure_ascii=False))
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
    return "\n".join(texts), failed


# ---- tools -----------------------------------------------------------------------------------------


def _tool_map(name: str, args: dict[str, Any], cwd: str) -> tuple[str, dict[str, Any]] | None:
    """Gemini CLI's file and shell tools onto Yoke's (paths made absolute, as Yoke's tools take them)."""

    def path(key: str) -> str | None:
        return absolute(args, key, cwd)

    if name == "read_file" and path("file_path"):
        return "Read", {"file_path": path("file_path")}
    if name == "run_shell_command" and isinstance(args.get("command"), str):
        return "Bash", {"command": args["command"]}
    if name == "write_file" and path("file_path") and isinstance(args.get("content"), str):
        return "Write", {"file_path": path("file_path"), "content": args["content"]}
    if name == "replace" and path("file_path") and isinstance(args.get("old_string"), str):
        edit = {"file_path": path("file_path"), "old_string": args["old_string"]}
        return "Edit", {**edit, "new_string": str(args.get("new_string") or "")}
    if name == "glob" and isinstance(args.get("pattern"), str):
        return "Glob", {
            "pattern": args["pattern"],
            **({"path": path("dir_path")} if path("dir_path") else {}),
        }
    if name in ("grep_search", "search_file_content") and isinstance(args.get("pattern"), str):
        where = path("dir_path") or path("path")
        return "Grep", {"pattern": args["pattern"], **({"path": where} if where else {})}
    if name == "google_web_search" and isinstance(args.get("query"), str):
        return "WebSearch", {"query": args["query"]}
    return None

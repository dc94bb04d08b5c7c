"""The ledger a compaction keeps beside its summary: the decisions, constraints, file paths, commands and
figures of the turns it drops, word for word, each pointing at the transcript range it came from.

A summary is the model's paraphrase and may lose a constraint; the ledger is extracted by rule, not by the
model, so what it lists is what was said. Each entry is `{"kind", "text", "range": [first uuid, last uuid]}`
(the messages it appeared in; None where the message has no transcript record). The session gives the
model the `Recall` tool after a compaction, which returns the exact original messages of a range or a search.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from yoke.jsonsafe import loads as safe_loads
from yoke.messages import Message

LEDGER_HEAD = "Ledger of the compacted turns"
MAX_ENTRIES = {"constraint": 40, "decision": 40, "file": 60, "command": 40, "figure": 40}
MAX_TEXT = 240  # characters of one entry
MAX_LEDGER_CHARS = 12_000  # the ledger's text in the summary message

_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_CONSTRAINT = re.compile(
    r"\b(must(?: not)?|never|always|do not|don't|mustn't|only|required?|requirement|constraint|forbidden|"
    r"no more than|at most|at least|under no circumstances|keep (?:it|them|\w+) (?:under|below|within))\b",
    re.IGNORECASE,
)
_DECISION = re.compile(
    r"\b(decided|decision|we(?:'ll| will) (?:use|go|keep)|let's (?:use|go|keep)|go with|chose|choose|instead of|"
    r"settled on|agreed|i(?:'ll| will) use)\b",
    re.IGNORECASE,
)
_PATH = re.compile(
    r"(?<![\w/.-])(?:~?/)?(?:[\w.-]+/)+[\w.-]+\.[A-Za-z0-9]{1,8}\b|(?<![\w/])[\w-]+\.(?:py|ts|js|md|json|toml|yaml|yml|rs|go|c|h|cpp|java|rb|sh|txt|cfg|ini)\b"
)
_FIGURE = re.compile(
    r"(?:\$\s?\d[\d,]*(?:\.\d+)?|\b\d[\d,]*(?:\.\d+)?\s?(?:ms|µs|us|ns|s|sec|seconds|minutes|min|h|hours|%|"
    r"KB|KiB|MB|MiB|GB|GiB|tokens|req/s|rps|files|lines|x|×|USD|MHz|GHz)\b)"
)
_FILE_KEYS = ("file_path", "path", "notebook_path")


def _texts(message: Message) -> list[tuple[str, str]]:
    """(kind of block, text) of a message: prompts and answers as text, tool calls by input."""
    content = message.get("content")
    if isinstance(content, str):
        return [("text", content)]
    out: list[tuple[str, str]] = []
    for block in content or []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            out.append(("text", str(block.get("text", ""))))
        elif kind == "tool_use":
            out.append(("tool_use", json.dumps({"name": block.get("name"), "input": block.get("input")})))
    return out


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_TEXT else flat[: MAX_TEXT - 1] + "…"


def _is_ledger_or_summary(message: Message) -> bool:
    texts = _texts(message)
    return any(LEDGER_HEAD in text for _, text in texts)


def extract_ledger(span: Sequence[Message], uuids: Sequence[str | None]) -> list[dict[str, Any]]:
    """The ledger of the messages `span` (with their transcript uuids, same order)."""
    found: dict[tuple[str, str], dict[str, Any]] = {}

    def note(kind: str, text: str, uuid: str | None) -> None:
        text = _clip(text)
        if not text:
            return
        entry = found.get((kind, text))
        if entry is None:
            if sum(1 for k, _ in found if k == kind) >= MAX_ENTRIES[kind]:
                return
            found[(kind, text)] = {"kind": kind, "text": text, "range": [uuid, uuid]}
        else:
            entry["range"][1] = uuid

    for index, message in enumerate(span):
        if _is_ledger_or_summary(message):
            continue
        uuid = uuids[index] if index < len(uuids) else None
        for block_kind, text in _texts(message):
            if block_kind == "tool_use":
                _tool_call(text, uuid, note)
                continue
            if text.lstrip().startswith("<system-reminder>"):
                continue
            for sentence in _SENTENCE.findall(text):
                if _CONSTRAINT.search(sentence):
                    note("constraint", sentence, uuid)
                elif _DECISION.search(sentence):
                    note("decision", sentence, uuid)
                for figure in _FIGURE.findall(sentence):
                    note("figure", f"{figure.strip()} ({_clip(sentence)[:100]})", uuid)
            for path in _PATH.findall(text):
                note("file", path, uuid)
    return list(found.values())


def _tool_call(raw: str, uuid: str | None, note: Any) -> None:
    call = safe_loads(raw)
    given = call.get("input") if isinstance(call.get("input"), dict) else {}
    if isinstance(given.get("command"), str):
        note("command", given["command"], uuid)
    for key in _FILE_KEYS:
        if isinstance(given.get(key), str):
            note("file", given[key], uuid)


def merge(earlier: list[dict[str, Any]], later: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An earlier compaction's ledger and this one's, without repeats (the earlier range kept)."""
    seen = {(e["kind"], e["text"]) for e in earlier}
    return [*earlier, *(e for e in later if (e["kind"], e["text"]) not in seen)]


def ledger_text(entries: list[dict[str, Any]]) -> str:
    """The ledger as the model reads it in the summary message, within MAX_LEDGER_CHARS."""
    lines = [
        f"{LEDGER_HEAD} (quoted, not paraphrased; the Recall tool returns the original messages of a range "
        "or of a search, word for word):"
    ]
    size = len(lines[0])
    order = ("constraint", "decision", "figure", "command", "file")
    for kind in order:
        for entry in (e for e in entries if e["kind"] == kind):
            first, last = entry["range"]
            where = (
                f" [{first}..{last}]" if first and last and first != last else f" [{first}]" if first else ""
            )
            line = f"- {kind}: {entry['text']}{where}"
            if size + len(line) > MAX_LEDGER_CHARS:
                lines.append("- (more in the transcript: ask Recall)")
                return "\n".join(lines)
            lines.append(line)
            size += len(line) + 1
    return "\n".join(lines)

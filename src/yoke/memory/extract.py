"""End-of-session extraction: a background side request that proposes memories from the session's new
messages; Yoke checks and writes them.

Sub-agents do not exist yet, so this is not a forked agent with a writable memory directory: it is one
model request with no tools and a restricted prompt asking for JSON. The session hands the new messages
to a detached `yoke memory extract` process and exits at once (a headless run never waits for it); that
process answers to no one, logs problems to `<yoke home>/memory-extract.log`, writes each accepted memory
and its index line atomically, and skips proposals that duplicate an existing memory.
Turned on with the `autoMemoryExtraction` setting (off by default: it costs a model request per session).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sys
from pathlib import Path
from typing import Any

from yoke.jsonsafe import loads as safe_json
from yoke.memory.store import TYPES, index_line, list_memories, render_memory, slug, write_memory

MAX_TRANSCRIPT_CHARS = 60_000
MAX_RESULT_CHARS = 600
MAX_PROPOSALS = 5
SIMILAR = 0.6  # word-set overlap at which a proposal counts as a duplicate

SYSTEM = """\
You review a finished conversation between a user and a coding agent and decide what is worth \
remembering in later conversations about the same repository. You cannot use tools; answer with JSON only.

Keep only what cannot be derived from the code, the git history or the project's CLAUDE.md files, and \
that will still matter later: who the user is (type "user"), how they want the agent to work - \
corrections and confirmed choices (type "feedback"), decisions, constraints or deadlines the code does \
not show (type "project"), where things live outside the repository (type "reference"). Never keep \
code structure, file paths, how a bug was fixed, the task itself, or secrets. Skip anything the existing \
memories listed below already say. Most conversations deserve no new memory: an empty list is a good answer.

Answer with exactly one JSON object and nothing else:
{"memories": [{"name": "short title", "description": "one line: what it is and when it matters", \
"type": "user|feedback|project|reference", "body": "the memory", "why": "reason (feedback/project)", \
"how_to_apply": "when and how it applies (feedback/project)", "expiresAt": "YYYY-MM-DD or omit", \
"confidence": 0.0-1.0}]}"""


# ---- the session side: hand over and leave --------------------------------------------------------


def start_extraction(
    messages: list[dict[str, Any]], directory: Path, model: str, provider: str, yoke_home: Path
) -> bool:
    """Write the hand-over file and start the detached extraction process; False when there is nothing to
    do (no new user message, a replayed provider) or it cannot start."""
    if provider == "replay" or not any(m.get("role") == "user" for m in messages):
        return False
    folder = yoke_home / "memory-extract"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        payload = folder / f"{secrets.token_hex(8)}.json"
        data = {"messages": messages, "directory": str(directory), "model": model, "provider": provider}
        payload.write_text(json.dumps(data, default=str), encoding="utf-8")
        log = open(yoke_home / "memory-extract.log", "ab")  # noqa: SIM115 - handed to the child
    except OSError:
        return False
    try:
        from yoke import spawn

        # A daemon on purpose: the extraction finishes after the session has ended (never waited for).
        spawn.popen(
            [sys.executable, "-m", "yoke", "memory", "extract", str(payload)],
            confine=None,
            stdout=spawn.DEVNULL,
            stderr=log,
            cwd=os.getcwd(),
            daemon=True,
        )
    except OSError:
        payload.unlink(missing_ok=True)
        return False
    finally:
        log.close()
    return True


# ---- the background side --------------------------------------------------------------------------


def render_transcript(messages: list[dict[str, Any]]) -> str:
    """The conversation as plain text for the extraction prompt (the newest part, when long)."""
    lines: list[str] = []
    for message in messages:
        role = message.get("role", "?")
        content = message.get("content")
        if isinstance(content, str):
            lines.append(f"{role}: {content}")
            continue
        for block in content or []:
            kind = block.get("type")
            if kind == "text" and block.get("text", "").strip():
                lines.append(f"{role}: {block['text']}")
            elif kind == "tool_use":
                lines.append(f"{role} [tool {block.get('name')}]: {json.dumps(block.get('input'))[:300]}")
            elif kind == "tool_result":
                text = block.get("content")
                if isinstance(text, list):
                    text = " ".join(b.get("text", "") for b in text if isinstance(b, dict))
                lines.append(f"[tool result]: {str(text)[:MAX_RESULT_CHARS]}")
    text = "\n".join(lines)
    return text[-MAX_TRANSCRIPT_CHARS:]


def parse_proposals(text: str) -> list[dict[str, Any]]:
    """The memories in the model's answer (the first JSON object in it); malformed entries dropped."""
    match = re.search(r"\{.*\}", text, re.DOTALL)
    if not match:
        return []
    try:
        data = safe_json(match.group(0))
    except json.JSONDecodeError:
        return []
    items = data.get("memories") if isinstance(data, dict) else None
    out = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        name, body, kind = item.get("name"), item.get("body"), item.get("type")
        if (
            isinstance(name, str)
            and name.strip()
            and isinstance(body, str)
            and body.strip()
            and kind in TYPES
        ):
            out.append(item)
    return out[:MAX_PROPOSALS]


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2}


def is_duplicate(item: dict[str, Any], existing: list[Any]) -> bool:
    name = str(item.get("name", "")).strip().lower()
    words = _words(f"{item.get('description', '')} {item.get('body', '')}")
    for memory in existing:
        if memory.name.strip().lower() == name or memory.path.stem == slug(name):
            return True
        other = _words(f"{memory.description} {memory.body}")
        if words and other and len(words & other) / len(words | other) >= SIMILAR:
            return True
    return False


def write_proposals(directory: Path, proposals: list[dict[str, Any]]) -> list[Path]:
    """Write the proposals that are not duplicates; returns the new files."""
    existing = list_memories(directory)
    written: list[Path] = []
    for item in proposals:
        if is_duplicate(item, existing):
            continue
        body = item["body"].strip()
        if item["type"] in ("feedback", "project"):
            if item.get("why"):
                body += f"\n\n**Why:** {' '.join(str(item['why']).split())}"
            if item.get("how_to_apply"):
                body += f"\n**How to apply:** {' '.join(str(item['how_to_apply']).split())}"
        confidence = item.get("confidence")
        content = render_memory(
            item["name"],
            str(item.get("description") or item["name"]),
            item["type"],
            body,
            expires_at=item.get("expiresAt") if isinstance(item.get("expiresAt"), str) else None,
            confidence=float(confidence) if isinstance(confidence, int | float) else None,
        )
        filename = _free_name(directory, f"{item['type']}_{slug(item['name'])}")
        path = write_memory(
            directory,
            filename,
            content,
            index_line(item["name"], filename, str(item.get("description") or item["name"])),
        )
        written.append(path)
        from yoke.memory.store import read_memory

        memory = read_memory(path)
        if memory is not None:
            existing.append(memory)
    return written


def _free_name(directory: Path, stem: str) -> str:
    name, n = f"{stem}.md", 2
    while (directory / name).exists():
        name, n = f"{stem}_{n}.md", n + 1
    return name


async def run_extraction(payload_path: Path) -> list[Path]:
    """The detached process's work: one request, then the writes."""
    from yoke.config.settings import load_settings
    from yoke.messages import text_of, user_message
    from yoke.providers import base as pb
    from yoke.providers.select import make_provider, resolve_provider

    data = safe_json(payload_path.read_text(encoding="utf-8"))
    payload_path.unlink(missing_ok=True)
    directory = Path(data["directory"])
    existing = list_memories(directory, include_expired=False)
    listing = "\n".join(f"- {m.name}: {m.description}" for m in existing) or "(none)"
    prompt = (
        f"Existing memories:\n{listing}\n\nThe conversation:\n<conversation>\n"
        f"{render_transcript(data['messages'])}\n</conversation>\n\nPropose memories as JSON."
    )
    settings = load_settings(Path.cwd())
    config = resolve_provider(data["provider"], data["model"], settings.merged, os.environ)
    provider = make_provider(config)
    request = pb.ModelRequest(
        model=data["model"],
        messages=[user_message(prompt)],
        system=[{"type": "text", "text": SYSTEM}],
        max_tokens=2000,
    )
    answer = ""
    try:
        async for event in provider.stream(request):
            if isinstance(event, pb.MessageStop):
                answer = text_of(event.message)
    finally:
        await provider.aclose()
    return write_proposals(directory, parse_proposals(answer))

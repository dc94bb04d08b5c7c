"""Claude Code's own transcripts (`$CLAUDE_CONFIG_DIR/projects/<sanitized cwd>/<id>.jsonl`, default
`~/.claude`), so a user switching over keeps their history: `yoke -r <id>`, `yoke -c` and
`yoke sessions list` see them beside Yoke's.

Claude Code's format differs from Yoke's in two ways that matter for rebuilding the history: the
conversation is a tree (the chain from the newest leaf back through `parentUuid`), and one API message is
written as one record per content block (assistant records sharing `message.id`; tool results often one
user record each). Resuming one copies it into Yoke's own store first: Claude Code's files are only read.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from yoke import __version__
from yoke.session.transcript import load_records, project_dir, yoke_home

CHAIN_TYPES = ("user", "assistant", "system", "attachment", "progress")


def claude_home(env: Any = None) -> Path:
    env = os.environ if env is None else env
    return Path(env.get("CLAUDE_CONFIG_DIR") or (Path.home() / ".claude")).expanduser()


def session_roots(home: Path) -> list[Path]:
    """Where sessions are looked for: Yoke's home, then (for Yoke's default home) Claude Code's."""
    roots = [home]
    try:
        default = home.resolve() == yoke_home().resolve()
    except OSError:
        default = False
    claude = claude_home()
    if default and claude.resolve() != home.resolve():
        roots.append(claude)
    return roots


def is_claude_code_transcript(records: list[dict[str, Any]]) -> bool:
    """Written (at least at first) by Claude Code: its chain records carry Claude Code's version."""
    for record in records:
        if record.get("type") in ("user", "assistant") and record.get("version"):
            return record["version"] != __version__ and record.get("entrypoint") != "yoke"
    return False


def conversation_records(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records of the conversation the newest leaf continues, oldest first, with each API message's
    per-block records joined back into one message."""
    by_uuid = {r["uuid"]: r for r in records if r.get("type") in CHAIN_TYPES and r.get("uuid")}
    leaf = next(
        (
            r
            for r in reversed(records)
            if r.get("type") in ("user", "assistant") and r.get("uuid") and not r.get("isSidechain")
        ),
        None,
    )
    chain: list[dict[str, Any]] = []
    seen: set[str] = set()
    node = leaf
    while node is not None and node["uuid"] not in seen:
        seen.add(node["uuid"])
        chain.append(node)
        node = by_uuid.get(node.get("parentUuid") or "")
    chain.reverse()
    others = [r for r in records if r.get("type") not in CHAIN_TYPES or not r.get("uuid")]
    return [*_joined(chain), *others]


def _joined(chain: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for record in chain:
        previous = out[-1] if out else None
        if previous is not None and _same_message(previous, record):
            merged = dict(previous)
            message = dict(previous["message"])
            message["content"] = _blocks(previous) + _blocks(record)
            merged["message"] = message
            merged["uuid"] = record["uuid"]  # the next record's parent is the last block's record
            out[-1] = merged
        else:
            out.append(record)
    return out


def _same_message(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if a.get("type") != b.get("type") or not isinstance(a.get("message"), dict):
        return False
    if not isinstance(b.get("message"), dict):
        return False
    if a["type"] == "assistant":
        mid = a["message"].get("id")
        return bool(mid) and mid == b["message"].get("id")
    if a["type"] == "user":
        return _only_tool_results(a) and _only_tool_results(b)
    return False


def _only_tool_results(record: dict[str, Any]) -> bool:
    content = record["message"].get("content")
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
    )


def _blocks(record: dict[str, Any]) -> list[Any]:
    content = record["message"].get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content or [])


def adopt(path: Path, cwd: str | Path, home: Path) -> Path:
    """A Claude Code transcript about to be resumed: copied into Yoke's store (same session id) so Yoke
    appends to its own file and never writes Claude Code's. An earlier copy is reused."""
    target = project_dir(cwd, home) / path.name
    try:
        if path.resolve() == target.resolve() or target.is_file():
            return target
    except OSError:
        return path
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".jsonl.tmp")
    shutil.copyfile(path, partial)
    os.replace(partial, target)
    return target


def is_under(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except (OSError, ValueError):
        return False


def first_records(path: Path, count: int = 20) -> list[dict[str, Any]]:
    out = []
    for record in load_records(path):
        out.append(record)
        if len(out) >= count:
            break
    return out

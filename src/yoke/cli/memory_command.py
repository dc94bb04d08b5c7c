"""`yoke memory list|show|forget|search`: look at (and prune) this repository's auto memory; plus the
`# note` shortcut's headless front-end and the hidden `yoke memory extract` the session starts."""

from __future__ import annotations

import sys
from argparse import Namespace
from pathlib import Path

from yoke.ids import new_uuid

USAGE = """\
usage: yoke memory list                 the memories of this repository (and where they live)
       yoke memory show NAME            print one memory (NAME: its file name or its name)
       yoke memory forget NAME...       delete memories and their MEMORY.md lines
       yoke memory search WORDS...      what recall would pick for a prompt made of WORDS"""


def run(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE, file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command == "extract" and len(rest) == 1:
        return _extract(Path(rest[0]))
    handlers = {
        "list": _list,
        "ls": _list,
        "show": _show,
        "forget": _forget,
        "rm": _forget,
        "search": _search,
    }
    handler = handlers.get(command)
    if handler is None:
        print(f"yoke memory: unknown command {command!r}\n{USAGE}", file=sys.stderr)
        return 2
    if command not in ("list", "ls") and not rest:
        print(f"yoke memory {command}: say which memory (or words, for search)\n{USAGE}", file=sys.stderr)
        return 2
    from yoke.config.settings import load_settings
    from yoke.memory.auto import resolve_auto_memory

    settings = load_settings(Path.cwd())
    config = resolve_auto_memory(Path.cwd(), settings=settings)
    return handler(config, rest)


def _list(config, rest: list[str]) -> int:
    from yoke.memory.store import list_memories, load_index

    state = "on" if config.enabled else f"off ({config.why_off})"
    print(f"Auto memory: {state}\nDirectory: {config.directory}")
    memories = list_memories(config.directory) if config.directory.is_dir() else []
    if not memories:
        print("No memories yet.")
        return 0
    for memory in memories:
        rel = memory.path.relative_to(config.directory).as_posix()
        flags = " (expired)" if memory.expired() else ""
        kind = f"[{memory.type}] " if memory.type else ""
        print(
            f"  {rel:<36} {kind}{memory.name}{flags}"
            + (f" — {memory.description}" if memory.description else "")
        )
    index = load_index(config.directory)
    note = f"; MEMORY.md: {index.total_lines} lines" + (", cut when loaded" if index.truncated else "")
    print(f"{len(memories)} memor{'y' if len(memories) == 1 else 'ies'}{note}")
    return 0


def _find(config, name: str):
    from yoke.memory.store import list_memories

    memories = list_memories(config.directory) if config.directory.is_dir() else []
    wanted = name.strip().lower()
    matches = [
        m
        for m in memories
        if wanted
        in (
            m.path.name.lower(),
            m.path.stem.lower(),
            m.path.relative_to(config.directory).as_posix().lower(),
            m.name.strip().lower(),
        )
    ]
    if not matches:
        print(
            f"yoke memory: no memory named {name!r} in {config.directory} (see yoke memory list)",
            file=sys.stderr,
        )
        return None
    if len(matches) > 1:
        files = ", ".join(m.path.name for m in matches)
        print(f"yoke memory: {name!r} matches several memories ({files}); use the file name", file=sys.stderr)
        return None
    return matches[0]


def _show(config, rest: list[str]) -> int:
    memory = _find(config, " ".join(rest))
    if memory is None:
        return 1
    print(f"# {memory.path}")
    print(memory.path.read_text(encoding="utf-8", errors="replace").rstrip())
    return 0


def _forget(config, rest: list[str]) -> int:
    from yoke.memory.store import forget

    code = 0
    for name in rest:
        memory = _find(config, name)
        if memory is None:
            code = 1
            continue
        forget(config.directory, memory.path)
        print(f"Forgot {memory.path.name}")
    return code


def _search(config, rest: list[str]) -> int:
    from yoke.memory.recall import RecallIndex
    from yoke.memory.session import index_db_path
    from yoke.session.transcript import yoke_home

    index = RecallIndex(config.directory, index_db_path(yoke_home(), config.directory))
    hits = index.search(" ".join(rest))
    index.close()
    if not hits:
        print("No matching memories.")
        return 0
    for hit in hits:
        print(
            f"  {hit.score:6.2f}  {hit.path.name:<36} {hit.name}"
            + (f" — {hit.description}" if hit.description else "")
        )
    return 0


def _extract(payload: Path) -> int:
    """The detached end-of-session extraction (started by the session; not for people)."""
    import asyncio

    from yoke.memory.extract import run_extraction

    try:
        written = asyncio.run(run_extraction(payload))
    except Exception as exc:  # no one is watching: one line in the log
        print(f"yoke memory extract: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    for path in written:
        print(f"yoke memory extract: wrote {path}", file=sys.stderr)
    return 0


# ---- `# note` in a headless prompt --------------------------------------------------------------------


def save_note_headless(args: Namespace, note: str) -> int:
    """Save the note without a model call and report it in the chosen output format."""
    import json
    import os

    from yoke.memory.note import save_note, target_path

    path = target_path(args.memory_target or "project", Path.cwd(), os.environ)
    try:
        save_note(note, path)
    except OSError as exc:
        print(f"yoke: cannot save the note to {path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    message = f"Noted in {path}"
    if args.output_format == "text":
        print(message)
        return 0
    from yoke import events as ev
    from yoke.providers.base import Usage
    from yoke.wire.shapes import result_object

    result = ev.Result("completed", False, message, 0, 0, 0, 0.0, Usage(), {}, [])
    print(json.dumps(result_object(result, args.session_id or new_uuid())))
    return 0

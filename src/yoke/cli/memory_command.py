"""`yoke memory list|show|forget|search`: look at (and prune) this repository's auto memory; plus the
`# note` shortcut's headless front-end and the hidden `yoke memory extract` the session starts."""

from __future__ import annotations

import sys
from argparse import Namespace
from pathlib import Path

from yoke.ids import new_uuid
from yoke.session.admin import memory

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
    return handler(memory.auto_memory(Path.cwd()), rest)


def _list(config, rest: list[str]) -> int:
    state = "on" if config.enabled else f"off ({config.why_off})"
    print(f"Auto memory: {state}\nDirectory: {config.directory}")
    memories = memory.memories(config.directory)
    if not memories:
        print("No memories yet.")
        return 0
    for one in memories:
        rel = one.path.relative_to(config.directory).as_posix()
        flags = " (expired)" if one.expired() else ""
        kind = f"[{one.type}] " if one.type else ""
        print(f"  {rel:<36} {kind}{one.name}{flags}" + (f" — {one.description}" if one.description else ""))
    lines, truncated = memory.index_size(config.directory)
    note = f"; MEMORY.md: {lines} lines" + (", cut when loaded" if truncated else "")
    print(f"{len(memories)} memor{'y' if len(memories) == 1 else 'ies'}{note}")
    return 0


def _find(config, name: str):
    matches = memory.matching(config.directory, name)
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
    found = _find(config, " ".join(rest))
    if found is None:
        return 1
    print(f"# {found.path}")
    print(found.path.read_text(encoding="utf-8", errors="replace").rstrip())
    return 0


def _forget(config, rest: list[str]) -> int:
    code = 0
    for name in rest:
        found = _find(config, name)
        if found is None:
            code = 1
            continue
        memory.forget(config.directory, found.path)
        print(f"Forgot {found.path.name}")
    return code


def _search(config, rest: list[str]) -> int:
    hits = memory.search(config.directory, " ".join(rest))
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

    try:
        written = asyncio.run(memory.extract(payload))
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

    path = memory.note_file(args.memory_target or "project", Path.cwd(), os.environ)
    try:
        memory.save_note(note, path)
    except OSError as exc:
        print(f"yoke: cannot save the note to {path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    message = f"Noted in {path}"
    if args.output_format == "text":
        print(message)
        return 0
    from yoke import events as ev
    from yoke.wire.shapes import result_object

    result = ev.Result("completed", False, message, 0, 0, 0, 0.0, ev.Usage(), {}, [])
    print(json.dumps(result_object(result, args.session_id or new_uuid())))
    return 0

"""A repository's auto memory as `yoke memory` shows and prunes it, the `# note` shortcut, and the detached
end-of-session extraction the session starts (`yoke memory extract PAYLOAD`). docs/memory.md."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any


def auto_memory(cwd: Path) -> Any:
    """Where `cwd`'s auto memory lives and whether it is on (`enabled`, `why_off`, `directory`), from the
    settings a session there would read."""
    from yoke.config.settings import load_settings
    from yoke.memory.auto import resolve_auto_memory

    return resolve_auto_memory(cwd, settings=load_settings(cwd))


def memories(directory: Path) -> list[Any]:
    """The memories in `directory` (`path`, `name`, `type`, `description`, `expired()`); [] when it is absent."""
    from yoke.memory.store import list_memories

    return list_memories(directory) if directory.is_dir() else []


def index_size(directory: Path) -> tuple[int, bool]:
    """MEMORY.md's lines, and whether loading it cuts it."""
    from yoke.memory.store import load_index

    index = load_index(directory)
    return index.total_lines, index.truncated


def matching(directory: Path, name: str) -> list[Any]:
    """The memories `name` names: by file name, stem, path inside `directory` or `name:`, without case."""
    wanted = name.strip().lower()
    return [
        m
        for m in memories(directory)
        if wanted
        in (
            m.path.name.lower(),
            m.path.stem.lower(),
            m.path.relative_to(directory).as_posix().lower(),
            m.name.strip().lower(),
        )
    ]


def forget(directory: Path, path: Path) -> bool:
    """Delete a memory file and its MEMORY.md line."""
    from yoke.memory.store import forget as delete

    return delete(directory, path)


def search(directory: Path, words: str) -> list[Any]:
    """What recall would pick for a prompt made of `words` (`score`, `path`, `name`, `description`)."""
    from yoke.memory.recall import RecallIndex
    from yoke.memory.session import index_db_path
    from yoke.session.transcript import yoke_home

    index = RecallIndex(directory, index_db_path(yoke_home(), directory))
    try:
        return index.search(words)
    finally:
        index.close()


async def extract(payload: Path) -> list[Path]:
    """Run the end-of-session extraction described by `payload`; returns the memory files written."""
    from yoke.memory.extract import run_extraction

    return await run_extraction(payload)


def note_file(target: str, cwd: Path, env: Mapping[str, str]) -> Path:
    """The memory file a note for `target` (project, user, local) goes to."""
    from yoke.memory.note import target_path

    return target_path(target, cwd, env)


def save_note(note: str, path: Path) -> None:
    """Append `note` to the memory file `path`; OSError when it cannot be written."""
    from yoke.memory.note import save_note as save

    save(note, path)

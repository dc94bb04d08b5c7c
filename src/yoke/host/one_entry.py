"""One session, one host entry. A hosted session's process holds its transcript's lock (`session/lock.py`)
for as long as it runs, so the lock is what the host asks before it launches a session or takes over an
entry: a session already running in this host, under another host on the same Yoke home (a second
runtime folder, or one removed under a running host), or in a terminal, is refused rather than started
twice. `stop` of a session another host runs ends that session's process, so `stopped` is true."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

from yoke.host import records


def resume_target(resume: Any) -> tuple[str, str | None]:
    """`start`'s `resume`: a session id, or a transcript's path (`--resume /path/ID.jsonl`), whose session
    id is the file's name: the entry is named by the id, never by the path."""
    text = str(resume)
    if text.endswith(".jsonl") or os.sep in text:
        return Path(text).expanduser().stem, str(Path(text).expanduser())
    return text, None


def refuse_if_running(host: Any, short: str, session_id: str, cwd: str, env: dict[str, str]) -> None:
    """ValueError (a `failed` reply) when the session runs anywhere; nothing otherwise."""
    mine = host.sessions.get(short)
    if mine is not None and mine.live:
        raise ValueError(f"session {short} is already running in this host (yoke attach {short})")
    record = records.read_record(short)
    if record is not None and records.public_row(record)["state"] != "stopped":
        raise ValueError(
            f"session {short} is already running under another host (pid {record.get('hostPid')}); "
            f"yoke stop {short} ends it"
        )
    holder = transcript_holder(session_id, cwd, env)
    if holder is not None:
        who = f"process {holder}" if holder else "another process"
        raise ValueError(f"session {short} is in use by {who}; wait for it to end, or use --fork-session")


def transcript_holder(session_id: str, cwd: str, env: dict[str, str]) -> int | None:
    """Who holds the session's transcript lock now (`store.session_holder`), or None."""
    from yoke.session.store import session_holder
    from yoke.session.transcript import yoke_home

    return session_holder(session_id, cwd, yoke_home(env))


async def stop_foreign(query: str, force: bool) -> str | None:
    """A session whose record says another live host runs it: end its process (SIGTERM, the transcript is
    closed; SIGKILL after 10 s or with `force`). Its id, or None when no such session runs."""
    record = records.find(query)
    if record is None or records.public_row(record)["state"] == "stopped":
        return None
    pid = record.get("pid")
    if not isinstance(pid, int) or record.get("hostPid") == os.getpid():
        return None
    try:
        os.kill(pid, signal.SIGKILL if force else signal.SIGTERM)
        for _ in range(100):
            if not records.pid_alive(pid):
                break
            await asyncio.sleep(0.1)
        else:
            os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return str(record["id"])

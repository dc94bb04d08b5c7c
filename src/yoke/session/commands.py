"""The work behind `yoke sessions list` and `yoke rewind`; each returns the text to print and raises
SessionError / CheckpointError with a one-line message when the user must change something."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from yoke.session.checkpoints import CheckpointError, Checkpoints
from yoke.session.records import system_record
from yoke.session.store import (
    SessionError,
    _prompt_text,
    find_session,
    latest_session,
    list_sessions,
    load_conversation,
)
from yoke.session.transcript import Transcript, load_records, yoke_home

PROMPT_WIDTH = 70


def _one_line(text: str, width: int = PROMPT_WIDTH) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def sessions_list_text(cwd: str | Path, home: Path | None = None, limit: int = 20) -> str:
    sessions = list_sessions(cwd, home, limit=limit)
    if not sessions:
        return f"No sessions yet in {cwd}."
    lines = [f"{'SESSION':36}  {'MODIFIED':16}  {'COST':>8}  FIRST PROMPT"]
    for info in sessions:
        lines.append(
            f"{info.id:36}  {info.modified:%Y-%m-%d %H:%M}  {'$' + format(info.cost_usd, '.4f'):>8}  "
            f"{_one_line(info.first_prompt) or '(no prompt)'}"
        )
    lines.append("Resume one with: yoke --resume <session>   (yoke -c continues the newest)")
    return "\n".join(lines)


def foreign_sessions_text(source: str, limit: int = 30) -> str:
    """`yoke sessions list --from codex|gemini|opencode`: that agent's sessions, newest first."""
    from yoke.session.foreign import NAMES, SOURCES, list_foreign

    if source not in SOURCES:
        raise LookupError(f"--from takes one of {', '.join(SOURCES)}")
    sessions = list_foreign(source, limit=limit)
    if not sessions:
        return f"No {NAMES[source]} sessions found."
    lines = [f"{'SESSION':48}  {'MODIFIED':16}  {'MSGS':>4}  {'FOLDER':30}  FIRST PROMPT"]
    for info in sessions:
        lines.append(
            f"{info.ref:48}  {info.modified:%Y-%m-%d %H:%M}  {info.messages:>4}  {info.cwd[-30:]:30}  "
            f"{_one_line(info.first_prompt) or '(no prompt)'}"
        )
    lines.append(
        f"Continue one in Yoke with: yoke --resume {source}:<id>   (a new Yoke session; the original is only read)"
    )
    return "\n".join(lines)


def prompts_of(path: Path) -> list[tuple[str, str]]:
    """(uuid, prompt text) of every user prompt in a transcript, in order."""
    prompts = []
    for record in load_records(path):
        if record.get("type") == "user" and not record.get("isSidechain") and record.get("uuid"):
            text = _prompt_text(record)
            if text:
                prompts.append((record["uuid"], text))
    return prompts


def _locate_message(
    message_id: str, cwd: str | Path, home: Path | None, session: str | None
) -> tuple[Path, str]:
    """The transcript holding the user message `message_id` (full uuid or unique prefix) and its uuid."""
    if session:
        candidates = [find_session(session, cwd, home)]
    else:
        candidates = [info.path for info in list_sessions(cwd, home)]
    for path in candidates:
        matches = [uuid for uuid, _ in prompts_of(path) if uuid == message_id or uuid.startswith(message_id)]
        if len(matches) > 1:
            raise SessionError(f"Message id prefix {message_id!r} is ambiguous; give more characters.")
        if matches:
            return path, matches[0]
    raise SessionError(
        f"No user message {message_id!r} in this directory's sessions (run `yoke rewind` alone to list them)."
    )


def rewind_command(
    message_id: str | None,
    *,
    cwd: str | Path,
    home: Path | None = None,
    session: str | None = None,
    restore_files: bool = True,
    restore_conversation: bool = True,
    entrypoint: str = "cli",
    on_conflict: str = "refuse",
) -> str:
    """Rewind a session to just before the user message `message_id`: restore the files its turns changed
    and/or cut the conversation back (a `rewind` record, so `yoke -c` continues from there). Without a
    message id, list the user messages of the session (the newest one by default) to choose from."""
    home = home or yoke_home()
    if not message_id:
        path = find_session(session, cwd, home) if session else latest_session(cwd, home)
        if path is None:
            return f"No sessions yet in {cwd}."
        lines = [f"User messages of session {path.stem} (rewind with: yoke rewind <message-id>):"]
        lines += [f"  {uuid}  {_one_line(text)}" for uuid, text in prompts_of(path)]
        return "\n".join(lines)
    path, uuid = _locate_message(message_id, cwd, home, session)
    transcript = _claimed(path)  # nothing is changed beside a running session
    try:
        return _rewind(transcript, path, uuid, restore_files, restore_conversation, entrypoint, on_conflict)
    finally:
        transcript.close()


def _rewind(
    transcript: Transcript,
    path: Path,
    uuid: str,
    restore_files: bool,
    restore_conversation: bool,
    entrypoint: str,
    on_conflict: str = "refuse",
) -> str:
    later = _uuids_after(path, uuid)
    checkpoints = Checkpoints(path.parent / path.stem)
    restored = checkpoints.rewind(uuid, restore_files=restore_files, later=later, on_conflict=on_conflict)  # type: ignore[arg-type]
    lines = []
    if restore_files:
        if restored:
            lines.append(f"Restored {len(restored)} file(s) to their state before message {uuid}:")
            lines += [f"  {p}" for p in restored]
        else:
            lines.append("No files were changed by this session since that message; nothing to restore.")
        lines += rewind_notes(checkpoints)
    if restore_conversation:
        _write_rewind(transcript, path, uuid, entrypoint)
        lines.append(
            f"Conversation of session {path.stem} cut back to before that message; `yoke -c` continues there."
        )
    return "\n".join(lines)


def rewind_notes(checkpoints: Checkpoints) -> list[str]:
    """What a tree rewind left as it was (kept outside edits, files too large to snapshot), and how to undo it."""
    done = checkpoints.last_rewind
    if done is None:
        return []
    lines = []
    if done.kept:
        lines.append(
            f"Kept {len(done.kept)} file(s) changed outside this session: " + ", ".join(done.kept[:10])
        )
    if done.skipped:
        lines.append(
            f"Left {len(done.skipped)} file(s) too large to snapshot as they are: "
            + ", ".join(done.skipped[:10])
        )
    lines.append("Undo this with /rewind undo (or `yoke rewind --undo`).")
    return lines


def undo_rewind_command(
    *, cwd: str | Path, home: Path | None = None, session: str | None = None, on_conflict: str = "refuse"
) -> str:
    """Put the files back as they were before the session's latest rewind."""
    home = home or yoke_home()
    path = find_session(session, cwd, home) if session else latest_session(cwd, home)
    if path is None:
        return f"No sessions yet in {cwd}."
    transcript = _claimed(path)
    lines: list[str] = []
    try:
        rewind = _last_rewind_record(path)
        if rewind is not None:  # the conversation comes back too, when nothing was said since
            _write_undone(transcript, path, rewind)
            lines.append("The conversation cut by the latest rewind is back.")
        checkpoints = Checkpoints(path.parent / path.stem)
        try:
            restored = checkpoints.undo_rewind(on_conflict)  # type: ignore[arg-type]
        except CheckpointError:
            if not lines:
                raise
            return "\n".join(lines)
    finally:
        transcript.close()
    lines.append(f"Undid the latest rewind: {len(restored)} file(s) put back as they were before it.")
    lines += [f"  {p}" for p in restored]
    return "\n".join(lines + rewind_notes(checkpoints)[:-1])


def _last_rewind_record(path: Path) -> dict[str, Any] | None:
    """The newest `rewind` record, when no message follows it and no undo voided it."""
    last: dict[str, Any] | None = None
    for record in load_records(path):
        kind, subtype = record.get("type"), record.get("subtype")
        if kind == "system" and subtype == "rewind":
            last = record
        elif kind == "system" and subtype == "rewind_undone" or kind in ("user", "assistant"):
            last = None
    return last


def _write_undone(transcript: Transcript, path: Path, rewind: dict[str, Any]) -> None:
    loaded = load_conversation(path)
    transcript.append(
        system_record(
            "rewind_undone",
            session_id=loaded.session_id,
            cwd=loaded.cwd or str(Path.cwd()),
            parent_uuid=rewind.get("uuid"),
            fields={"rewindUuid": rewind.get("uuid"), "content": "Undid the rewind"},
            entrypoint="cli",
        )
    )


def _uuids_after(path: Path, uuid: str) -> list[str]:
    seen = False
    after: list[str] = []
    for record in load_records(path):
        if seen and isinstance(record.get("uuid"), str):
            after.append(record["uuid"])
        if record.get("uuid") == uuid:
            seen = True
    return after


def _claimed(path: Path) -> Transcript:
    from yoke.session.lock import SessionBusy

    transcript = Transcript(path)
    try:
        transcript.claim()
    except SessionBusy as exc:
        raise SessionError(str(exc)) from None
    return transcript


def _write_rewind(transcript: Transcript, path: Path, uuid: str, entrypoint: str) -> None:
    loaded = load_conversation(path)
    record: dict[str, Any] = system_record(
        "rewind",
        session_id=loaded.session_id,
        cwd=loaded.cwd or str(Path.cwd()),
        parent_uuid=loaded.last_uuid,
        fields={"targetUuid": uuid, "content": f"Rewound to before message {uuid}"},
        entrypoint=entrypoint,
    )
    transcript.append(record)

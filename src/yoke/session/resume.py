"""Assembly: the session's identity and history. A new id and transcript, or a resumed, continued or
forked conversation (one writer per transcript, claimed before its history is read)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from yoke.ids import new_uuid
from yoke.records import Record
from yoke.session.engine import SessionError
from yoke.session.options import SessionOptions


class Loaded(Record):
    """What resuming brought back."""

    __slots__ = ("session_id", "transcript", "chain", "conversation")

    def __init__(self, session_id: str, transcript: Any, chain: Any, conversation: Any) -> None:
        self.session_id = session_id
        self.transcript = transcript
        self.chain = chain
        self.conversation = conversation  # store.LoadedSession or None


def load_session(options: SessionOptions, cwd: Path, home: Path) -> Loaded:
    """The session id, transcript and record chain, and (when resuming) what was loaded. The transcript is
    claimed (one writer per session) before its history is read, so nothing is appended after the read."""
    from yoke.session.records import RecordChain
    from yoke.session.transcript import transcript_path

    conversation = None
    parent_uuid = None
    session_id = options.session_id or new_uuid()
    transcript = None
    if options.continue_session or options.resume is not None:
        conversation, session_id, transcript = _resume(options, cwd, home, session_id)
        if conversation is not None:
            parent_uuid = conversation.last_uuid
    if transcript is None:
        path = transcript_path(cwd, session_id, home)
        if options.session_id and path.exists():
            raise SessionError(f"Session ID {session_id} is already in use.")
        transcript = _claimed(path, options.persist)
    chain = RecordChain(
        session_id=session_id, cwd=str(cwd), entrypoint=options.entrypoint, parent_uuid=parent_uuid
    )
    return Loaded(session_id, transcript, chain, conversation)


def resumed_messages(conversation: Any, model: str, env: Any, warnings: list[str]) -> list:
    """The resumed history, under the same limit new prompts get: a message that alone fills the model's
    window is cut down rather than uploaded whole (and refused) on every turn."""
    if conversation is None:
        return []
    from yoke.context.oversize import shrink_oversized
    from yoke.providers.tokens import context_window

    messages, cut = shrink_oversized(list(conversation.messages), context_window(model, env))
    if cut:
        warnings.append(
            f"{cut} message(s) of the resumed history were larger than {model}'s context window and were "
            "shortened to their beginning and end"
        )
    return messages


def _claimed(path: Path, persist: bool) -> Any:
    from yoke.session.lock import SessionBusy
    from yoke.session.transcript import Transcript

    transcript = Transcript(path, enabled=persist)
    try:
        transcript.claim()
    except SessionBusy as exc:
        raise SessionError(str(exc)) from None
    except OSError:
        pass  # an unwritable home: the first append says so and the run goes on unsaved
    return transcript


def _resume(options: SessionOptions, cwd: Path, home: Path, session_id: str) -> tuple[Any, str, Any]:
    from yoke.session import store

    transcript = None
    imported = None
    try:
        if options.continue_session and not options.resume:
            path = store.latest_session(cwd, home)
            if path is None:
                return None, session_id, None  # as Claude Code: nothing to continue starts a new session
        else:
            if not options.resume:
                raise SessionError("--resume needs a session id or path in headless mode", usage=True)
            imported = _foreign(options, cwd, home)
            path = imported[0] if imported else store.find_session(options.resume, cwd, home)
        forked = options.fork_session or options.session_id
        if not forked:
            path = _adopted(path, cwd, home)  # a Claude Code session goes on in Yoke's own copy
        if forked:
            # A fork gets its own transcript holding a copy of the history (fresh uuids, forkedFrom).
            from yoke.session.fork import fork_session

            session_id, path = fork_session(path, cwd, home, options.session_id or None)
        transcript = _claimed(path, options.persist)
        conversation = store.load_conversation(path)
        if imported:
            conversation.repairs.append(imported[1])  # what the import left out, said once
    except (FileNotFoundError, LookupError, ValueError) as exc:
        if transcript is not None:
            transcript.close()
        raise SessionError(str(exc)) from None
    return conversation, (session_id if forked else conversation.session_id), transcript


def _foreign(options: SessionOptions, cwd: Path, home: Path) -> tuple[Path, str] | None:
    """`codex:<id>`, `gemini:<id>`, `opencode:<id>`: the other agent's session written as a new Yoke
    session (its records' `forkedFrom` name the source), which is then resumed; with the import's note."""
    from yoke.session.foreign import import_session, parse_ref

    if parse_ref(options.resume) is None:
        return None
    return import_session(str(options.resume), cwd, home, options.env)


def _adopted(path: Path, cwd: Path, home: Path) -> Path:
    from yoke.session.claude_transcripts import adopt, is_under

    if is_under(path, home):
        return path
    return adopt(path, cwd, home)

"""`/resume` and `/rewind`: reopening the session on another conversation, or on an earlier point of this
one (files restored through the session's checkpoints)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text

from yoke.ui.commands import command

# ---- sessions: resume, rewind ------------------------------------------------------------------------------


@command(
    "resume",
    "Pick an earlier conversation to continue (Yoke's, Claude Code's, Codex's, Gemini CLI's, opencode's)",
)
async def _resume(ui: Any, args: str) -> None:
    if args:
        await _reopen(ui, args)
        return
    choices = [
        (f"{_label(info)}{'  (Claude Code)' if claude else ''}", info, claude)
        for info, claude in _resumable(ui)
    ]
    foreign = [(f"{name} · {_label(info)}", info, False) for name, info in _foreign(ui)]
    if not choices and not foreign:
        ui.say("  No other conversations in this folder yet.", "dim")
        return
    everything = choices + foreign
    index = await ui.choose(ui.painter.line("Resume which conversation?", "bold"), [c[0] for c in everything])
    if index is None:
        return
    _, info, claude = everything[index]
    if index >= len(choices):
        # Another agent's session: imported as a new Yoke session (its files are only read).
        await _reopen(ui, info.ref)
        return
    # A Claude Code transcript is copied into Yoke's store (a fork): Claude Code's file is never written.
    await _reopen(ui, str(info.path) if claude else info.id, fork=claude)


def _label(info: Any) -> str:
    prompt = " ".join(info.first_prompt.split())[:48] or "(no prompt)"
    return f"{info.modified:%m-%d %H:%M}  {info.messages:>3} msgs  {prompt}"


def _foreign(ui: Any, per_source: int = 5) -> list[tuple[str, Any]]:
    """This folder's sessions of the other agents Yoke imports from, a section per agent, newest first."""
    from yoke.session.foreign import NAMES, SOURCES, list_foreign

    out: list[tuple[str, Any]] = []
    for source in SOURCES:
        try:
            infos = list_foreign(source, ui.env, cwd=ui.cwd, limit=per_source)
        except (OSError, LookupError):
            continue
        out.extend((NAMES[source], info) for info in infos)
    return out


def _resumable(ui: Any, limit: int = 9) -> list[tuple[Any, bool]]:
    """This folder's sessions, newest first: Yoke's, then Claude Code's (from its own projects folder)."""
    from yoke.config.settings import claude_config_dir
    from yoke.session.store import list_sessions
    from yoke.session.transcript import yoke_home

    ours = [(s, False) for s in list_sessions(ui.cwd, yoke_home(ui.env), limit=30) if s.id != ui.session.id]
    try:
        theirs = [(s, True) for s in list_sessions(ui.cwd, claude_config_dir(None, ui.env), limit=30)]
    except OSError:
        theirs = []
    both = sorted(ours + theirs, key=lambda pair: pair[0].modified, reverse=True)
    return both[:limit]


async def _reopen(ui: Any, session_id: str, fork: bool = False) -> None:
    from yoke.session import SessionError

    try:
        await ui.open_session(resume=session_id, fork_session=fork)
    except SessionError as exc:
        ui.say(f"  {exc}", "red")
        await ui.open_session()
        return
    _replay_tail(ui)
    ui.say(f"  Resumed session {ui.session.id}", "dim")


def _replay_tail(ui: Any, count: int = 6) -> None:
    """The last exchanges of a resumed conversation, so the screen shows where it stands."""
    for message in ui.session.messages[-count:]:
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
        text = "".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")
        if not text.strip():
            continue
        if message.get("role") == "user":
            from yoke.session.store import split_shell_context
            from yoke.ui.local_actions import shell_lines

            commands, text = split_shell_context(text)
            for command_line, output in commands:  # `!cmd` runs, shown as they were, not as tags
                ui.emit(ui.painter.ansi(Text(f"! {command_line}", style="magenta")))
                ui.say(shell_lines(output, limit=3), "dim")
            if text:
                ui.emit(ui.painter.ansi(Text(f"> {' '.join(text.split())[:200]}", style="bold")))
        else:
            ui.emit(ui.painter.markdown(text))


@command("rewind", "Go back to an earlier message (code, conversation or both); /rewind undo reverses one")
async def _rewind(ui: Any, args: str) -> None:
    from yoke.session.commands import prompts_of

    session = ui.session
    path = session.transcript_path
    if args.strip() == "undo":
        await _reopened(ui, lambda on_conflict: _undo(ui, path, on_conflict))
        return
    prompts = prompts_of(path) if path.exists() else []
    if not prompts:
        ui.say("  Nothing to rewind yet.", "dim")
        return
    recent = list(reversed(prompts))[:9]
    options = [" ".join(text.split())[:70] for _, text in recent]
    index = await ui.choose(ui.painter.line("Rewind to before which message?", "bold"), options)
    if index is None:
        return
    uuid, text = recent[index]
    modes = ["Restore code and conversation", "Restore conversation", "Restore code", "Never mind"]
    how = await ui.choose(ui.painter.line(f"Rewind to before: {options[index]}", "bold"), modes)
    if how is None or how == 3:
        return
    done = await _reopened(ui, lambda on_conflict: _rewind_to(ui, path, uuid, how, on_conflict))
    if done and how in (0, 1):
        ui.prefill(text)  # the message comes back to the prompt, to edit and send again


def _rewind_to(ui: Any, path: Path, uuid: str, how: int, on_conflict: str) -> str:
    from yoke.session.commands import rewind_command

    return rewind_command(
        uuid,
        cwd=ui.cwd,
        home=_home(ui),
        session=str(path),
        restore_files=how in (0, 2),
        restore_conversation=how in (0, 1),
        on_conflict=on_conflict,
    )


def _undo(ui: Any, path: Path, on_conflict: str) -> str:
    from yoke.session.commands import undo_rewind_command

    return undo_rewind_command(cwd=ui.cwd, home=_home(ui), session=str(path), on_conflict=on_conflict)


async def _reopened(ui: Any, work: Any) -> bool:
    """Run `work(on_conflict)` with the session closed (the rewind writes its transcript), then reopen it.
    Files changed outside the session would be overwritten: the user says whether to keep them."""
    from yoke.session.rewind import RewindConflict

    session_id = ui.session.id
    await ui.session.close("other")
    ui.session = None
    done = False
    try:
        summary = work("refuse")
        done = True
    except RewindConflict as exc:
        ui.say(f"  {exc}", "yellow")
        choices = ["Keep their changes, restore the rest", "Overwrite them too", "Cancel"]
        pick = await ui.choose(ui.painter.line("Files were changed outside this session", "bold"), choices)
        summary = "Nothing was restored."
        if pick in (0, 1):
            try:
                summary = work("keep" if pick == 0 else "overwrite")
                done = True
            except (LookupError, ValueError, OSError) as again:
                summary = f"Could not rewind: {again}"
    except (LookupError, ValueError, OSError) as exc:
        summary = f"Could not rewind: {exc}"
    await ui.open_session(resume=session_id)
    ui.say("  " + summary.replace("\n", "\n  "), "dim")
    return done


def _home(ui: Any) -> Path:
    from yoke.session.transcript import yoke_home

    return yoke_home(ui.env)


# ---- the session host: remote control ------------------------------------------------------------------------


@command("remote-control", "Make this session reachable from the remote-control page and yoke attach")
async def _remote_control(ui: Any, args: str) -> None:
    """Starts a session host if none runs, registers this session with it (the terminal stays its screen)
    and has the host serve the page for it (docs/remote.md, "Any session")."""
    registrar = getattr(ui, "registrar", None)
    if registrar is None:  # `yoke attach`: the session is the host's already
        ui.say(
            "  This session runs in the session host already (yoke remote-control serves its page).", "dim"
        )
        return
    await registrar.switch_on()

"""Built-in `/` commands of the terminal, `!` shell commands, and the table `/` completion shows."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

Handler = Callable[[Any, str], Awaitable[None]]
BUILTINS: dict[str, tuple[str, Handler | None]] = {}
ALIASES = {"quit": "exit", "reset": "clear", "new": "clear", "checkpoint": "rewind", "continue": "resume"}
SHELL_CONTEXT_KEY = "_shell_context"
INIT_PROMPT = (
    "Please analyse this codebase and create a CLAUDE.md file in its root with what a coding agent working "
    "here needs: the commands to build, lint and test (and to run a single test), and the high-level "
    "architecture that takes reading several files to understand. If a CLAUDE.md exists, improve it."
)


def command(name: str, description: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        BUILTINS[name] = (description, handler)
        return handler

    return register


def later(name: str, description: str) -> None:
    BUILTINS[name] = (description, None)


def command_table(cwd: str) -> list[tuple[str, str]]:
    """(name, description) of every command `/` completes: built-ins, then custom commands."""
    rows = [(name, description) for name, (description, _) in BUILTINS.items()]
    rows += [
        (name, description) for name, description in custom_commands(cwd).items() if name not in BUILTINS
    ]
    return rows


def custom_commands(cwd: str) -> dict[str, str]:
    """`.claude/commands/*.md` of the project and the user: name -> description (first line)."""
    found: dict[str, str] = {}
    home = Path(os.environ.get("HOME") or Path.home())
    config = Path(os.environ.get("CLAUDE_CONFIG_DIR") or home / ".claude")
    for folder, label in ((Path(cwd) / ".claude" / "commands", "project"), (config / "commands", "user")):
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*.md")):
            found.setdefault(path.stem, f"{_description(path)} ({label})")
    return found


def _description(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")[:2000]
    except OSError:
        return ""
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        for line in lines[1:]:
            if line.strip() == "---":
                break
            if line.startswith("description:"):
                return line.split(":", 1)[1].strip().strip("\"'")
        lines = lines[lines[1:].index("---") + 2 :] if "---" in lines[1:] else []
    return next((line.strip() for line in lines if line.strip()), "")[:80]


async def run_command(ui: Any, text: str) -> bool:
    """Run a built-in command; False when `text` is not one (it then goes to the session as a prompt)."""
    name, _, args = text[1:].partition(" ")
    name = ALIASES.get(name, name)
    if name not in BUILTINS:
        if name in custom_commands(ui.cwd):
            return False
        ui.say(f"Unknown command: /{name} (type / to see the commands)", "yellow")
        return True
    ui.emit(ui.painter.ansi(Text(f"> {text}", style="dim")))
    handler = BUILTINS[name][1]
    if handler is None:
        ui.say(f"  /{name} is not available in Yoke's terminal yet.", "dim")
        return True
    await handler(ui, args.strip())
    return True


# ---- conversation ----------------------------------------------------------------------------------------


@command("help", "Show the commands and keys")
async def _help(ui: Any, args: str) -> None:
    table = Table.grid(padding=(0, 2))
    for name, description in command_table(ui.cwd):
        table.add_row(Text("/" + name, style="bold"), Text(description, style="dim"))
    keys = Text(
        "\nenter send · shift+enter, alt+enter or \\ then enter: new line · esc interrupt · esc esc rewind\n"
        "shift+tab cycle permission modes · ctrl+o expand output · ctrl+r search history · "
        "ctrl+c twice or ctrl+d exit\n!cmd run a shell command · @path mention a file",
        style="dim",
    )
    ui.emit(ui.painter.ansi(table, keys))


@command("clear", "Start a new conversation (the old one stays saved)")
async def _clear(ui: Any, args: str) -> None:
    await ui.open_session()
    ui.say("  (conversation cleared: a new session)", "dim")


@command("compact", "Summarise the conversation to free context [instructions]")
async def _compact(ui: Any, args: str) -> None:
    await ui.turn("", echo=False, compact=args)


@command("exit", "Leave Yoke")
async def _exit(ui: Any, args: str) -> None:
    ui.exit(0)


@command("cost", "Tokens and cost of this session")
async def _cost(ui: Any, args: str) -> None:
    session = ui.session
    usage = session.agent.ledger.model_usage()
    lines = [f"  Total cost:  ${session.total_cost_usd:.4f}"]
    for model, u in usage.items():
        lines.append(
            f"  {model}:  {u.input_tokens:,} input, {u.output_tokens:,} output, "
            f"{u.cache_read_input_tokens:,} cache read, {u.cache_creation_input_tokens:,} cache write "
            f"(${u.cost_usd:.4f})"
        )
    if not usage:
        lines.append("  No model requests yet.")
    ui.say("\n".join(lines))


@command("context", "What fills the context window")
async def _context(ui: Any, args: str) -> None:
    from yoke.ui.context_view import context_grid

    report = await ui.session.context_report()
    ui.emit(ui.painter.ansi(*context_grid(ui.session, report)))


@command("model", "Show or change the model [name]")
async def _model(ui: Any, args: str) -> None:
    session = ui.session
    if not args:
        choices = ["sonnet", "opus", "haiku"]
        header = ui.painter.line(f"Model: {session.model}. Switch to:", "bold")
        index = await ui.choose(header, [*choices, f"Keep {session.model}"])
        if index is None or index >= len(choices):
            return
        args = choices[index]
    try:
        session.set_model(args)
    except ValueError as exc:
        ui.say(f"  {exc}", "red")
        return
    ui.say(f"  Model set to {session.model}")


@command("status", "Version, session, model, mode and working folder")
async def _status(ui: Any, args: str) -> None:
    from yoke import __version__

    s = ui.session
    rows = [
        ("Version", __version__),
        ("Session", s.id),
        ("Folder", str(s.cwd)),
        ("Provider", s.provider_name),
        ("Model", s.model),
        ("Permission mode", s.permission_mode),
        ("Transcript", str(s.transcript_path)),
        ("Cost", f"${s.total_cost_usd:.4f}"),
    ]
    table = Table.grid(padding=(0, 2))
    for key, value in rows:
        table.add_row(Text(key, style="bold"), value)
    ui.emit(ui.painter.ansi(table))


@command("init", "Write a CLAUDE.md describing this project")
async def _init(ui: Any, args: str) -> None:
    await ui.turn(INIT_PROMPT, echo=False)


@command("add-dir", "Let the tools work in another folder for this session <path>")
async def _add_dir(ui: Any, args: str) -> None:
    folder = Path(args).expanduser() if args else None
    if folder is None or not folder.is_dir():
        ui.say("  usage: /add-dir <existing folder>", "yellow")
        return
    folder = folder if folder.is_absolute() else Path(ui.cwd) / folder
    try:
        ui.session.apply_permission_update(
            {"type": "addDirectories", "directories": [str(folder.resolve())], "destination": "session"}
        )
    except ValueError as exc:
        ui.say(f"  {exc}", "red")
        return
    ui.say(f"  Added {folder.resolve()} for this session.")


@command("export", "Write the conversation to a text file [file]")
async def _export(ui: Any, args: str) -> None:
    from yoke.messages import result_text

    target = Path(args or f"yoke-conversation-{ui.session.id[:8]}.txt").expanduser()
    target = target if target.is_absolute() else Path(ui.cwd) / target
    parts = []
    for message in ui.session.messages:
        content = message.get("content")
        text = content if isinstance(content, str) else result_text(content)
        parts.append(f"{'>' if message.get('role') == 'user' else '●'} {text.strip()}\n")
    from yoke.fsutil import replace_file

    replace_file(target, "\n".join(parts).encode("utf-8"))
    ui.say(f"  Conversation exported to {target}")


@command("memory", "Open CLAUDE.md in $EDITOR")
async def _memory(ui: Any, args: str) -> None:
    from prompt_toolkit.application import run_in_terminal

    path = Path(ui.cwd) / "CLAUDE.md"
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"

    def edit() -> None:
        import shlex
        import subprocess

        subprocess.call([*shlex.split(editor), str(path)])

    await run_in_terminal(edit)
    ui.say(f"  Edited {path}", "dim")


@command("doctor", "Check keys, providers and the tools Yoke uses")
async def _doctor(ui: Any, args: str) -> None:
    env = ui.session.agent.executor.ctx.env or os.environ
    checks = [
        ("Provider", f"{ui.session.provider_name} · model {ui.session.model}"),
        ("API key", "set" if env.get("ANTHROPIC_API_KEY") or env.get("OPENAI_API_KEY") else "not set"),
        ("ripgrep", shutil.which("rg") or _bundled_rg() or "missing (Grep/Glob are slower)"),
        ("bubblewrap", shutil.which("bwrap") or "missing (the Bash sandbox is unavailable)"),
        ("git", shutil.which("git") or "missing"),
    ]
    for warning in ui.session.warnings:
        checks.append(("Settings", warning))
    table = Table.grid(padding=(0, 2))
    for key, value in checks:
        table.add_row(Text(key, style="bold"), value)
    ui.emit(ui.painter.ansi(table))


def _bundled_rg() -> str | None:
    try:
        from ripgrep import __file__ as rg  # type: ignore[import-not-found]
    except ImportError:
        return None
    return f"bundled ({Path(rg).parent})"


# ---- sessions: resume, rewind ------------------------------------------------------------------------------


@command("resume", "Pick an earlier conversation to continue (Yoke's and Claude Code's)")
async def _resume(ui: Any, args: str) -> None:
    if args:
        await _reopen(ui, args)
        return
    choices = _resumable(ui)
    if not choices:
        ui.say("  No other conversations in this folder yet.", "dim")
        return
    options = [
        f"{info.modified:%m-%d %H:%M}  {info.messages:>3} msgs  "
        f"{' '.join(info.first_prompt.split())[:48] or '(no prompt)'}{'  (Claude Code)' if claude else ''}"
        for info, claude in choices
    ]
    index = await ui.choose(ui.painter.line("Resume which conversation?", "bold"), options)
    if index is None:
        return
    info, claude = choices[index]
    # A Claude Code transcript is copied into Yoke's store (a fork): Claude Code's file is never written.
    await _reopen(ui, str(info.path) if claude else info.id, fork=claude)


def _resumable(ui: Any, limit: int = 9) -> list[tuple[Any, bool]]:
    """This folder's sessions, newest first: Yoke's, then Claude Code's (from its own projects folder)."""
    from yoke.memory.files import config_dir
    from yoke.session.store import list_sessions
    from yoke.session.transcript import yoke_home

    ours = [(s, False) for s in list_sessions(ui.cwd, yoke_home(ui.env), limit=30) if s.id != ui.session.id]
    try:
        theirs = [(s, True) for s in list_sessions(ui.cwd, config_dir(ui.env), limit=30)]
    except OSError:
        theirs = []
    both = sorted(ours + theirs, key=lambda pair: pair[0].modified, reverse=True)
    return both[:limit]


async def _reopen(ui: Any, session_id: str, fork: bool = False) -> None:
    from yoke.session.engine import SessionError

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
            ui.emit(ui.painter.ansi(Text(f"> {' '.join(text.split())[:200]}", style="bold")))
        else:
            ui.emit(ui.painter.markdown(text))


@command("rewind", "Go back to an earlier message (code, conversation or both)")
async def _rewind(ui: Any, args: str) -> None:
    from yoke.session.commands import _prompts_of, rewind_command

    session = ui.session
    path = session.transcript_path
    prompts = _prompts_of(path) if path.exists() else []
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
    session_id = session.id
    await session.close("other")
    ui.session = None
    try:
        summary = rewind_command(
            uuid,
            cwd=ui.cwd,
            home=_home(ui),
            session=str(path),
            restore_files=how in (0, 2),
            restore_conversation=how in (0, 1),
        )
    except (LookupError, ValueError, OSError) as exc:
        summary = f"Could not rewind: {exc}"
    await ui.open_session(resume=session_id)
    ui.say("  " + summary.replace("\n", "\n  "), "dim")
    if how in (0, 1):
        ui.prefill(text)  # the message comes back to the prompt, to edit and send again


def _home(ui: Any) -> Path:
    from yoke.session.transcript import yoke_home

    return yoke_home(ui.env)


# ---- `!` shell commands --------------------------------------------------------------------------------


async def run_shell(ui: Any, command_line: str) -> None:
    """Run a shell command directly; its output goes to the next prompt as context, as in Claude Code."""
    if not command_line:
        return
    ui.emit(ui.painter.ansi(Text(f"! {command_line}", style="magenta")))
    env = dict(ui.session.agent.executor.ctx.env or os.environ) if ui.session else None
    try:
        proc = await asyncio.create_subprocess_shell(
            command_line,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            stdin=asyncio.subprocess.DEVNULL,
            cwd=ui.cwd,
            env=env,
            start_new_session=True,
        )
        out, _ = await proc.communicate()
    except OSError as exc:
        ui.say(f"  ⎿  {exc}", "red")
        return
    text = out.decode("utf-8", "replace").rstrip()
    lines = text.splitlines() or ["(no output)"]
    shown = "\n".join(("  ⎿  " if i == 0 else "     ") + line for i, line in enumerate(lines[:20]))
    if len(lines) > 20:
        shown += f"\n     … +{len(lines) - 20} lines"
    ui.say(shown, "" if proc.returncode == 0 else "red")
    context = getattr(ui, SHELL_CONTEXT_KEY, [])
    context.append(f"<bash-input>{command_line}</bash-input>\n<bash-stdout>{text[-8000:]}</bash-stdout>\n")
    setattr(ui, SHELL_CONTEXT_KEY, context)


def pending_shell_context(ui: Any) -> str:
    context = getattr(ui, SHELL_CONTEXT_KEY, [])
    setattr(ui, SHELL_CONTEXT_KEY, [])
    return "".join(context) + "\n" if context else ""


for _name, _description_text in (
    ("agents", "Manage sub-agent definitions"),
    ("config", "Open the settings"),
    ("hooks", "Show the configured hooks"),
    ("mcp", "MCP servers: states, tools, reconnect"),
    ("output-style", "Choose an output style"),
    ("permissions", "Show and edit permission rules"),
    ("statusline", "Set up the status line"),
):
    later(_name, _description_text)


# ---- `#` memory notes ------------------------------------------------------------------------------------


async def save_memory_note(ui: Any, note: str) -> None:
    """`#note`: append a line to the memory file the user picks (project, local or user CLAUDE.md)."""
    from yoke.fsutil import replace_file
    from yoke.memory.files import config_dir

    if not note:
        return
    targets = [
        ("Project memory (./CLAUDE.md, shared)", Path(ui.cwd) / "CLAUDE.md"),
        ("Project memory, just me (./CLAUDE.local.md)", Path(ui.cwd) / "CLAUDE.local.md"),
        ("User memory (~/.claude/CLAUDE.md, all projects)", config_dir(ui.env) / "CLAUDE.md"),
    ]
    index = await ui.choose(
        ui.painter.line(f"Save to which memory? “{note}”", "bold"), [t for t, _ in targets]
    )
    if index is None:
        return
    path = targets[index][1]
    try:
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        joined = old + ("" if not old or old.endswith("\n") else "\n") + f"- {note}\n"
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(path, joined.encode("utf-8"))
    except OSError as exc:
        ui.say(f"  could not save the note: {exc}", "red")
        return
    ui.say(f"  Saved to {path}", "dim")

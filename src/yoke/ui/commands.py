"""Built-in `/` commands of the terminal, `!` shell commands, and the table `/` completion shows."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from yoke.events.port import DescribeWhat

Handler = Callable[[Any, str], Awaitable[None]]
BUILTINS: dict[str, tuple[str, Handler | None]] = {}
ALIASES = {"quit": "exit", "reset": "clear", "new": "clear", "checkpoint": "rewind", "continue": "resume",
           "code-review": "review", "stats": "usage", "rc": "remote-control"}  # fmt: skip
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


def command_table(cwd: str, extra: list[dict[str, str]] | None = None) -> list[tuple[str, str]]:
    """(name, description) of every command `/` completes: built-ins, then the session's skills, custom
    commands and MCP prompts (`Session.slash_commands`; before the session has listed them, the custom
    command files)."""
    rows = [(name, description) for name, (description, _) in BUILTINS.items()]
    if extra:
        for entry in extra:
            if entry["name"] in BUILTINS:
                continue
            hint = f" {entry['argument_hint']}" if entry.get("argument_hint") else ""
            label = {"skill": "skill", "command": "command", "mcp": ""}.get(entry.get("kind", ""), "")
            source = entry.get("source") or ""
            where = ", ".join(part for part in (label, source) if part)
            rows.append(
                (entry["name"], f"{entry.get('description', '')}{hint}" + (f" ({where})" if where else ""))
            )
        return rows
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
        known = {entry["name"] for entry in ui.session_commands}
        if name in known or name.startswith("mcp__") or name in custom_commands(ui.cwd):
            return False  # the session runs skills, custom commands and MCP prompts
        ui.say(f"Unknown command: /{name} (type / to see the commands)", "yellow")
        return True
    ui.emit(ui.painter.ansi(Text(f"> {text}", style="dim")))
    handler = BUILTINS[name][1]
    if handler is None:
        ui.say(f"  /{name} is not available in Yoke's terminal yet.", "dim")
        return True
    try:
        await handler(ui, args.strip())
    except (KeyboardInterrupt, SystemExit, asyncio.CancelledError):
        raise
    except Exception as exc:  # a failing command is reported; the session goes on
        from yoke.session import SessionError

        if isinstance(exc, SessionError):
            raise
        if isinstance(exc, AttributeError):  # what a session in the host does not offer (host/remote.py)
            ui.say(f"  /{name} is not available in an attached session (it runs in the host)", "yellow")
            return True
        ui.say(f"  /{name} failed: {type(exc).__name__}: {exc}", "red")
    return True


# ---- conversation ----------------------------------------------------------------------------------------


@command("help", "Show the commands and keys")
async def _help(ui: Any, args: str) -> None:
    table = Table.grid(padding=(0, 2))
    for name, description in command_table(ui.cwd, ui.session_commands):
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


@command("uncompact", "Put the full history back in place of the compaction summaries, when it fits")
async def _uncompact(ui: Any, args: str) -> None:
    from yoke.session.uncompact import uncompact

    text, done = uncompact(ui.session)
    ui.say(f"  {text}", "dim" if done else "yellow")


@command("exit", "Leave Yoke")
async def _exit(ui: Any, args: str) -> None:
    ui.exit(0)


@command("cost", "Tokens and cost of this session")
async def _cost(ui: Any, args: str) -> None:
    session = ui.session
    usage = session.model_usage()
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
    from yoke.session.views import context_view
    from yoke.ui.context_view import context_grid

    usage, report = context_view(ui.session, Path(ui.cwd))
    ui.emit(ui.painter.ansi(*context_grid(usage, report)))


@command("model", "Show or change the model [name]")
async def _model(ui: Any, args: str) -> None:
    session = ui.session
    source = "command"
    if not args:
        choices = ["sonnet", "opus", "haiku"]
        header = ui.painter.line(f"Model: {session.model}. Switch to:", "bold")
        index = await ui.choose(header, [*choices, f"Keep {session.model}"])
        if index is None or index >= len(choices):
            return
        args, source = choices[index], "picker"
    try:
        refusal = await session.switch_model(args, source)
    except ValueError as exc:
        ui.say(f"  {exc}", "red")
        return
    if refusal:
        ui.say(f"  Model kept at {session.model}: {refusal}", "red")
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
    emit_table(ui, rows)


def emit_table(ui: Any, rows: list[tuple[str, str]]) -> None:
    """Key/value rows, the keys in bold, printed once into the scrollback."""
    table = Table.grid(padding=(0, 2))
    for key, value in rows:
        table.add_row(Text(key, style="bold"), value)
    ui.emit(ui.painter.ansi(table))


@command("tasks", "Background tasks still running")
async def _tasks(ui: Any, args: str) -> None:
    tasks = ui.session.background_tasks()
    if not tasks:
        ui.say("  No background tasks are running.", "dim")
        return
    table = Table.grid(padding=(0, 2))
    for task in tasks:
        table.add_row(Text(task["id"], style="bold"), task["description"] or task["command"])
    ui.emit(ui.painter.ansi(table))


@command("init", "Write a CLAUDE.md describing this project")
async def _init(ui: Any, args: str) -> None:
    await ui.turn(INIT_PROMPT, echo=False)


@command("review", "Review the current changes (or pull request N) for bugs [N] [focus]")
async def _review(ui: Any, args: str) -> None:
    await ui.turn(f"/review {args}".strip(), echo=False)


@command("security-review", "Review the current changes for security problems [focus]")
async def _security_review(ui: Any, args: str) -> None:
    await ui.turn(f"/security-review {args}".strip(), echo=False)


@command("debug", "Turn on debug lines for this session and look into a problem [what went wrong]")
async def _debug(ui: Any, args: str) -> None:
    await ui.turn(f"/debug {args}".strip(), echo=False)
    if ui.session.debug_log is not None:
        ui.say(f"  Debug lines for this session go to {ui.session.debug_log}", "dim")


@command("usage", "Cost, tokens, context and activity of this session")
async def _usage(ui: Any, args: str) -> None:
    from yoke.session.views import usage_text

    ui.say("\n".join("  " + line for line in usage_text(ui.session).splitlines()))


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


@command("export", "Write the conversation to a text file [file], or one HTML page [--html [file]]")
async def _export(ui: Any, args: str) -> None:
    from yoke.fsutil import replace_file

    words = args.split(maxsplit=1)
    as_html = words[:1] == ["--html"]
    name = (words[1] if len(words) > 1 else "") if as_html else args
    target = Path(
        name or f"yoke-conversation-{ui.session.id[:8]}.{'html' if as_html else 'txt'}"
    ).expanduser()
    target = target if target.is_absolute() else Path(ui.cwd) / target
    if not isinstance(ui.session.messages, list):  # `yoke attach`: the history lives in the hosted session
        ui.say(f"  A hosted session exports with: yoke export{' --html' if as_html else ''} {ui.session.id}")
        return
    if as_html:
        from yoke.ui.export_html import session_html

        page = session_html(
            ui.session.messages, ui.session.transcript_path, f"Yoke session {ui.session.id}", ui.cwd
        )
        replace_file(target, page.encode("utf-8"), mode=0o600)
    else:
        from yoke.ui.export import export_text

        replace_file(target, export_text(ui.session.messages, ui.cwd).encode("utf-8"), mode=0o600)
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


@command("doctor", "Check the installation, settings, provider and models")
async def _doctor(ui: Any, args: str) -> None:
    from yoke.session.doctor import report_lines, run_checks

    env = ui.session.env
    ui.say("  Checking (the provider's model list may take a few seconds)...", "dim")
    checks = await asyncio.to_thread(run_checks, Path(ui.cwd), env)
    styles = {"heading": "bold", "ok": "green", "warn": "yellow", "problem": "red", "info": "dim"}
    for status, line in report_lines(checks):
        ui.say(line, styles[status])


def _rows(ui: Any, rows: list[tuple[str, str]], empty: str) -> None:
    if not rows:
        ui.say(f"  {empty}", "dim")
        return
    table = Table.grid(padding=(0, 2))
    for key, value in rows:
        table.add_row(Text(key, style="bold"), value)
    ui.emit(ui.painter.ansi(table))


async def describe(ui: Any, what: DescribeWhat) -> Any:
    """What the session holds (`Describe` through its port: a local session, or a hosted one over the
    host); None, said in one line, when it cannot be asked."""
    from yoke.events import port

    try:
        return (await ui.session.submit(port.Describe(what)))["items"]
    except (RuntimeError, TimeoutError, ValueError, KeyError) as exc:
        ui.say(f"  /{what}: {exc}", "red")
        return None


@command("agents", "The sub-agents this session can start")
async def _agents(ui: Any, args: str) -> None:
    agents = await describe(ui, "agents")
    if agents is None:
        return
    rows = [(a["name"], f"{a['source']} · {a['description']}") for a in agents]
    _rows(ui, rows, "No sub-agents are available.")


@command("mcp", "MCP servers and their states; /mcp reconnect NAME")
async def _mcp(ui: Any, args: str) -> None:
    words = args.split()
    if words[:1] == ["reconnect"] and len(words) == 2:
        from yoke.events import port

        try:
            await ui.session.submit(port.McpReconnect(words[1]))
        except (KeyError, RuntimeError, TimeoutError) as exc:
            ui.say(f"  {exc.args[0] if exc.args else exc}", "red")
            return
        ui.say(f"  Reconnected {words[1]}")
        return
    servers = await describe(ui, "mcp")
    if servers is None:
        return
    rows = [(s["name"], s["status"] + (f" ({s['error']})" if s.get("error") else "")) for s in servers]
    _rows(ui, rows, "No MCP servers are configured (see `yoke mcp add`).")


@command("permissions", "The permission rules in force")
async def _permissions(ui: Any, args: str) -> None:
    rules = await describe(ui, "rules")
    if rules is None:
        return
    rows = [(behavior, rule) for behavior in ("deny", "ask", "allow", "session") for rule in rules[behavior]]
    _rows(ui, rows, f"No permission rules; mode {ui.session.permission_mode}.")


from yoke.ui import session_commands, settings_commands  # noqa: E402,F401 - register their commands

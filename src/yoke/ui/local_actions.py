"""What the prompt does without the model: `!cmd` shell commands and `#note` memory lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text

# ---- `!` shell commands --------------------------------------------------------------------------------


async def run_shell(ui: Any, command_line: str) -> None:
    """Run a shell command directly; its output goes to the next prompt as context, as in Claude Code."""
    if not command_line:
        return
    ui.emit(ui.painter.ansi(Text(f"! {command_line}", style="magenta")))
    env = ui.session.env if ui.session else None
    try:
        from yoke import spawn

        # typed by the person at the prompt: run as typed (no gate judges a person's own command)
        proc = await spawn.start(
            spawn.shell_argv(command_line),
            confine=None,
            stdout=spawn.PIPE,
            stderr=spawn.STDOUT,
            cwd=ui.cwd,
            env=env,
        )
        out, _ = await proc.communicate()
    except OSError as exc:
        ui.say(f"  ⎿  {exc}", "red")
        return
    text = out.decode("utf-8", "replace").rstrip()
    ui.say(shell_lines(text), "" if proc.returncode == 0 else "red")
    ui.shell_context.append(
        f"<bash-input>{command_line}</bash-input>\n<bash-stdout>{text[-8000:]}</bash-stdout>\n"
    )


def shell_lines(output: str, limit: int = 20) -> str:
    """`! cmd`'s output as the prompt shows it: under a ⎿, at most `limit` lines."""
    lines = output.splitlines() or ["(no output)"]
    shown = "\n".join(("  ⎿  " if i == 0 else "     ") + line for i, line in enumerate(lines[:limit]))
    if len(lines) > limit:
        shown += f"\n     … +{len(lines) - limit} lines"
    return shown


def pending_shell_context(ui: Any) -> str:
    context, ui.shell_context = ui.shell_context, []
    return "".join(context) + "\n" if context else ""


# ---- `#` memory notes ------------------------------------------------------------------------------------


async def save_memory_note(ui: Any, note: str) -> None:
    """`#note`: append a line to the memory file the user picks (project, local or user CLAUDE.md)."""
    from yoke.config.settings import claude_config_dir
    from yoke.fsutil import replace_file

    if not note:
        return
    targets = [
        ("Project memory (./CLAUDE.md, shared)", Path(ui.cwd) / "CLAUDE.md"),
        ("Project memory, just me (./CLAUDE.local.md)", Path(ui.cwd) / "CLAUDE.local.md"),
        ("User memory (~/.claude/CLAUDE.md, all projects)", claude_config_dir(None, ui.env) / "CLAUDE.md"),
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

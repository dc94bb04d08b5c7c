"""Starting the terminal UI from the command line: flags to session options, the UI's asker, the loop."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sys
from argparse import Namespace
from pathlib import Path
from typing import Any


def run(args: Namespace, first_prompt: str | None) -> int:
    from yoke.cli.options import options_from_args
    from yoke.session.engine import SessionError

    try:
        base = options_from_args(args, Path.cwd())
    except SessionError as exc:
        print(f"yoke: {exc}", file=sys.stderr)
        return 2 if exc.usage else 1
    try:
        return asyncio.run(_run(base, args, first_prompt))
    except KeyboardInterrupt:
        return 130


async def _run(base: Any, args: Namespace, first_prompt: str | None) -> int:
    from yoke.session.build import open_session
    from yoke.ui.app import TerminalUI
    from yoke.ui.asker import UIAsker

    env = dict(os.environ)
    ui: TerminalUI
    opened = [0]

    async def opener(**overrides: Any) -> Any:
        # The first session follows the flags (--resume, -c, ...); /clear, /resume and /rewind open others.
        fresh = {"resume": None, "continue_session": False, "fork_session": False, "session_id": None}
        changes = {**fresh, **overrides} if opened[0] else {}
        opened[0] += 1
        options = dataclasses.replace(base, interactive=True, asker=UIAsker(ui), **changes)
        return await open_session(options)

    kind = TerminalUI
    if env.get("TERM") == "dumb":
        from yoke.ui.plain import PlainUI

        kind = PlainUI
    ui = kind(opener, str(Path(base.cwd).resolve()), first_prompt, env)
    ui.settings_flag = args.settings
    _banner(ui)
    return await ui.run()


def _banner(ui: Any) -> None:
    from rich.text import Text

    from yoke import __version__

    text = Text()
    text.append("✻ ", style="bold magenta")
    text.append("Yoke", style="bold")
    text.append(f" {__version__}  ", style="dim")
    text.append(f"{ui.cwd}\n", style="dim")
    text.append(
        "  /help for commands · esc to interrupt · shift+tab to change the permission mode\n", style="dim"
    )
    ui.emit(ui.painter.ansi(text))

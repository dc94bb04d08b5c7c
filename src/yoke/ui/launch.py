"""Starting the terminal UI from the command line: flags to session options, the UI's asker, the loop."""

from __future__ import annotations

import asyncio
import dataclasses
import os
from argparse import Namespace
from collections.abc import Callable
from pathlib import Path
from typing import Any


def run(
    args: Namespace,
    first_prompt: str | None,
    options_from_args: Callable[..., Any],
    registrar: Callable[[Any], Any] | None = None,
) -> int:
    try:
        return asyncio.run(_run(args, first_prompt, options_from_args, registrar))
    except KeyboardInterrupt:
        return 130


async def _run(
    args: Namespace,
    first_prompt: str | None,
    options_from_args: Callable[..., Any],
    registrar: Callable[[Any], Any] | None = None,
) -> int:
    # The prompt is drawn first; the session engine is imported and the session opened behind it (keys
    # typed meanwhile wait in the prompt). A bad flag is reported on screen as the session opens.
    from yoke.ui.app import TerminalUI

    env = dict(os.environ)
    cwd = Path.cwd()
    ui: TerminalUI
    base: list[Any] = []

    async def opener(**overrides: Any) -> Any:
        from yoke.session import open_session
        from yoke.ui.asker import UIAsker

        # The first session follows the flags (--resume, -c, ...); /clear, /resume and /rewind open others.
        fresh = {"resume": None, "continue_session": False, "fork_session": False, "session_id": None}
        changes = {**fresh, **overrides} if base else {}
        if not base:
            base.append(options_from_args(args, cwd))
        options = dataclasses.replace(base[0], interactive=True, asker=UIAsker(ui), **changes)
        return await open_session(options)

    kind = TerminalUI
    if env.get("TERM") == "dumb":
        from yoke.ui.plain import PlainUI

        kind = PlainUI
    ui = kind(opener, str(cwd.resolve()), first_prompt, env)
    ui.settings_flag = args.settings
    ui.auto_mode_enabled = bool(getattr(args, "enable_auto_mode", False))
    ui.registrar = registrar(ui) if registrar is not None else None
    _banner(ui)
    return await ui.run()


def _banner(ui: Any) -> None:
    """Written as plain ANSI: rich is not loaded before the first prompt is on screen."""
    from yoke import __version__

    plain = ui.painter.no_color

    def style(code: str, text: str) -> str:
        return text if plain else f"\x1b[{code}m{text}\x1b[0m"

    import shutil

    width = shutil.get_terminal_size((80, 24)).columns
    hint = "  /help for commands · esc to interrupt · shift+tab: permission mode"
    room = max(10, width - len(f"✻ Yoke {__version__}  ") - 1)  # the folder is cut from the left to fit
    folder = ui.cwd if len(ui.cwd) <= room else "…" + ui.cwd[-(room - 1) :]
    ui.emit(
        style("1;35", "✻ ") + style("1", "Yoke") + style("2", f" {__version__}  ") + style("2", folder) + "\n"
        + style("2", hint[: max(10, width - 1)]) + "\n"
    )  # fmt: skip

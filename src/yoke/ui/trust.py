"""The trust question on first start in a folder, answered once and kept where `yoke trust` keeps it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text


async def ask_trust(ui: Any) -> bool:
    from yoke.config.trust import is_trusted, trust_folder
    from yoke.session.transcript import yoke_home

    folder = Path(ui.cwd)
    home = yoke_home(ui.env)
    if is_trusted(folder, home):
        return True
    header = Text()
    header.append("Do you trust the files in this folder?\n\n", style="bold")
    header.append(f"{folder}\n\n")
    header.append(
        "Yoke may read, edit and run files here. The folder's own settings, hooks and MCP servers apply "
        "only once you trust it; only trust folders whose contents you know.\n",
        style="dim",
    )
    answer = await ui.choose(ui.painter.ansi(header), ["Yes, proceed", "No, exit"])
    if answer != 0:
        ui.say("Not trusted; exiting.", "dim")
        return False
    try:
        trust_folder(folder, home)
    except OSError as exc:
        ui.say(f"  ⚠ could not record the trust answer: {exc}", "yellow")
    return True

"""Garbage collection paused while the `yoke` command starts.

Start-up (imports, then a session's assembly) makes some hundred thousand objects that live as long as the
process, and next to no garbage, yet the collector keeps walking them: about a tenth of a one-turn run.
The command pauses collection before it parses its flags and imports the rest; the first session to open
resumes it, with all that start-up made frozen, so that later full collections skip it too. Only a pause
made here is resumed: a program that embeds Yoke keeps its own collector settings.
"""

from __future__ import annotations

import gc

_paused = False


def pause_collection() -> None:
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume_collection() -> None:
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()

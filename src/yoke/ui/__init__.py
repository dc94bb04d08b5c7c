"""The interactive terminal UI (`yoke` without `-p`): an inline prompt_toolkit + rich front-end.

Importing this package is cheap; prompt_toolkit and rich load only when `run_interactive` starts the UI.
"""

from __future__ import annotations

from argparse import Namespace
from collections.abc import Callable
from typing import Any


def run_interactive(
    args: Namespace,
    first_prompt: str | None,
    options_from_args: Callable[..., Any],
    registrar: Callable[[Any], Any] | None = None,
) -> int:
    """`options_from_args(args, cwd)` is the CLI's flags-to-options mapping, handed in: ui/ never imports cli/.
    `registrar(ui)` makes what lends the session to the session host (host/terminal_link.py), handed in too:
    ui/ never imports host/."""
    from yoke.ui.launch import run

    return run(args, first_prompt, options_from_args, registrar)

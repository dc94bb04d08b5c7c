"""The interactive terminal UI (`yoke` without `-p`): an inline prompt_toolkit + rich front-end.

Importing this package is cheap; prompt_toolkit and rich load only when `run_interactive` starts the UI.
"""

from __future__ import annotations

from argparse import Namespace


def run_interactive(args: Namespace, first_prompt: str | None) -> int:
    from yoke.ui.launch import run

    return run(args, first_prompt)

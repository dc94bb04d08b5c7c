"""`yoke demo`, `yoke sessions list`, `yoke rewind`, `yoke trust`, `yoke plugin`."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

DEMO_DIR = Path(__file__).resolve().parent.parent / "demo"
DEMO_PROMPT = "The test suite of this project fails. Find out why, fix the code, and show the tests passing."
DEMO_FLAGS = [
    "--permission-mode",
    "acceptEdits",
    "--allowedTools",
    "Bash(python -m unittest:*)",
    "--max-turns",
    "12",
]


def run(command: str, argv: list[str]) -> int:
    if command == "demo":
        return demo(argv)
    if command == "sessions":
        return sessions(argv)
    if command == "rewind":
        return rewind(argv)
    if command == "trust":
        return trust(argv)
    if command == "acp":
        from yoke.protocols.acp import acp_command

        return acp_command(argv)
    if command == "agents":
        from yoke.agents.command import agents_command

        return agents_command(argv)
    if command == "plugin":
        from yoke.plugins.cli import run as plugin_command

        return plugin_command(argv)
    if command == "hooks":
        from yoke.cli.hooks_command import hooks_command

        return hooks_command(argv)
    if command == "mcp":
        from yoke.cli import mcp_command

        return mcp_command.run(argv)
    raise AssertionError(command)  # pragma: no cover


def demo(argv: list[str]) -> int:
    """Copy the bundled example project to a temporary folder and replay a recorded run on it: real tools
    read, edit and test real files; only the model's words come from the cassette."""
    if argv and argv[0] in ("-h", "--help"):
        print(
            "usage: yoke demo [--keep]\n\nReplay a recorded multi-step coding run on a fresh copy of an example "
            "project (no API key needed)."
        )
        return 0
    workdir = Path(tempfile.mkdtemp(prefix="yoke-demo-"))
    project = workdir / "textstats"
    shutil.copytree(DEMO_DIR / "project", project)
    cassette = DEMO_DIR / "demo.cassette.jsonl"
    # The recorded run calls `python`; make it this interpreter whatever the machine's PATH holds.
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    os.environ.setdefault("YOKE_HOME", str(workdir / "yoke-home"))
    os.chdir(project)
    print(f"Yoke demo: replaying a recorded run on a fresh copy of an example project in {project}")
    print(f"Prompt: {DEMO_PROMPT}\n")
    from yoke.cli.main import main

    code = main(["-p", DEMO_PROMPT, "--replay", str(cassette), "--verbose", *DEMO_FLAGS])
    print(
        f"\nThe project is left at {project}; run its tests yourself: "
        f"cd {project} && python -m unittest discover -s tests"
    )
    return code


def sessions(argv: list[str]) -> int:
    if not argv or argv[0] not in ("list", "ls"):
        print("usage: yoke sessions list", file=sys.stderr)
        return 2
    from yoke.session.commands import sessions_list_text
    from yoke.session.transcript import yoke_home

    print(sessions_list_text(Path.cwd(), yoke_home()))
    return 0


def trust(argv: list[str]) -> int:
    """Trust a folder (default: this one), so its own `.claude/settings*.json` allow rules and additional
    directories apply in headless runs, as they do once the trust question is answered in Claude Code."""
    if argv and argv[0] in ("-h", "--help"):
        print(
            "usage: yoke trust [FOLDER]\n\nTrust FOLDER (default: the current directory): its project "
            "settings may then grant permissions (allow rules, additionalDirectories)."
        )
        return 0
    from yoke.permissions.trust import trust_folder
    from yoke.session.transcript import yoke_home

    folder = Path(argv[0]).expanduser() if argv else Path.cwd()
    if not folder.is_dir():
        print(f"yoke trust: {folder} is not a folder", file=sys.stderr)
        return 2
    trust_folder(folder.resolve(), yoke_home())
    print(f"Trusted {folder.resolve()}: its project settings may now grant permissions.")
    return 0


def rewind(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="yoke rewind",
        description="Restore files and/or the conversation to the state before a user message.",
    )
    parser.add_argument("message_id", help="the uuid of the user message to rewind to")
    parser.add_argument("--session", "-r", help="session id or path (default: the latest session here)")
    parser.add_argument("--files-only", action="store_true", help="restore files, keep the conversation")
    parser.add_argument("--conversation-only", action="store_true", help="truncate the conversation only")
    args = parser.parse_args(argv)
    from yoke.session.commands import rewind_command
    from yoke.session.transcript import yoke_home

    try:
        text = rewind_command(
            cwd=Path.cwd(),
            home=yoke_home(),
            message_id=args.message_id,
            session=args.session,
            restore_files=not args.conversation_only,
            restore_conversation=not args.files_only,
        )
    except (LookupError, ValueError, FileNotFoundError) as exc:
        print(f"yoke rewind: {exc}", file=sys.stderr)
        return 1
    print(text)
    return 0

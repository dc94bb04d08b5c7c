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
    import contextlib

    from yoke.cli.main import main

    with contextlib.redirect_stderr(sys.stdout):  # the live view is the show here: one stream, in order
        code = main(["-p", DEMO_PROMPT, "--replay", str(cassette), "--verbose", *DEMO_FLAGS])
    print(
        f"\nThe project is left at {project}; run its tests yourself: "
        f"cd {project} && python -m unittest discover -s tests"
    )
    return code


def sessions(argv: list[str]) -> int:
    usage = "usage: yoke sessions list [--from codex|gemini|opencode]"
    if not argv or argv[0] not in ("list", "ls"):
        print(usage, file=sys.stderr)
        return 2
    from yoke.session.commands import foreign_sessions_text, sessions_list_text
    from yoke.session.transcript import yoke_home

    rest = argv[1:]
    if rest and rest[0].startswith("--from"):
        source = rest[0].partition("=")[2] or (rest[1] if len(rest) > 1 else "")
        try:
            print(foreign_sessions_text(source))
        except LookupError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        return 0
    if rest:
        print(usage, file=sys.stderr)
        return 2
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
    from yoke.config.trust import trust_folder
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
    parser.add_argument(
        "message_id", nargs="?", help="the uuid of the user message to rewind to (none: list them)"
    )
    parser.add_argument("--session", "-r", help="session id or path (default: the latest session here)")
    parser.add_argument("--files-only", action="store_true", help="restore files, keep the conversation")
    parser.add_argument("--conversation-only", action="store_true", help="truncate the conversation only")
    parser.add_argument("--undo", action="store_true", help="put the files back as before the latest rewind")
    clash = parser.add_mutually_exclusive_group()
    clash.add_argument(
        "--keep-outside-changes",
        action="store_true",
        help="leave files changed outside the session as they are",
    )
    clash.add_argument(
        "--overwrite", action="store_true", help="restore even files changed outside the session"
    )
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse printed its usage line; keep its exit code for --help
        return int(exc.code or 0)
    from yoke.session.commands import rewind_command, undo_rewind_command
    from yoke.session.transcript import yoke_home

    on_conflict = "keep" if args.keep_outside_changes else "overwrite" if args.overwrite else "refuse"
    try:
        if args.undo:
            text = undo_rewind_command(
                cwd=Path.cwd(), home=yoke_home(), session=args.session, on_conflict=on_conflict
            )
        else:
            text = rewind_command(
                cwd=Path.cwd(),
                home=yoke_home(),
                message_id=args.message_id,
                session=args.session,
                restore_files=not args.conversation_only,
                restore_conversation=not args.files_only,
                on_conflict=on_conflict,
            )
    except (LookupError, ValueError, FileNotFoundError) as exc:
        print(f"yoke rewind: {exc}", file=sys.stderr)
        return 1
    print(text)
    return 0


def doctor(argv: list[str]) -> int:
    """Check the installation, the settings files and the provider (its key, and whether it serves the
    configured models); exit 1 when a problem is found."""
    if argv and argv[0] in ("-h", "--help"):
        print(
            "usage: yoke doctor [--offline]\n\nCheck Python, yoke on PATH, bubblewrap, git and ripgrep; read the "
            "settings files; ask the configured provider's model list whether it serves the configured and "
            "default models, and say which have no price. --offline skips the model list."
        )
        return 0
    unknown = [a for a in argv if a != "--offline"]
    if unknown:
        print(f"yoke doctor: unknown argument {unknown[0]} (use --offline or --help)", file=sys.stderr)
        return 2
    from yoke.session.doctor import PROBLEM, report_lines, run_checks

    checks = run_checks(Path.cwd(), os.environ, ask_provider="--offline" not in argv)
    for _, line in report_lines(checks):
        print(line)
    return 1 if any(c.status == PROBLEM for c in checks) else 0

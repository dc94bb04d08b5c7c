"""`yoke profile add|use|list|rm`: switch provider, model, key reference, budget, sandbox and permission
defaults as one (docs/movein.md). The work is in `session/admin/profiles.py`."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

USAGE = """usage: yoke profile add NAME --provider P [--model M] [--base-url URL]
                         [--key-env VAR | --key-command CMD | --key-file PATH]
                         [--budget USD] [--sandbox on|off] [--permission-mode MODE] [--force]
       yoke profile use NAME [--project]     (--project: this folder's .yoke/profile)
       yoke profile use --none [--project]
       yoke profile list
       yoke profile rm NAME
A profile names its key by reference (an environment variable, a program that prints it, or a file): Yoke
never stores a key."""


def run(argv: list[str]) -> int:
    from yoke.session.admin import AdminError

    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0 if argv else 2
    verb, rest = argv[0], argv[1:]
    try:
        if verb == "add":
            print(_add(rest))
        elif verb == "use":
            print(_use(rest))
        elif verb in ("list", "ls"):
            print(_list())
        elif verb in ("rm", "remove"):
            from yoke.session.admin.profiles import remove_profile

            if len(rest) != 1:
                raise AdminError("usage: yoke profile rm NAME")
            print(remove_profile(rest[0], os.environ))
        else:
            print(f"yoke profile: unknown command {verb!r}\n{USAGE}", file=sys.stderr)
            return 2
    except AdminError as exc:
        print(f"yoke profile: {exc}", file=sys.stderr)
        return 1
    return 0


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        from yoke.session.admin import AdminError

        raise AdminError(message)


def _add(argv: list[str]) -> str:
    from yoke.session.admin import AdminError
    from yoke.session.admin.profiles import add_profile

    p = _Parser(prog="yoke profile add", add_help=False)
    p.add_argument("name")
    p.add_argument("--provider")
    p.add_argument("--model")
    p.add_argument("--base-url")
    key = p.add_mutually_exclusive_group()
    key.add_argument("--key-env", metavar="VAR")
    key.add_argument("--key-command", metavar="CMD")
    key.add_argument("--key-file", metavar="PATH")
    key.add_argument("--key", help=argparse.SUPPRESS)
    p.add_argument("--budget", type=float)
    p.add_argument("--sandbox", choices=("on", "off"))
    p.add_argument("--permission-mode")
    p.add_argument("--force", action="store_true")
    args = p.parse_args(argv)
    if args.key is not None:
        raise AdminError(
            "Yoke stores no key: name it by reference (--key-env VAR, --key-command 'keyring-helper', --key-file PATH)"
        )
    credential = (
        {"env": args.key_env}
        if args.key_env
        else {"command": args.key_command}
        if args.key_command
        else {"file": str(Path(args.key_file).expanduser().resolve())}
        if args.key_file
        else None
    )
    fields = {
        "provider": args.provider,
        "model": args.model,
        "baseUrl": args.base_url,
        "credential": credential,
        "maxBudgetUsd": args.budget,
        "sandbox": None if args.sandbox is None else args.sandbox == "on",
        "permissionMode": args.permission_mode,
    }
    return add_profile(args.name, {k: v for k, v in fields.items() if v is not None}, os.environ, args.force)


def _use(argv: list[str]) -> str:
    from yoke.session.admin import AdminError
    from yoke.session.admin.profiles import use_profile

    project = "--project" in argv
    names = [a for a in argv if a not in ("--project", "--none")]
    if "--none" in argv and not names:
        return use_profile(None, os.environ, Path.cwd(), project)
    if len(names) != 1:
        raise AdminError("usage: yoke profile use NAME [--project]")
    return use_profile(names[0], os.environ, Path.cwd(), project)


def _list() -> str:
    from yoke.session.admin.profiles import list_profiles

    rows = list_profiles(os.environ, Path.cwd())
    if not rows:
        return "No profiles yet: yoke profile add NAME --provider P --model M --key-env VAR"
    return "\n".join(
        f"{'*' if here else ' '} {name:20} {scope:8} {summary}" for name, scope, summary, here in rows
    )

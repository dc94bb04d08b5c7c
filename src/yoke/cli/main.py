"""`yoke` entry point: a fast path for --version, subcommands, then the headless run.

Nothing heavy is imported at module level: `yoke --version` must not load the loop, providers or pydantic.
"""

from __future__ import annotations

import os
import sys

# Each subcommand: "module:function" taking argv and returning the exit code, imported only when run.
# Claude Code's subcommands that Yoke does not have yet print one line and exit 1 (cli/coming.py); they
# never become prompts. A developer bringing one replaces its entry here.
SUBCOMMANDS: dict[str, str] = {
    "sessions": "yoke.cli.subcommands:sessions",
    "export": "yoke.cli.export_command:run",
    "batch": "yoke.batch.command:batch_command",
    "rewind": "yoke.cli.subcommands:rewind",
    "demo": "yoke.cli.subcommands:demo",
    "trust": "yoke.cli.subcommands:trust",
    "memory": "yoke.cli.memory_command:run",
    "agents": "yoke.host.commands:agents",
    "host": "yoke.host.commands:host",
    "acp": "yoke.protocols.acp:acp_command",
    "mcp": "yoke.cli.mcp_command:run",
    "plugin": "yoke.cli.plugin_command:run",
    "plugins": "yoke.cli.plugin_command:run",
    "hooks": "yoke.cli.hooks_command:hooks_command",
    "config": "yoke.cli.config_command:run",
    "doctor": "yoke.cli.subcommands:doctor",
    "profile": "yoke.cli.profile_command:run",
    "import-config": "yoke.cli.import_config_command:run",
    "profiles": "yoke.cli.profile_command:run",
    "stats": "yoke.cli.stats_command:run",
    "update": "yoke.cli.coming:update",
    "upgrade": "yoke.cli.coming:update",
    "install": "yoke.cli.coming:install",
    "setup-token": "yoke.cli.coming:setup_token",
    "migrate-installer": "yoke.cli.coming:migrate_installer",
    "auth": "yoke.cli.coming:auth",
    "login": "yoke.cli.coming:auth",
    "logout": "yoke.cli.coming:auth",
    "auto-mode": "yoke.cli.auto_mode_command:auto_mode_command",
    "remote-control": "yoke.host.remote_command:remote_control",
    "rc": "yoke.host.remote_command:remote_control",  # Claude Code's hidden alias
    "daemon": "yoke.cli.coming:daemon",
    "self-hosted-runner": "yoke.cli.coming:self_hosted_runner",
    **{name: f"yoke.host.commands:{name}" for name in ("attach", "logs", "stop", "kill", "rm", "respawn")},
    "gateway": "yoke.cli.coming:gateway",
    "import": "yoke.cli.coming:import_config",
    "purge": "yoke.cli.coming:purge",
    "ultrareview": "yoke.cli.coming:ultrareview",
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("-v", "--version", "-V"):
        from yoke import __version__

        print(f"{__version__} (Yoke)")
        return 0
    try:
        if argv and argv[0] in SUBCOMMANDS:
            return run_subcommand(argv[0], argv[1:])
        code = _warm(argv)
        if code is not None:
            return code
        if "--bg" in argv or "--background" in argv:
            return _background(argv)
        return _headless(argv)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return reader_gone()


def _warm(argv: list[str]) -> int | None:
    """The run forked by the host's template when one serves this user (cli/warm_client.py); None: cold."""
    from yoke.cli import warm_client

    if warm_client.forked or not warm_client.wanted(argv):
        return None
    return warm_client.run(argv)


def _background(argv: list[str]) -> int:
    """`yoke --bg`: the flags are parsed here, then the session is handed to the host."""
    from yoke.cli.args_fast import UsageError, parse
    from yoke.host.commands import background_start

    rest = [a for a in argv if a not in ("--bg", "--background")]
    try:
        args = parse(rest)
    except UsageError as exc:
        print(f"yoke --bg: {exc}", file=sys.stderr)
        return 1
    resume = args.resume if isinstance(args.resume, str) else None
    if not _folder_trusted():  # as 2.1.332: a background session cannot ask the trust question
        print(
            f"yoke --bg: {os.getcwd()} is not trusted; run `yoke trust` (or `yoke` once and accept) there, then retry",
            file=sys.stderr,
        )
        return 1
    try:
        return background_start(rest, args.prompt or None, resume, name=args.name or "")
    except OSError as exc:  # a runtime folder refused (host/owned.py), a full disk: one line
        where = f": {exc.filename}" if exc.filename else ""
        print(f"yoke --bg: {exc.strerror or exc}{where}", file=sys.stderr)
        return 1


def _folder_trusted() -> bool:
    from pathlib import Path

    from yoke.config.settings import yoke_home_dir
    from yoke.config.trust import is_trusted

    return is_trusted(Path.cwd(), yoke_home_dir(env=os.environ))


def reader_gone() -> int:
    """The reader of stdout went away (`yoke -p … | head -1`): nothing useful is left to say, and the
    interpreter's final flush must not complain either."""
    try:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives until the process ends
    except OSError:
        pass
    return 1


def run_subcommand(name: str, argv: list[str]) -> int:
    import importlib

    module, function = SUBCOMMANDS[name].split(":")
    handler = getattr(importlib.import_module(module), function)
    try:
        return int(handler(argv) or 0)
    except BrokenPipeError:
        raise  # the reader went away: said nothing, below
    except OSError as exc:  # a read-only home, a full disk, a folder removed: one line, never a traceback
        where = f": {exc.filename}" if exc.filename else ""
        print(f"yoke {name}: {exc.strerror or exc}{where}", file=sys.stderr)
        return 1


def _headless(argv: list[str]) -> int:
    from yoke.startup import pause_collection, resume_collection

    pause_collection()  # until the session opens (yoke.startup)
    try:
        code = _parse_and_run(argv)
        if os.path.isfile(
            os.path.join(".claude", "scheduled_tasks.json")
        ):  # durable tasks: a host keeps them
            from pathlib import Path

            from yoke.host.schedules import hand_over

            hand_over(Path.cwd())
        return code
    finally:
        resume_collection()  # when no session opened (bad usage, --version)


def _parse_and_run(argv: list[str]) -> int:
    from yoke.cli.args_fast import UsageError, parse

    try:
        args = parse(argv)
    except UsageError as exc:
        print(str(exc) if exc.exact else f"yoke: {exc} (see yoke --help)", file=sys.stderr)
        return 1
    if args.version:
        from yoke import __version__

        print(f"{__version__} (Yoke)")
        return 0
    if args.remote_control is not None and not _print_only(args):
        from yoke.host.remote_command import remote_control_session

        resume = args.resume if isinstance(args.resume, str) else None
        name = args.remote_control or getattr(args, "name", None) or ""
        return remote_control_session(argv, args.prompt or None, resume, name)
    from yoke.cli.args_compat import not_acted_on

    for line in not_acted_on(args):
        print(line, file=sys.stderr)
    if _interactive(args):
        from yoke.ui import run_interactive

        return run_interactive(args, args.prompt, _session_options, _registrar)
    from yoke.cli.headless import run_headless

    return run_headless(args)


def _session_options(args, cwd):
    """Imported only when the UI opens its session: the prompt is drawn before the session engine loads."""
    from yoke.cli.options import options_from_args

    return options_from_args(args, cwd)


def _registrar(ui):
    """The terminal's registration with the session host (docs/remote.md, "Any session"), imported once the
    UI exists."""
    from yoke.host.registrar import Registrar

    return Registrar(ui)


def _print_only(args) -> bool:
    """-p, --print-context and stream-json: a one-shot or a program's session, never the terminal UI."""
    return bool(
        args.print_mode or args.print_context or args.input_format != "text" or args.output_format != "text"
    )


def _interactive(args) -> bool:
    """`yoke` or `yoke "prompt"` in a terminal starts the terminal UI; -p, pipes and stream-json don't."""
    if _print_only(args):
        return False
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def entry() -> None:
    """The `yoke` command. Runs the exit handlers, then leaves without tearing the interpreter down: freeing
    every module and object one by one costs more than a short run itself, and the OS reclaims it all."""
    code = main()
    if sys.getprofile() is not None or sys.gettrace() is not None:
        sys.exit(code)  # a profiler or coverage tool writes its report at normal interpreter exit
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    entry()

"""`yoke` entry point: a fast path for --version, subcommands, then the headless run.

Nothing heavy is imported at module level: `yoke --version` must not load the loop, providers or pydantic.
"""

from __future__ import annotations

import os
import sys

SUBCOMMANDS = ("sessions", "rewind", "demo", "trust", "agents", "acp", "memory", "plugin", "hooks", "mcp")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("-v", "--version", "-V"):
        from yoke import __version__

        print(f"{__version__} (Yoke)")
        return 0
    try:
        if argv and argv[0] == "memory":
            from yoke.cli import memory_command

            return memory_command.run(argv[1:])
        if argv and argv[0] in SUBCOMMANDS:
            from yoke.cli import subcommands

            return subcommands.run(argv[0], argv[1:])
        return _headless(argv)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `yoke -p … | head`); nothing useful left to say.
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the interpreter's final flush
        except OSError:
            pass
        return 1


def _headless(argv: list[str]) -> int:
    from yoke.cli.args import UsageError, build_parser, validate

    parser = build_parser()
    try:
        args, unknown = parser.parse_known_args(argv)
        validate(args)
    except UsageError as exc:
        print(f"yoke: {exc} (see yoke --help)", file=sys.stderr)
        return 2
    if args.version:
        from yoke import __version__

        print(f"{__version__} (Yoke)")
        return 0
    if unknown:
        # The Agent SDKs pass flags Yoke may not know yet; never fatal, always visible.
        print(f"yoke: ignoring unknown option(s): {' '.join(unknown)}", file=sys.stderr)
    from yoke.cli.headless import run_headless

    return run_headless(args)


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

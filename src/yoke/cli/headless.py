"""`yoke -p`: build a session from flags, settings and the environment, run one query, print, exit.

Exit codes: 0 success; 1 when the result is an error (as Claude Code, for shell scripts); 2 bad usage;
130 interrupted (SIGINT), 143 terminated (SIGTERM).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke.session import SessionError as SetupError

if TYPE_CHECKING:
    from argparse import Namespace

NO_INPUT = "Input must be provided either through stdin or as a prompt argument when using --print"


def run_headless(args: Namespace) -> int:
    debug = bool(args.debug)
    try:
        prompt = "" if args.print_context else _read_prompt(args)
        return asyncio.run(_start(args, prompt))
    except SetupError as exc:
        if str(exc).startswith(NO_INPUT):  # Claude Code's own line, which scripts may match
            print(f"Error: {exc}", file=sys.stderr)
            return 1
        print(f"yoke: {exc}", file=sys.stderr)
        return 2 if exc.usage else 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        from yoke.cli.main import reader_gone

        return reader_gone()
    except Exception as exc:  # a bug: one line, traceback only with --debug
        if debug:
            raise
        print(
            f"yoke: internal error: {type(exc).__name__}: {exc} (rerun with --debug for details)",
            file=sys.stderr,
        )
        return 1


def _read_prompt(args: Namespace) -> str:
    if args.input_format == "stream-json":
        return ""  # messages arrive on stdin as NDJSON
    if args.compact is not None:
        return f"/compact {args.compact}".strip()
    if args.prompt is not None and args.prompt.strip():
        piped = _piped_input()
        return f"{piped.rstrip()}\n\n{args.prompt}" if piped.strip() else args.prompt
    if sys.stdin is None or sys.stdin.closed or sys.stdin.isatty():
        if not args.print_mode:
            raise SetupError(
                "the interactive terminal needs a terminal on both stdin and stdout; run a prompt "
                'headless instead: yoke -p "fix the failing test"',
                usage=True,
            )
        raise SetupError(
            'no prompt: pass it as an argument (yoke -p "fix the failing test") or pipe it on stdin',
            usage=True,
        )
    prompt = _read_stdin()
    if not prompt.strip():
        raise SetupError(NO_INPUT, usage=True)
    return prompt


def _piped_input() -> str:
    """Text piped alongside a prompt argument (`cat log | yoke -p "explain"`), without ever blocking on a
    terminal or on an inherited pipe nobody writes to."""
    import select
    import stat

    stdin = sys.stdin
    if stdin is None or stdin.closed:
        return ""
    try:
        if stdin.isatty():
            return ""
        mode = os.fstat(stdin.fileno()).st_mode
    except (OSError, ValueError):
        return ""
    if stat.S_ISREG(mode):
        return _read_stdin()
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        readable, _, _ = select.select([stdin], [], [], 0.2)
        return _read_stdin() if readable else ""
    return ""


def _read_stdin() -> str:
    try:
        return sys.stdin.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise SetupError(f"could not read the prompt from stdin: {exc}") from None


async def _start(args: Namespace, prompt: str) -> int:
    from yoke.session.wiring import note_text

    note = note_text(prompt) if args.input_format == "text" and not args.print_context else None
    if note is not None:  # `# note`: saved to a memory file, no model call
        from yoke.cli.memory_command import save_note_headless

        return save_note_headless(args, note)
    from yoke.cli.headless_session import HeadlessRun
    from yoke.cli.options import options_from_args
    from yoke.session import open_session

    options = options_from_args(args, Path.cwd())
    # nobody answers: what would ask is denied (the mode decides the rest)
    if args.permission_prompts == "none":
        args.permission_prompt_tool = None
    printer = _printer(args, options)
    channel, lines = _stdin_channel(args, options, printer)
    session = await open_session(options)
    await _attach(args, session, printer, options.asker if channel is not None else None)
    debug = bool(args.debug or args.debug_file)
    run = HeadlessRun(session, printer, args.input_format, args.permission_prompt_tool, debug)
    run.debug_file = args.debug_file
    run.replay_user_messages = bool(args.replay_user_messages)
    if args.print_context:
        print(await session.context_report())
        await session.close()
        return 0
    from yoke.session.wiring import oversized_prompt

    oversized = oversized_prompt(session, prompt)
    if oversized:
        await session.close()
        raise SetupError(oversized)
    return await _drive(run, prompt, channel, lines)


def _printer(args: Namespace, options: Any) -> Any:
    """The printer for `--output-format`; in stream-json it also writes the hook lines."""
    from yoke.cli.options import api_key_source
    from yoke.cli.printers import make_printer

    printer = make_printer(
        args.output_format,
        args.verbose,
        init_extra={"apiKeySource": api_key_source(os.environ)},
        partial=bool(args.include_partial_messages),
        forward_subagent_text=bool(getattr(args, "forward_subagent_text", False)),
    )
    if args.output_format == "stream-json":
        from yoke.wire.hook_lines import stream_reporter

        options.hook_report = stream_reporter(printer.emit, args.include_hook_events)
    return printer


def _stdin_channel(args: Namespace, options: Any, printer: Any) -> tuple[Any, Any]:
    """With `--input-format stream-json`: the control channel and the stdin reader (started now: the SDK
    answers mcp_message while servers start), and the stdio asker when prompts go to the SDK; else None, None."""
    if args.input_format != "stream-json":
        return None, None
    from yoke.cli.stream_input import ControlChannel, StdinLines, StdioAsker

    channel = ControlChannel(printer.emit)
    if args.permission_prompt_tool == "stdio":
        options.asker = StdioAsker(channel)
    options.mcp_sdk_bridge = _sdk_bridge(channel)
    lines = StdinLines(channel)
    lines.start()
    return channel, lines


async def _attach(args: Namespace, session: Any, printer: Any, asker: Any) -> None:
    """Tie the opened session to the printer and to who answers its prompts (`asker`: the stdio asker over the
    control channel, if any); print its set-up warnings."""
    printer.session_id = session.id  # lines written before the first query's init carry it too
    printer.start_mode(session.permission_mode)  # a set_permission_mode before the first query is a change
    if args.permission_prompt_tool not in (None, "stdio"):
        from yoke.session.wiring import prompt_tool_asker

        try:
            session.set_asker(prompt_tool_asker(session, args.permission_prompt_tool))
        except ValueError as exc:
            await session.close()
            raise SetupError(str(exc)) from None
    init_extra = getattr(printer, "init_extra", None)  # only the stream-json printer writes system/init
    if isinstance(init_extra, dict):
        init_extra.update(session.init_fields())  # slash_commands, skills, output_style, plugins
    for warning in session.warnings:
        print(f"yoke: warning: {warning}", file=sys.stderr)
    if asker is not None:
        asker.on_update = session.apply_permission_update  # "always allow" answers, mode changes
        if os.environ.get("YOKE_HOSTED") == "1":  # nobody watches a hosted session's pipe: call the user back
            asker.on_ask = lambda q: session.notify(
                f"Yoke needs your permission to use {q.tool_name}", "permission_prompt"
            )
            from yoke.session.wiring import plug_host_link

            channel = asker.channel  # ListAgents/SendMessage across the host's sessions, asked of the host
            plug_host_link(session, lambda r: channel.request({"subtype": "yoke_host", **r}, timeout=30))


def _sdk_bridge(channel):
    """The Agent SDK's in-process MCP servers, reached with `mcp_message` control requests."""

    async def bridge(server: str, message: dict) -> dict | None:
        reply = await channel.request({"subtype": "mcp_message", "server_name": server, "message": message})
        return reply.get("mcp_response")

    return bridge


async def _drive(run, prompt: str, channel, lines=None) -> int:
    session = run.session
    loop = asyncio.get_running_loop()
    signals = {signal.SIGINT: 130, signal.SIGTERM: 143}
    received: list[int] = []

    def on_signal(code: int) -> None:
        # a signal means "stop": the running query is interrupted (its result line is written) and the
        # process ends, whatever the input format; the control protocol's `interrupt` stops just a query
        received.append(code)
        run.stop()
        if lines is not None:
            lines.end()

    for sig, code in signals.items():
        try:
            loop.add_signal_handler(sig, on_signal, code)
        except (NotImplementedError, RuntimeError):  # pragma: no cover - non-Unix
            pass
    try:
        if run.input_format == "stream-json":
            from yoke.cli.stream_input import serve_stream_json

            is_error = await serve_stream_json(run, channel, lines)
        else:
            run.hold_results = True
            await run.run(prompt)
            result = await run.settle()  # background work, and its follow-ups
            is_error = result is None or result.is_error
    finally:
        await run.close()
        await session.close()
        for sig in signals:
            try:
                loop.remove_signal_handler(sig)
            except (NotImplementedError, RuntimeError):  # pragma: no cover
                pass
    if received:
        return received[0]
    return 1 if is_error else 0

"""A foreground Bash command run in a front-end's terminal (an editor's, over ACP) instead of a local process.

The editor then shows the command live, in its own terminal, inside the tool call. Only commands that would
run unconfined here anyway go there: the Bash tool uses a front-end terminal only when neither the sandbox
nor a fast path's confinement covers the command (no sandbox, an excluded command, or an approved
`dangerouslyDisableSandbox`; and the call was allowed by a rule or a person, not as read-only or by
acceptEdits), and never
for background commands, whose output TaskOutput reads from local files. Sandboxed commands always run
locally: bubblewrap, its seccomp filter and its network proxy are set up by this process and cannot be
handed to another. Permission checks and hooks run before the tool, so they are the same either way.

The command is the same script a local run gets (rc snapshot, CLAUDE_ENV_FILE, the final working directory
written to a file), started as `bash --noprofile --norc -c`, with standard input empty as locally. What the
terminal cannot do: a command still running at its timeout is stopped, not moved to the background.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from yoke.tools.shell.foreground import ForegroundOutcome
from yoke.tools.shell.process import bash_path

OUTPUT_LIMIT_BYTES = 1024 * 1024  # what the terminal keeps; the model's share is capped afterwards as usual
# A terminal may be a pseudo-terminal: no pager may wait for a key nobody presses.
TERMINAL_ENV = {"PAGER": "cat", "GIT_PAGER": "cat", "MANPAGER": "cat"}


@runtime_checkable
class CommandTerminal(Protocol):
    """A front-end's terminals (ACP's `terminal/*` methods)."""

    async def create(
        self, argv: list[str], *, cwd: Path, env: dict[str, str], output_limit: int, tool_use_id: str
    ) -> str:
        """Start argv in a new terminal shown with the tool call; its id."""
        ...

    async def wait(self, terminal_id: str) -> tuple[int | None, str | None]:
        """Wait for the command to end: (exit code, signal name)."""
        ...

    async def output(self, terminal_id: str) -> tuple[str, bool]:
        """The output so far and whether its start was dropped (over the limit)."""
        ...

    async def kill(self, terminal_id: str) -> None: ...

    async def release(self, terminal_id: str) -> None: ...


async def run_in_terminal(
    terminal: CommandTerminal,
    script: str,
    *,
    cwd: Path,
    env: dict[str, str],
    output_path: Path,
    timeout_s: float,
    cancel: asyncio.Event,
    tool_use_id: str,
) -> ForegroundOutcome | None:
    """Run the script in the front-end's terminal, its output written to output_path as a local run
    writes it. None when the terminal could not be created (the caller runs the command locally)."""
    started_at = time.time()
    argv = [bash_path(), "--noprofile", "--norc", "-c", _prelude(env) + script]
    creating = asyncio.ensure_future(
        terminal.create(
            argv, cwd=cwd, env=_env_delta(env), output_limit=OUTPUT_LIMIT_BYTES, tool_use_id=tool_use_id
        )
    )
    try:
        terminal_id = await asyncio.shield(creating)
    except asyncio.CancelledError:  # interrupted while the terminal was being made: stop it once it exists
        _in_background(_close_once_created(terminal, creating))
        raise
    except Exception:
        return None
    settled = False
    try:
        outcome = await _await_terminal(terminal, terminal_id, output_path, timeout_s, cancel, started_at)
        settled = True
        return outcome
    finally:
        # Its own task, so an interrupt arriving now (or again) cannot leave the command running.
        cleanup = _in_background(_close(terminal, terminal_id, kill=not settled))
        with contextlib.suppress(Exception):
            await asyncio.shield(cleanup)


_CLOSING: set[asyncio.Future] = set()  # cleanups in flight (the loop keeps only weak references to tasks)


def _in_background(work: Any) -> asyncio.Future:
    task = asyncio.ensure_future(work)
    _CLOSING.add(task)
    task.add_done_callback(_CLOSING.discard)
    return task


async def _close_once_created(terminal: CommandTerminal, creating: asyncio.Future) -> None:
    try:
        terminal_id = await creating
    except Exception:
        return
    await _close(terminal, terminal_id, kill=True)


async def _close(terminal: CommandTerminal, terminal_id: str, *, kill: bool) -> None:
    if kill:
        with contextlib.suppress(Exception):
            await terminal.kill(terminal_id)
    with contextlib.suppress(Exception):
        await terminal.release(terminal_id)


async def _await_terminal(
    terminal: CommandTerminal,
    terminal_id: str,
    output_path: Path,
    timeout_s: float,
    cancel: asyncio.Event,
    started_at: float,
) -> ForegroundOutcome:
    exited = asyncio.ensure_future(terminal.wait(terminal_id))
    interrupted = asyncio.ensure_future(cancel.wait())
    try:
        await asyncio.wait({exited, interrupted}, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
    finally:
        interrupted.cancel()
        if not exited.done():
            exited.cancel()
    finished = exited.done() and not exited.cancelled() and exited.exception() is None
    if not finished:
        with contextlib.suppress(Exception):
            await terminal.kill(terminal_id)
    text, truncated = await terminal.output(terminal_id)
    if truncated:
        text = f"[the terminal kept only the last {OUTPUT_LIMIT_BYTES} bytes of the output]\n{text}"
    output_path.parent.mkdir(parents=True, exist_ok=True)
    output_path.write_text(text, encoding="utf-8")
    if finished:
        code, signal_name = exited.result()
        return ForegroundOutcome(_exit_code(code, signal_name), started_at=started_at)
    if cancel.is_set():
        return ForegroundOutcome(None, interrupted=True, started_at=started_at)
    return ForegroundOutcome(None, timed_out=True, started_at=started_at)


def _prelude(env: dict[str, str]) -> str:
    """Standard input empty, and the variables the session's environment lacks unset, as locally."""
    gone = sorted(k for k in os.environ if k not in env and k.isidentifier())
    return "exec </dev/null\n" + (f"unset -v {' '.join(gone)}\n" if gone else "")


def _env_delta(env: dict[str, str]) -> dict[str, str]:
    """What the command's environment adds to this process's own (which the front-end that started this
    process has too): settings' `env`, the agent markers, and the terminal's no-pager settings."""
    delta = {k: v for k, v in env.items() if os.environ.get(k) != v}
    return {**delta, **TERMINAL_ENV}


def _exit_code(code: int | None, signal_name: str | None) -> int | None:
    """As a local process reports it: the exit status, or minus the signal's number."""
    if code is not None:
        return code
    if signal_name:
        with contextlib.suppress(KeyError, ValueError):
            name = signal_name if signal_name.startswith("SIG") else f"SIG{signal_name}"
            return -signal.Signals[name].value
    return None

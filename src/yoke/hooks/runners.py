"""Running one hook handler: a command, an HTTP endpoint, a small-model prompt, an agent, or a Python callback.

Every runner returns a `HookRun` report and never raises: a hook that cannot start, crashes, hangs or
answers nonsense is a non-blocking error the user is told about, never the end of the session. A command
runs in its own process group so a timeout kills everything it started; what it prints is captured up to
`CAPTURE_BYTES` (the rest is read and dropped, so a chatty hook cannot fill memory or block on its pipe).
"""

from __future__ import annotations

import asyncio
import inspect
import os
import re
import shutil
import signal
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yoke.hooks.config import HookGroup, HookHandler
from yoke.jsonsafe import loads as safe_json

CAPTURE_BYTES = 1024 * 1024
DEFAULT_TIMEOUTS = {"command": 600.0, "http": 600.0, "mcp_tool": 600.0, "prompt": 30.0, "agent": 60.0}
SHORT_DEFAULT_EVENTS = {"UserPromptSubmit": 30.0, "MessageDisplay": 10.0}
SESSION_END_BUDGET = 1.5
PromptModel = Callable[[str, "str | None", float], Awaitable[str]]  # (prompt, model, timeout) -> answer text


@dataclass(slots=True)
class HookRun:
    """What happened when one handler ran for one announcement (also the stream-json report)."""

    hook_id: str
    hook_name: str  # "PreToolUse:Bash", "SessionStart:startup", "Stop"
    event: str
    handler: HookHandler
    group: HookGroup
    session_id: str = ""
    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None
    outcome: str = "success"  # success | error | cancelled (Claude Code's hook_response outcomes)
    output: dict[str, Any] | None = None  # the JSON object the hook answered with, if any
    error: str = ""  # one line: why the hook failed (timed out, could not start, raised, bad response)
    backgrounded: bool = False  # an async hook now running on its own
    duration_ms: int = 0
    env_file: Path | None = None


def handler_timeout(handler: HookHandler, event: str) -> float:
    if handler.timeout is not None:
        return handler.timeout if event != "SessionEnd" else min(handler.timeout, 60.0)
    if event == "SessionEnd":
        ms = os.environ.get("CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS", "")
        return int(ms) / 1000 if ms.isdigit() else SESSION_END_BUDGET
    default = DEFAULT_TIMEOUTS.get(handler.type, 600.0)
    if handler.type in ("command", "http", "mcp_tool") and event in SHORT_DEFAULT_EVENTS:
        return SHORT_DEFAULT_EVENTS[event]
    return default


def parse_json_object(text: str) -> dict[str, Any] | None:
    """stdout is JSON output when, after whitespace, it starts with `{` and is one object."""
    stripped = text.strip()
    if not stripped.startswith("{"):
        return None
    try:
        value = safe_json(stripped)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _is_async_marker(line: bytes) -> bool:
    try:
        value = safe_json(line.decode("utf-8", "replace"))
    except ValueError:
        return False
    return isinstance(value, dict) and value.get("async") is True


class _Capture:
    """Reads a stream to its end, keeping the first CAPTURE_BYTES; reports the first line when it has it."""

    def __init__(self, want_first_line: bool = False):
        self.data = bytearray()
        self.dropped = 0
        self.first_line: asyncio.Future[bytes] | None = (
            asyncio.get_running_loop().create_future() if want_first_line else None
        )

    async def pump(self, stream: asyncio.StreamReader | None) -> None:
        try:
            while stream is not None:
                chunk = await stream.read(65536)
                if not chunk:
                    break
                room = CAPTURE_BYTES - len(self.data)
                self.data += chunk[: max(room, 0)]
                self.dropped += max(len(chunk) - max(room, 0), 0)
                if self.first_line is not None and not self.first_line.done() and b"\n" in self.data:
                    self.first_line.set_result(bytes(self.data.split(b"\n", 1)[0]))
        finally:
            if self.first_line is not None and not self.first_line.done():
                self.first_line.set_result(bytes(self.data))

    def text(self) -> str:
        out = self.data.decode("utf-8", "replace")
        if self.dropped:
            out += f"\n[{self.dropped} more bytes of output dropped]"
        return out


def _argv(handler: HookHandler, subst: dict[str, str]) -> list[str]:
    def expand(text: str) -> str:
        for key, value in subst.items():
            text = text.replace("${" + key + "}", value)
        return text

    if handler.args is not None:  # exec form: no shell, plain-string substitutions
        return [expand(handler.command), *(expand(a) for a in handler.args)]
    command = expand(handler.command)
    if handler.shell == "powershell":
        exe = shutil.which("pwsh") or shutil.which("powershell") or "pwsh"
        return [exe, "-NoProfile", "-NonInteractive", "-Command", command]
    return [shutil.which("bash") or "/bin/sh", "-c", command]


def kill_group(proc: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.kill()
    except ProcessLookupError:
        pass


@dataclass(slots=True)
class CommandJob:
    """A started command hook: the process and its readers, so it can finish in the background."""

    proc: asyncio.subprocess.Process
    out: _Capture
    err: _Capture
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)

    async def finish(self, run: HookRun, deadline: float) -> HookRun:
        """Wait for the process to end (or kill it at `deadline`) and fill in the report."""
        try:
            remaining = max(deadline - time.monotonic(), 0.0)
            async with asyncio.timeout(remaining):
                await self._until_done()
                run.exit_code = self.proc.returncode
        except TimeoutError:
            kill_group(self.proc)
            run.outcome = "error"
            run.error = f"timed out after {run_timeout(run):g} s and was killed"
            await _settle(self)
        except asyncio.CancelledError:
            kill_group(self.proc)
            run.outcome = "cancelled"
            run.error = "cancelled"
            await _settle(self)
            raise
        finally:
            run.stdout, run.stderr = self.out.text(), self.err.text()
        if run.exit_code is not None and run.outcome == "success":
            run.output = parse_json_object(run.stdout)
            if run.exit_code not in (0, 2) and run.output is None:
                run.outcome = "error"
                first = (run.stderr.strip().splitlines() or [""])[0]
                run.error = f"failed with non-blocking status code {run.exit_code}" + (
                    f": {first}" if first else ""
                )
        return run

    async def _until_done(self) -> None:
        """Until the hook has exited and its output is read. A process it left running may hold its
        stdout open for ever: once the hook itself has exited, what is buffered is read (briefly) and the
        pipes are no longer waited for. (asyncio's `wait()` also waits for the pipes, so the exit is
        watched through `returncode`.)"""
        readers = asyncio.ensure_future(asyncio.gather(*self.tasks))
        try:
            while not readers.done() and self.proc.returncode is None:
                await asyncio.wait({readers}, timeout=EXIT_POLL_S)
            if not readers.done():
                await asyncio.wait({readers}, timeout=AFTER_EXIT_READ_S)
        finally:
            if not readers.done():
                readers.cancel()
                await asyncio.gather(readers, return_exceptions=True)
        if self.proc.returncode is None:
            await self.proc.wait()


EXIT_POLL_S = 0.05
AFTER_EXIT_READ_S = 0.2  # what the hook wrote before it exited is in the pipe: read it, then stop


def run_timeout(run: HookRun) -> float:
    return handler_timeout(run.handler, run.event)


async def _settle(job: CommandJob) -> None:
    """After a kill: give the readers a moment to see EOF, then stop them."""
    try:
        async with asyncio.timeout(2):
            await asyncio.gather(*job.tasks, return_exceptions=True)
            await job.proc.wait()
    except TimeoutError:
        for task in job.tasks:
            task.cancel()


async def start_command(
    run: HookRun, stdin: bytes, env: dict[str, str], cwd: Path, subst: dict[str, str]
) -> CommandJob | None:
    """Start a command hook (own process group, no TTY); None with `run.error` set if it cannot start."""
    argv = _argv(run.handler, subst)
    try:
        from yoke import spawn

        # The user's or the project's configured command, run as configured (no gate decision names it);
        # the door gives it the lifetime: it dies with Yoke, even on SIGKILL.
        proc = await spawn.start(
            argv,
            confine=None,
            stdin=spawn.PIPE,
            stdout=spawn.PIPE,
            stderr=spawn.PIPE,
            cwd=cwd if cwd.is_dir() else None,
            env=env,
        )
    except OSError as exc:
        run.outcome, run.exit_code = "error", 127
        run.error = f"could not start: {exc.strerror or exc}"
        return None
    job = CommandJob(proc, _Capture(want_first_line=True), _Capture())
    job.tasks = [
        asyncio.ensure_future(_feed(proc, stdin)),
        asyncio.ensure_future(job.out.pump(proc.stdout)),
        asyncio.ensure_future(job.err.pump(proc.stderr)),
    ]
    return job


async def _feed(proc: asyncio.subprocess.Process, data: bytes) -> None:
    """Write the input; a hook that never reads it (or exits first) is fine."""
    if proc.stdin is None:
        return
    try:
        proc.stdin.write(data)
        await proc.stdin.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass
    finally:
        try:
            proc.stdin.close()
        except (BrokenPipeError, ConnectionResetError, RuntimeError):
            pass


async def wait_first_line(job: CommandJob, deadline: float) -> bytes | None:
    """The first stdout line (or all of stdout at EOF); None if the deadline passes first."""
    assert job.out.first_line is not None
    try:
        async with asyncio.timeout(max(deadline - time.monotonic(), 0.0)):
            return await asyncio.shield(job.out.first_line)
    except TimeoutError:
        return None


def is_async_answer(first_line: bytes | None) -> bool:
    return first_line is not None and _is_async_marker(first_line.strip())


async def run_http(run: HookRun, body: bytes, timeout: float, env: dict[str, str]) -> HookRun:
    """POST the hook input; 2xx with an empty body is success, 2xx with a JSON object is the answer, anything
    else is a non-blocking error (an HTTP hook cannot block through its status code)."""
    import httpx

    handler = run.handler
    headers = {"Content-Type": "application/json"}
    for key, value in handler.headers.items():
        headers[key] = _expand_allowed(value, handler.allowed_env_vars, env)
    try:
        async with httpx.AsyncClient(timeout=timeout, trust_env=False) as client:
            response = await client.post(handler.url, content=body, headers=headers)
    except httpx.TimeoutException:
        run.outcome, run.error = "error", f"timed out after {timeout:g} s"
        return run
    except httpx.HTTPError as exc:
        run.outcome, run.error = "error", f"request to {handler.url} failed: {exc}"
        return run
    text = response.text[:CAPTURE_BYTES]
    run.stdout = text
    if not 200 <= response.status_code < 300:
        run.outcome, run.error = "error", f"{handler.url} answered HTTP {response.status_code}"
        return run
    run.exit_code = 0
    if text.strip():
        run.output = parse_json_object(text)
        if run.output is None:
            run.outcome, run.error = "error", f"{handler.url} answered something other than a JSON object"
    return run


def _expand_allowed(value: str, allowed: list[str], env: dict[str, str]) -> str:
    """`$VAR` / `${VAR}` in a header, only for variables the hook lists in `allowedEnvVars`."""

    def sub(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return env.get(name, "") if name in allowed else match.group(0)

    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)", sub, value)


PROMPT_SUFFIX = (
    "\n\nAnswer with one JSON object and nothing else: "
    '{"ok": true} to let this proceed, or {"ok": false, "reason": "<why, addressed to the agent>"}.'
)


def prompt_text(template: str, payload_json: str) -> str:
    """`$ARGUMENTS` becomes the hook input JSON (appended when absent); `\\$` is a literal dollar."""
    marker = "\x00DOLLAR\x00"
    text = template.replace("\\$", marker)
    text = text.replace("$ARGUMENTS", payload_json) if "$ARGUMENTS" in text else f"{text}\n\n{payload_json}"
    return text.replace(marker, "$") + PROMPT_SUFFIX


async def run_prompt(
    run: HookRun, model_call: PromptModel | None, payload_json: str, timeout: float
) -> HookRun:
    """A prompt (or agent) hook: ask the model, expect {ok, reason, impossible?}."""
    if model_call is None:
        run.outcome = "error"
        run.error = (
            "agent hooks are not available here (no session to start the checking agent); skipped"
            if run.handler.type == "agent"
            else "prompt hooks need a model; none is available in this session"
        )
        return run
    try:
        async with asyncio.timeout(timeout):
            answer = await model_call(
                prompt_text(run.handler.prompt, payload_json), run.handler.model, timeout
            )
    except TimeoutError:
        run.outcome, run.error = "error", f"timed out after {timeout:g} s"
        return run
    except Exception as exc:
        run.outcome, run.error = "error", f"the model call failed: {exc}"
        return run
    run.stdout = answer
    match = re.search(r"\{.*\}", answer, re.DOTALL)
    verdict = parse_json_object(match.group(0)) if match else None
    if verdict is None or not isinstance(verdict.get("ok"), bool):
        run.outcome, run.error = "error", 'the model did not answer with {"ok": true|false, ...}'
        return run
    run.exit_code = 0
    run.output = verdict
    return run


async def run_callback(run: HookRun, payload: dict[str, Any], timeout: float) -> HookRun:
    """An SDK hook: fn(input, tool_use_id, context) returning the hook JSON output (sync or async)."""
    fn = run.handler.callback
    assert fn is not None
    try:
        async with asyncio.timeout(timeout):
            result = fn(payload, payload.get("tool_use_id"), {"signal": None})
            if inspect.isawaitable(result):
                result = await result
    except TimeoutError:
        run.outcome, run.error = "error", f"timed out after {timeout:g} s"
        return run
    except Exception as exc:
        run.outcome, run.error = "error", f"raised {type(exc).__name__}: {exc}"
        return run
    if result is None and run.handler.fail_closed:
        run.outcome, run.error = "error", "returned nothing"
        return run
    if result is None:
        result = {}
    if not isinstance(result, dict):
        run.outcome, run.error = "error", f"returned {type(result).__name__}, not a dict"
        return run
    # The Python SDK spells these with a trailing underscore (reserved words).
    spelled: dict[str, str] = {"async_": "async", "continue_": "continue"}
    run.output = {(spelled.get(k) or k): v for k, v in result.items()}
    run.exit_code = 0
    return run

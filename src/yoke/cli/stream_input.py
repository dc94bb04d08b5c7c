"""`--input-format stream-json`: the bidirectional NDJSON protocol the Claude Agent SDKs speak.

stdin carries user messages and control frames; stdout carries the stream-json messages plus control frames
of our own (`can_use_tool` when launched with `--permission-prompt-tool stdio`). Each user message runs one
query; the session ends at EOF once the running query is done.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from yoke.cli.control_answers import (
    MCP_CONTROL,
    answer_control,
    answer_later,
    answer_mcp_control,
    answer_set_model,
)
from yoke.ids import new_uuid
from yoke.jsonsafe import dict_at
from yoke.jsonsafe import loads as safe_json
from yoke.seams import Answer, NoAsker, PermissionQuestion, answers_given, plan_mode_choice


class ControlChannel:
    """Pairs our control requests with the client's responses, and answers the client's requests."""

    def __init__(self, write: Any):
        self.write = write
        self.pending: dict[str, asyncio.Future] = {}

    async def request(self, payload: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        request_id = new_uuid()
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        self.pending[request_id] = future
        self.write({"type": "control_request", "request_id": request_id, "request": payload})
        try:
            async with asyncio.timeout(timeout):  # not wait_for: it can swallow an interrupt on 3.11
                return await future
        finally:
            self.pending.pop(request_id, None)

    def resolve(self, response: dict[str, Any]) -> None:
        future = self.pending.get(response.get("request_id", ""))
        if future is None or future.done():
            return
        if response.get("subtype") == "error":
            future.set_exception(RuntimeError(str(response.get("error") or "control request failed")))
        else:
            future.set_result(response.get("response") or {})


class StdioAsker(NoAsker):
    """Permission prompts go to the SDK client as `can_use_tool` control requests."""

    def __init__(self, channel: ControlChannel):
        self.channel = channel
        self.on_update: Any = None  # applies the permission updates an answer carries (always allow, modes)
        self.on_ask: Any = (
            None  # awaited before asking: the session host's sessions run the Notification hook
        )

    async def ask(self, question: PermissionQuestion) -> Answer:
        try:
            reply = await self._request(
                question,
                {
                    "permission_suggestions": question.suggestions,
                    "decision_reason": question.reason,
                },
            )
        except (RuntimeError, TimeoutError) as exc:
            return Answer("deny", f"Permission request failed: {exc}")
        if reply.get("behavior") == "allow":
            self._apply_updates(reply.get("updatedPermissions"))
            updated = reply.get("updatedInput")
            # Yoke's "allow for this session" (the terminal's remember; docs/wire.md): narrow session rules
            remember = reply.get("remember") == "session"
            return Answer(
                "allow", updated_input=updated if isinstance(updated, dict) else None, remember=remember
            )
        return Answer(
            "deny", str(reply.get("message") or "Denied by the user."), interrupt=bool(reply.get("interrupt"))
        )

    async def ask_user(
        self, questions: list[dict[str, Any]], tool_use_id: str = ""
    ) -> dict[str, str] | Answer | None:
        """AskUserQuestion, as 2.1.330 asks it: a `can_use_tool` for the tool with `requires_user_interaction`;
        the client allows with `updatedInput.answers` ({question: label(s)}) or denies with a message."""
        question = PermissionQuestion("AskUserQuestion", {"questions": questions}, tool_use_id)
        return answers_given(await self._verdict(question))

    async def approve_plan(self, plan: str, tool_use_id: str = "") -> Answer | None:
        """ExitPlanMode: a `can_use_tool` for the tool (with the plan); allow approves it (a `setMode` among
        `updatedPermissions` picks the mode to go on in), deny keeps planning with the message."""
        return await self._verdict(PermissionQuestion("ExitPlanMode", {"plan": plan}, tool_use_id))

    async def _verdict(self, question: PermissionQuestion) -> Answer:
        try:
            reply = await self._request(question, {"requires_user_interaction": True})
        except (RuntimeError, TimeoutError) as exc:
            return Answer("deny", f"Permission request failed: {exc}")
        if reply.get("behavior") != "allow":
            return Answer("deny", str(reply.get("message") or ""))
        given = reply.get("updatedPermissions")
        updates: list[Any] = given if isinstance(given, list) else []
        mode, rest = plan_mode_choice(updates) if question.tool_name == "ExitPlanMode" else (None, updates)
        self._apply_updates(rest)
        updated = reply.get("updatedInput")
        return Answer("allow", updated_input=updated if isinstance(updated, dict) else None, mode=mode)

    async def _request(self, question: PermissionQuestion, extra: dict[str, Any]) -> dict[str, Any]:
        if self.on_ask is not None:
            await self.on_ask(question)
        return await self.channel.request(
            {
                "subtype": "can_use_tool",
                "tool_name": question.tool_name,
                "input": question.input,
                "tool_use_id": question.tool_use_id,
                **extra,
            }
        )

    def _apply_updates(self, updates: Any) -> None:
        if self.on_update is None or not isinstance(updates, list):
            return
        for update in updates:
            try:
                self.on_update(update)
            except (ValueError, OSError) as exc:
                print(f"yoke: warning: permission update not applied: {exc}", file=sys.stderr)


class StdinLines:
    """stdin read from the start, before the session exists: control responses are resolved at once (an
    Agent SDK answers `mcp_message` requests while the session's MCP servers start), every other line
    waits for the session in `queue` (None at EOF)."""

    def __init__(self, channel: ControlChannel):
        self.channel = channel
        self.queue: asyncio.Queue = asyncio.Queue()
        self.task: asyncio.Task | None = None

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        # stdin is read on a daemon thread of its own, not the loop's executor: a signal ends the process
        # while that thread still waits on a pipe the SDK holds open, and asyncio.run joins executor threads.
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue = asyncio.Queue()

        def read() -> None:
            try:
                for raw in iter(sys.stdin.readline, ""):
                    loop.call_soon_threadsafe(lines.put_nowait, raw)
            except Exception as exc:  # passed on as a line the dispatcher reports, then EOF
                loop.call_soon_threadsafe(lines.put_nowait, exc)
            finally:
                try:
                    loop.call_soon_threadsafe(lines.put_nowait, None)
                except RuntimeError:  # the loop has closed: nobody is reading any more
                    pass

        import threading

        threading.Thread(target=read, name="yoke-stdin", daemon=True).start()
        try:
            while True:
                line = await lines.get()
                if line is None:
                    return
                if isinstance(line, Exception):
                    self.queue.put_nowait(f"stdin reader failed: {type(line).__name__}: {line}")
                    return
                line = line.strip()
                if line and not self._response(line):
                    self.queue.put_nowait(line)
        finally:
            self.queue.put_nowait(None)

    def _response(self, line: str) -> bool:
        if '"control_response"' not in line:
            return False
        try:
            frame = safe_json(line)
        except ValueError:
            return False
        if not isinstance(frame, dict) or frame.get("type") != "control_response":
            return False
        response = frame.get("response")
        self.channel.resolve(response if isinstance(response, dict) else {})
        return True

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()

    def end(self) -> None:
        """No more frames: the queries already running finish, then the session ends as at EOF (a signal)."""
        self.queue.put_nowait(None)


async def serve_stream_json(run: Any, channel: ControlChannel, lines: StdinLines | None = None) -> bool:
    """Prompts from stdin to the session's port until EOF, its events printed as they come (`run.pump`):
    the queries, and the follow-up a background task's notice starts at once, stdin open or not. At EOF the
    queued prompts run, then background work settles. Returns True when the last result was an error."""
    emit = run.printer.emit
    if lines is None:
        lines = StdinLines(channel)
        lines.start()
    run.start()
    reader = asyncio.get_running_loop().create_task(_read_stdin(lines, channel, run, emit))
    try:
        await run.until(reader.done)
        if not run.stopped:  # stdin ended: the queued prompts, background work and its follow-ups
            await run.settle()
        else:  # a signal: the query running writes its result; what is queued waits on disk
            await run.until(lambda: not run.in_turn)
        pending = getattr(run, "pending_controls", None)
        if pending and not run.stopped:  # answers still being worked out (an MCP server reconnecting)
            await asyncio.wait(set(pending), timeout=PENDING_WAIT_S)
    finally:
        reader.cancel()
        lines.stop()
        await run.close()
    return run.last is None or run.last.is_error


class InTurn:
    """What must wait for the queries before it (`set_model` is answered after the query running, before the
    next one, as 2.1.330 answers it): a chain the user messages after it join, so their order holds."""

    def __init__(self) -> None:
        self.tail: asyncio.Future[Any] | None = None

    def then(self, work: Any) -> None:
        before = self.tail

        async def chained() -> None:
            if before is not None:
                await asyncio.shield(before)
            await work()

        self.tail = asyncio.ensure_future(chained())

    @property
    def pending(self) -> bool:
        return self.tail is not None and not self.tail.done()


async def _read_stdin(lines: StdinLines, channel: ControlChannel, run: Any, emit: Any) -> None:
    """Frames from stdin: user messages to the session (each on disk before the next frame is read),
    control traffic answered at once. A bad line gets an error line on stdout and the session goes on;
    nothing here may end the reader but EOF."""
    order = InTurn()
    try:
        while True:
            line = await lines.queue.get()
            if line is None:
                break
            await _dispatch(line, order, channel, run, emit)
        if order.tail is not None:
            await order.tail
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a bug: say so, and let the session end as at EOF
        emit(_input_error(run, f"stdin reader failed: {type(exc).__name__}: {exc}"))
    finally:
        run.hold_results = True  # no more input: a result written while background agents run waits


async def _dispatch(line: str, order: InTurn, channel: ControlChannel, run: Any, emit: Any) -> None:
    try:
        frame = safe_json(line)
    except ValueError as exc:
        why = getattr(exc, "msg", "")  # e.g. nested too deeply (yoke.jsonsafe)
        emit(
            _input_error(
                run, f"ignored a stdin line that is not JSON{f' ({why})' if why else ''}: {line[:80]}"
            )
        )
        return
    if not isinstance(frame, dict):
        emit(_input_error(run, f"ignored a stdin line that is not a JSON object: {line[:80]}"))
        return
    kind = frame.get("type")
    if kind == "user":
        content = _user_content(frame)
        if content is None:
            emit(_input_error(run, "ignored a user message without content (expected message.content)"))
        elif content and not run.stopped:
            replay = _replay(frame, run) if getattr(run, "replay_user_messages", False) else None
            priority = frame.get("priority") if frame.get("priority") in ("now", "next") else "later"
            if order.pending:  # behind a set_model still waiting for its turn
                order.then(lambda: run.submit(content, replay, priority))
            else:
                await run.submit(content, replay, priority)  # echoed when its query starts, after its init
    elif kind == "control_response":
        response = frame.get("response")
        channel.resolve(response if isinstance(response, dict) else {})
    elif kind == "control_request":
        request = dict_at(frame, "request")
        if request.get("subtype") in MCP_CONTROL:  # they wait for a server: answered when done
            answer_later(run, answer_mcp_control(frame, request, run, emit))
        elif request.get("subtype") == "set_model":
            # in turn with the messages, as 2.1.330 answers it: after the queries before it, before the next

            async def in_turn() -> None:
                await run.until(lambda: run.waiting == 0)
                await answer_set_model(frame, request, run, emit)

            order.then(in_turn)
        else:
            emit(answer_control(frame, run, channel))
            run.printer.note_mode(
                run.session.snapshot().permission_mode
            )  # after set_permission_mode's answer
    elif kind == "control_cancel_request":
        return
    else:
        emit(_input_error(run, f"ignored a stdin message of unknown type {kind!r}"))


PENDING_WAIT_S = 30  # at EOF, how long control requests still being answered may take


def _user_content(frame: dict[str, Any]) -> Any:
    """The content of a `user` frame: `message.content` (text or blocks); a bare string message is taken
    as its text."""
    message = frame.get("message")
    if isinstance(message, str):
        return message
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if isinstance(content, (str, list)):
        return content
    return None


def _replay(frame: dict[str, Any], run: Any) -> dict[str, Any]:
    """--replay-user-messages: the user message echoed back on stdout, marked as a replay."""
    return {
        "type": "user",
        "message": frame.get("message"),
        "parent_tool_use_id": frame.get("parent_tool_use_id"),
        "session_id": run.session.snapshot().id,
        "uuid": frame.get("uuid") or new_uuid(),
        "isReplay": True,
    }


def _input_error(run: Any, text: str) -> dict[str, Any]:
    return {
        "type": "system",
        "subtype": "error",
        "error": text,
        "session_id": run.session.snapshot().id,
        "uuid": new_uuid(),
    }

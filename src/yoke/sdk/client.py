"""`query()` and `ClaudeSDKClient` in process: the same calls as `claude-agent-sdk`, on Yoke's session
engine directly (no subprocess, no JSON on pipes)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterable, AsyncIterator, Callable
from pathlib import Path
from typing import Any

from yoke import events as ev
from yoke.events import port
from yoke.events.port import PORT_EVENTS, PortEvent, SessionPort
from yoke.sdk import types as t
from yoke.sdk.convert import MessageConverter
from yoke.seams import Answer, NoAsker, PermissionQuestion, answers_given, plan_mode_choice


class CallbackAsker(NoAsker):
    """`can_use_tool` answers the session's permission questions."""

    def __init__(self, can_use_tool: t.CanUseTool):
        self.can_use_tool = can_use_tool
        # the session's permission updates ("always allow" rules), set when the session is built
        self.on_update: Callable[[dict[str, Any]], None] | None = None

    async def ask(self, question: PermissionQuestion) -> Answer:
        return await self._verdict(question, question.suggestions)

    async def ask_user(
        self, questions: list[dict[str, Any]], tool_use_id: str = ""
    ) -> dict[str, str] | Answer | None:
        """AskUserQuestion through `can_use_tool`, as claude-agent-sdk does: allow with
        `updated_input={"questions": ..., "answers": {question: label(s)}}`, or deny with a message."""
        question = PermissionQuestion("AskUserQuestion", {"questions": questions}, tool_use_id)
        return answers_given(await self._verdict(question, []))

    async def approve_plan(self, plan: str, tool_use_id: str = "") -> Answer | None:
        """ExitPlanMode through `can_use_tool`: allow approves (a `setMode` update picks the mode after it)."""
        return await self._verdict(PermissionQuestion("ExitPlanMode", {"plan": plan}, tool_use_id), [])

    async def _verdict(self, question: PermissionQuestion, suggestions: list[dict[str, Any]]) -> Answer:
        context = t.ToolPermissionContext(
            suggestions=[_update(s) for s in suggestions],
            tool_use_id=question.tool_use_id,
            decision_reason=question.reason or None,
        )
        try:
            result = await self.can_use_tool(question.tool_name, question.input, context)
        except Exception as exc:  # the callback's own bug: nobody said yes
            return Answer("deny", f"can_use_tool failed: {exc}")
        if isinstance(result, t.PermissionResultAllow):
            updates = [update.to_dict() for update in result.updated_permissions or []]
            mode, rest = (
                plan_mode_choice(updates) if question.tool_name == "ExitPlanMode" else (None, updates)
            )
            for update in rest:
                if self.on_update is not None:
                    self.on_update(update)
            return Answer("allow", updated_input=result.updated_input, mode=mode)
        if isinstance(result, t.PermissionResultDeny):
            return Answer("deny", result.message or "Denied.", interrupt=result.interrupt)
        return Answer("deny", f"can_use_tool returned {type(result).__name__}, not a PermissionResult")


def _update(raw: dict[str, Any]) -> t.PermissionUpdate:
    return t.PermissionUpdate(
        type=raw.get("type", ""),
        rules=raw.get("rules"),
        behavior=raw.get("behavior"),
        mode=raw.get("mode"),
        directories=raw.get("directories"),
        destination=raw.get("destination"),
    )


def session_options(options: t.ClaudeAgentOptions) -> Any:
    """The SDK's options as the core's SessionOptions."""
    from yoke.session import SessionOptions

    system_prompt = options.system_prompt
    append = None
    if isinstance(system_prompt, dict):  # {"type": "preset", "preset": "claude_code", "append": "..."}
        append = system_prompt.get("append")
        system_prompt = None
    env = dict(os.environ)
    env.update(options.env or {})
    agents = None
    if options.agents:
        agents = {
            name: {k: v for k, v in vars(d).items() if v is not None} for name, d in options.agents.items()
        }
    from yoke.sdk.mcp import in_process_bridge, mcp_config_values

    return SessionOptions(
        cwd=Path(options.cwd) if options.cwd else Path.cwd(),
        env=env,
        model=options.model,
        provider=options.provider,
        max_thinking_tokens=options.max_thinking_tokens,
        effort=options.effort,
        system_prompt=system_prompt,
        append_system_prompt=append,
        tools=options.tools,
        allowed_tools=list(options.allowed_tools),
        disallowed_tools=list(options.disallowed_tools),
        permission_mode=options.permission_mode,
        add_dirs=[Path(d) for d in options.add_dirs],
        settings=options.settings,
        setting_sources=options.setting_sources,
        max_turns=options.max_turns,
        max_budget_usd=options.max_budget_usd,
        include_partial_messages=options.include_partial_messages,
        resume=options.resume,
        continue_session=options.continue_conversation,
        fork_session=options.fork_session,
        session_id=options.session_id,
        entrypoint="sdk-py",
        agents=agents,
        mcp_config=mcp_config_values(options.mcp_servers),
        mcp_sdk_bridge=in_process_bridge(options.mcp_servers),
        strict_mcp_config=bool(options.strict_mcp_config),
    )


class ClaudeSDKClient:
    """A multi-turn conversation: `connect()`, then `query()` and `receive_response()` as many times as
    wanted, `interrupt()` from another task, `disconnect()` (or use it as an async context manager).

    It drives the session through its port (`yoke.events.port`): a query is a `Prompt` op, the messages come
    from the session's one event stream, so a background agent's notice and the follow-up query it starts
    arrive as they do from the `claude` CLI (after the result of the turn that launched it)."""

    def __init__(self, options: t.ClaudeAgentOptions | None = None):
        self.options = options or t.ClaudeAgentOptions()
        self.session: SessionPort | None = None  # the in-process session, through its port only
        self._converter = MessageConverter(self.options.include_partial_messages)
        self._stream: AsyncIterator[PortEvent] | None = None
        self._waiting = 0  # prompts submitted whose result has not been read
        self._announced = False

    async def connect(self, prompt: str | AsyncIterable[dict[str, Any]] | None = None) -> None:
        from yoke.session import open_session

        options = session_options(self.options)
        if self.options.can_use_tool is not None:
            options.asker = CallbackAsker(self.options.can_use_tool)
        if self.options.hooks:
            from yoke.sdk.hooks import sdk_hook_listener

            options.listeners.append(sdk_hook_listener(self.options.hooks, options.cwd))
        core = await open_session(options)
        if isinstance(options.asker, CallbackAsker):
            options.asker.on_update = core.apply_permission_update
        self.session = core
        self._converter.init_extra = dict(core.snapshot().init)
        self._stream = core.events()
        if prompt is not None:
            await self.query(prompt)

    async def query(self, prompt: str | AsyncIterable[dict[str, Any]], session_id: str = "default") -> None:
        """Queue a prompt; its messages come from `receive_response()`."""
        if isinstance(prompt, str):
            await self._submit(prompt)
            return
        async for message in prompt:
            content = (message.get("message") or {}).get("content")
            if content:
                await self._submit(content)

    async def _submit(self, content: Any) -> None:
        if self.session is None:
            raise RuntimeError("Not connected. Call connect() first.")
        await self.session.submit(port.Prompt(content))
        self._waiting += 1

    async def receive_messages(self) -> AsyncIterator[t.Message]:
        """Every message until the session has nothing more to say: the queued prompts' results, and the
        follow-up queries background work starts, until it is idle."""
        while self._waiting:
            async for message in self._receive(until_idle=True):
                yield message

    async def receive_response(self) -> AsyncIterator[t.Message]:
        """The messages up to and including the next ResultMessage."""
        async for message in self._receive(until_idle=False):
            yield message

    async def _receive(self, until_idle: bool) -> AsyncIterator[t.Message]:
        if self.session is None or self._stream is None:
            raise RuntimeError("Not connected. Call connect() first.")
        if not self._waiting and not until_idle:
            return
        if not self._announced:
            self._announced = True
            started = self.session.snapshot().started
            for message in self._converter.messages(started) if started is not None else ():
                yield message
        async for event in self._stream:
            if isinstance(event, port.Idle):
                if until_idle and not self._waiting:
                    return
                continue
            if isinstance(event, PORT_EVENTS):
                continue
            for message in self._converter.messages(event):
                yield message
            if isinstance(event, ev.Result) and event.agent_id == "main":
                self._waiting = max(0, self._waiting - 1)
                if not until_idle:
                    return

    async def interrupt(self) -> None:
        if self.session is not None:
            await self.session.submit(port.Interrupt())

    async def set_permission_mode(self, mode: str) -> None:
        if self.session is None:
            raise RuntimeError("Not connected. Call connect() first.")
        await self.session.submit(port.SetMode(mode))

    async def set_model(self, model: str | None = None) -> None:
        if model and self.session is None:
            raise RuntimeError("Not connected. Call connect() first.")
        if model and self.session is not None:
            await self.session.submit(port.SetModel(model))  # ValueError: why a hook kept the model

    async def disconnect(self) -> None:
        if self.session is not None:
            await self.session.close()
            self.session = None

    async def __aenter__(self) -> ClaudeSDKClient:
        await self.connect()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.disconnect()


async def query(
    *, prompt: str | AsyncIterable[dict[str, Any]], options: t.ClaudeAgentOptions | None = None
) -> AsyncIterator[t.Message]:
    """One-shot: run the prompt to its result, yielding every message, then close the session."""
    client = ClaudeSDKClient(options)
    await client.connect()
    try:
        await client.query(prompt)
        async for message in client.receive_messages():
            yield message
    finally:
        await client.disconnect()

"""`yoke acp`: Yoke as an Agent Client Protocol agent over stdio, for editors (Zed, JetBrains, Neovim).

One ACP session is one Yoke session (`open_session`); a prompt is one `Session.query`, its events turned into
ACP session updates (message and thought chunks, tool calls with kind, locations, status and diffs, the
plan from the todo list). Permission questions go to the client as `session/request_permission`; the
session modes are Yoke's permission modes; `session/cancel` interrupts the running query. The client's
file system and terminals, when offered, are handed to the session (`acp_client.py`).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import acp
from acp import schema

from yoke import __version__
from yoke import events as ev
from yoke.events import port
from yoke.events.port import PORT_EVENTS, PortEvent, SessionPort
from yoke.ids import new_uuid
from yoke.protocols.acp_updates import UpdateMapper, prompt_from_blocks
from yoke.seams import Answer, NoAsker, PermissionQuestion

if TYPE_CHECKING:
    from yoke.session import Session

MODES = [
    ("default", "Default", "Ask before edits and commands"),
    ("acceptEdits", "Accept edits", "Edit files without asking; still ask for commands"),
    ("plan", "Plan", "Read-only: study and plan, change nothing"),
    ("dontAsk", "Don't ask", "Deny anything that would need a question"),
    ("bypassPermissions", "Bypass permissions", "Run everything without asking"),
]
STOP_REASONS: dict[str, schema.StopReason] = {
    "completed": "end_turn",
    "max_tokens": "max_tokens",
    "max_turns": "max_turn_requests",
}
ALLOW_ONCE, ALLOW_ALWAYS, REJECT = "allow_once", "allow_always", "reject_once"


class ClientAsker(NoAsker):
    """Permission questions become `session/request_permission` requests to the editor."""

    def __init__(self, conn: Any, session_id: str):
        self.conn = conn
        self.session_id = session_id

    async def ask(self, question: PermissionQuestion) -> Answer:
        options = [
            schema.PermissionOption(option_id=ALLOW_ONCE, name="Allow once", kind="allow_once"),
            schema.PermissionOption(
                option_id=ALLOW_ALWAYS, name="Allow for this session", kind="allow_always"
            ),
            schema.PermissionOption(option_id=REJECT, name="Reject", kind="reject_once"),
        ]
        call = schema.ToolCallUpdate(
            tool_call_id=question.tool_use_id,
            title=question.tool_name,
            raw_input=question.input,
            status="pending",
        )
        try:
            response = await self.conn.request_permission(
                session_id=self.session_id, tool_call=call, options=options
            )
        except Exception as exc:  # the editor went away or refused: nobody said yes
            return Answer("deny", f"Permission request failed: {exc}")
        outcome = response.outcome
        if getattr(outcome, "outcome", "") != "selected" or outcome.option_id == REJECT:
            return Answer("deny", "The user rejected this tool call.")
        return Answer("allow", remember=outcome.option_id == ALLOW_ALWAYS)


class YokeAgent:
    """The ACP `Agent` side: sessions keyed by id, each with the query running in it (if any)."""

    def __init__(self) -> None:
        self.conn: Any = None
        self.sessions: dict[str, SessionPort] = {}
        self.forwarders: dict[str, asyncio.Task[None]] = {}  # each session's events -> session/update
        self.turns: dict[str, asyncio.Future[ev.Result]] = {}  # a prompt's id -> its result, when it comes
        self.client_capabilities: Any = None  # what the client offered in `initialize`
        self.terminals: dict[str, Any] = {}  # session id -> its ClientTerminal (None: not offered)

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(
        self, protocol_version: int, client_capabilities: Any = None, **kwargs: Any
    ) -> schema.InitializeResponse:
        self.client_capabilities = client_capabilities
        return schema.InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=schema.AgentCapabilities(
                load_session=True,
                prompt_capabilities=schema.PromptCapabilities(image=True, embedded_context=True),
                mcp_capabilities=schema.McpCapabilities(http=True, sse=True),
            ),
            agent_info=schema.Implementation(name="yoke", title="Yoke", version=__version__),
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> schema.NewSessionResponse:
        session = await self._open(cwd, kwargs.get("additional_directories"), None, kwargs.get("mcp_servers"))
        return schema.NewSessionResponse(session_id=session.id, modes=self._modes(session.permission_mode))

    async def load_session(self, cwd: str, session_id: str, **kwargs: Any) -> schema.LoadSessionResponse:
        session = await self._open(
            cwd, kwargs.get("additional_directories"), session_id, kwargs.get("mcp_servers")
        )
        mapper = UpdateMapper(session.describe_call)
        for update in mapper.history(session.messages):
            await self.conn.session_update(session_id=session.id, update=update)
        return schema.LoadSessionResponse(modes=self._modes(session.permission_mode))

    async def _open(
        self, cwd: str, add_dirs: list[str] | None, resume: str | None, mcp_servers: Any = None
    ) -> Session:
        from yoke.protocols.acp_client import client_files, client_terminal, mcp_config_values
        from yoke.session import SessionError, SessionOptions, open_session

        files = client_files(self.conn, self.client_capabilities)
        # A client that shows locally run output as a terminal gets every command that way, sandbox kept.
        meta = _terminal_meta(self.client_capabilities)
        terminal = None if meta else client_terminal(self.conn, self.client_capabilities)
        options = SessionOptions(
            cwd=Path(cwd),
            add_dirs=[Path(d) for d in add_dirs or []],
            interactive=True,
            resume=resume,
            entrypoint="acp",
            mcp_config=mcp_config_values(mcp_servers),
            workspace_files=files,
            command_terminal=terminal,
        )
        try:
            session = await open_session(options)
        except SessionError as exc:
            raise acp.RequestError.invalid_params({"message": str(exc)}) from None
        session.set_asker(ClientAsker(self.conn, session.id))
        for offered in (files, terminal):
            if offered is not None:
                offered.session_id = session.id
        self.terminals[session.id] = terminal
        self.sessions[session.id] = session
        stream = session.events()  # subscribed before any prompt: nothing is missed
        mapper = UpdateMapper(session.describe_call, terminal, _terminal_meta(self.client_capabilities))
        self.forwarders[session.id] = asyncio.get_running_loop().create_task(
            self._forward(session.id, mapper, stream)
        )
        await self.conn.session_update(
            session_id=session.id,
            update=schema.AvailableCommandsUpdate(
                session_update="available_commands_update",
                available_commands=[
                    schema.AvailableCommand(
                        name="compact", description="Summarize the conversation to free context"
                    )
                ],
            ),
        )
        return session

    def _modes(self, mode: str) -> schema.SessionModeState:
        return schema.SessionModeState(
            current_mode_id=mode,
            available_modes=[schema.SessionMode(id=i, name=n, description=d) for i, n, d in MODES],
        )

    def _session(self, session_id: str) -> SessionPort:
        session = self.sessions.get(session_id)
        if session is None:
            raise acp.RequestError.invalid_params({"message": f"unknown session {session_id}"})
        return session

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> None:
        session = self._session(session_id)
        try:
            await session.submit(port.SetMode(mode_id))
        except ValueError as exc:
            raise acp.RequestError.invalid_params({"message": str(exc)}) from None
        await self.conn.session_update(
            session_id=session_id,
            update=schema.CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode_id),
        )

    async def _forward(self, session_id: str, mapper: UpdateMapper, stream: AsyncIterator[PortEvent]) -> None:
        """Every event of the session as `session/update`s, also those of turns no `session/prompt` asked
        for (the follow-up query a background agent's notice starts); a prompt's result resolves it."""
        current = ""
        async for event in stream:
            if isinstance(event, port.TurnBegan):
                current = event.prompt_id
            if isinstance(event, PORT_EVENTS):
                continue
            try:
                for update in mapper.updates(event):
                    await self.conn.session_update(session_id=session_id, update=update)
            except Exception:  # the editor went away: the turn goes on, its result still answers the prompt
                pass
            if isinstance(event, ev.Result) and event.agent_id == "main":
                waiting = self.turns.pop(current, None)
                if waiting is not None and not waiting.done():
                    waiting.set_result(event)

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> schema.PromptResponse:
        session = self._session(session_id)
        ident = new_uuid()
        waiting: asyncio.Future[ev.Result] = asyncio.get_running_loop().create_future()
        self.turns[ident] = waiting
        await session.submit(port.Prompt(prompt_from_blocks(prompt), id=ident))
        result: ev.Result | None = await waiting
        reason: schema.StopReason = "cancelled"
        if result is not None and result.reason != "interrupted":
            reason = STOP_REASONS.get(result.reason, "end_turn")
            if result.is_error and result.reason not in STOP_REASONS:
                await self.conn.session_update(
                    session_id=session_id, update=acp.update_agent_message_text(f"\n\nError: {result.text}")
                )
        return schema.PromptResponse(stop_reason=reason)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            await session.submit(port.Interrupt())

    async def close_session(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.pop(session_id, None)
        self.terminals.pop(session_id, None)
        forwarder = self.forwarders.pop(session_id, None)
        if forwarder is not None:
            forwarder.cancel()
        if session is not None:
            await session.close()

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        return None

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise acp.RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    async def close_all(self) -> None:
        for forwarder in self.forwarders.values():
            forwarder.cancel()
        for session in list(self.sessions.values()):
            await session.close()


def _terminal_meta(capabilities: Any) -> bool:
    """Whether the client takes Bash output in `_meta` and shows it as a terminal (Zed's extension, also
    used by its Codex and Claude adapters)."""
    meta = getattr(capabilities, "field_meta", None)
    return isinstance(meta, dict) and meta.get("terminal_output") is True


def acp_command(argv: list[str]) -> int:
    if argv and argv[0] in ("-h", "--help"):
        print("usage: yoke acp\n\nRun Yoke as an Agent Client Protocol agent on stdin/stdout (for editors).")
        return 0
    if argv:
        print(f"yoke acp: unexpected argument {argv[0]!r} (see yoke acp --help)", file=sys.stderr)
        return 2
    agent = YokeAgent()

    async def main() -> None:
        try:
            await acp.run_agent(agent)
        finally:
            await agent.close_all()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        return 130
    return 0

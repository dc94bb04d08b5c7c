"""The tool seam: what every tool declares and how it reports back.

A tool has a model-facing name and description, a pydantic input model (its JSON schema is what the model
sees), safety flags, and `async run(input, ctx) -> ToolResult`. Tools raise `ToolError` for failures the
model should see and correct; any other exception is turned into a structured error by the executor.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from yoke.records import Record
from yoke.tools.services import SessionServices

if TYPE_CHECKING:
    from collections.abc import Callable

    from pydantic import BaseModel

    from yoke.events import Event
    from yoke.sandbox.confine import Confinement
    from yoke.seams import Asker
    from yoke.tools.shell.terminal import CommandTerminal
    from yoke.tools.workspace import WorkspaceFiles

from yoke.messages import Block


class ToolResult(Record):
    """What a tool returns.

    content: what the model sees (text, or a list of text/image blocks).
    data: the structured output (Claude Code's `tool_use_result`), shown to SDK clients, never to the model.
    """

    __slots__ = ("content", "is_error", "data")

    content: str | list[Block]
    is_error: bool
    data: Any

    def __init__(self, content: str | list[Block], is_error: bool = False, data: Any = None) -> None:
        self.content = content
        self.is_error = is_error
        self.data = data


class ToolError(Exception):
    """A failure the model should read and correct (wrapped in <tool_use_error> for the model)."""


class ToolInputError(ToolError):
    """The input does not fit the tool's schema (reported to the model as an InputValidationError)."""


# What a call does, in the Agent Client Protocol's words: permissions, checkpoints and front-ends read it
# instead of keeping lists of tool names.
ToolKind = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"
]


class FileState(Record):
    """A file as a tool last saw it: the basis of the read-before-write and stale-edit checks."""

    __slots__ = ("mtime_ns", "size", "sha256", "partial")

    mtime_ns: int
    size: int
    sha256: str
    partial: bool  # read with offset/limit or truncated

    def __init__(self, mtime_ns: int, size: int, sha256: str, partial: bool = False) -> None:
        self.mtime_ns = mtime_ns
        self.size = size
        self.sha256 = sha256
        self.partial = partial


class SessionState(Record):
    """Per-session state tools share (one object per session, handed to every call)."""

    __slots__ = ("session_id", "session_dir", "read_files", "shell_cwd", "services")

    def __init__(
        self,
        session_id: str,
        session_dir: Path,  # where spilled outputs and task logs go
        read_files: dict[str, FileState] | None = None,  # realpath -> state when read/written
        shell_cwd: Path | None = None,  # Bash's working directory, carried between calls
        services: SessionServices | None = None,  # the session's named services (tools/services.py)
    ) -> None:
        self.session_id = session_id
        self.session_dir = session_dir
        self.read_files: dict[str, FileState] = {} if read_files is None else read_files
        self.shell_cwd = shell_cwd
        self.services = SessionServices() if services is None else services


REFUSED_BY_USER = "user:refused"  # PermissionDecided's source when the user refused a question or a plan


class ToolContext(Record):
    """Everything a running tool may use. The session holds one; every call gets its own copy (`for_call`)
    carrying its id and its own event channel, sharing the session's state and cancellation."""

    __slots__ = (
        "cwd",
        "session",
        "working_dirs",
        "env",
        "cancel",
        "tool_use_id",
        "asker",
        "emit",
        "set_permission_mode",
        "files",
        "terminal",
        "confinement",
    )
    cwd: Path
    session: SessionState
    working_dirs: list[Path]
    env: dict[str, str] | None
    cancel: asyncio.Event
    tool_use_id: str
    asker: Asker | None
    emit: Callable[[Event], None] | None
    set_permission_mode: Callable[[str], None] | None
    files: WorkspaceFiles | None
    terminal: CommandTerminal | None
    confinement: Confinement | None

    def __init__(
        self,
        cwd: Path,
        session: SessionState,
        working_dirs: list[Path] | None = None,
        env: dict[str, str] | None = None,
        cancel: asyncio.Event | None = None,
        tool_use_id: str = "",
        asker: Asker | None = None,
        emit: Callable[[Event], None] | None = None,
        set_permission_mode: Callable[[str], None] | None = None,
        files: WorkspaceFiles | None = None,
        terminal: CommandTerminal | None = None,
        confinement: Confinement | None = None,
    ) -> None:
        self.cwd = cwd  # the session's primary working directory
        self.session = session
        self.working_dirs = [] if working_dirs is None else working_dirs  # cwd plus additional directories
        self.env = env  # the session's environment for subprocesses (None: Yoke's own)
        self.cancel = asyncio.Event() if cancel is None else cancel  # set when the user interrupts
        self.tool_use_id = tool_use_id
        # the front-end's Asker (yoke.seams.Asker); None or NoAsker when nobody is there
        self.asker = asker
        self.emit = emit  # callable(event) for tools that publish events (e.g. todo updates); per call
        self.set_permission_mode = set_permission_mode  # callable(mode): an approved plan leaves plan mode
        self.files = files  # tools.workspace.WorkspaceFiles: a front-end's view of text files; None: the disk
        # tools.shell.terminal.CommandTerminal: a front-end's terminals; None: local only
        self.terminal = terminal
        # sandbox.confine.Confinement: the property the gate allowed this call for, enforced while it runs
        self.confinement = confinement

    def refused(self, tool_name: str, input: dict[str, Any], message: str) -> None:
        """The user refused a tool that asks them itself (a question, a plan): a denial of this call, in the
        result's `permission_denials` as 2.1.330 lists it, without a `permission_denied` line."""
        if self.emit is not None:
            from yoke.events import PermissionDecided

            self.emit(PermissionDecided(self.tool_use_id, tool_name, input, "deny", REFUSED_BY_USER, message))

    def all_dirs(self) -> list[Path]:
        return [self.cwd, *[d for d in self.working_dirs if d != self.cwd]]

    def for_call(self, tool_use_id: str, emit: Callable[[Event], None] | None = None) -> ToolContext:
        return self.replace(tool_use_id=tool_use_id, emit=emit)


class Tool:
    """Base class for tools. Subclasses set the class attributes and implement `run`."""

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()  # legacy names accepted in calls, rules and matchers
    description: ClassVar[str]
    input_model: ClassVar[type[BaseModel]]
    kind: ClassVar[ToolKind] = "other"
    path_fields: ClassVar[tuple[str, ...]] = ()  # input fields that name a file or folder the call touches
    read_only: ClassVar[bool] = False
    destructive: ClassVar[bool] = False
    concurrency_safe: ClassVar[bool] = False
    timeout_s: ClassVar[float | None] = None  # executor-enforced ceiling; None = the executor default
    max_result_chars: ClassVar[int] = 100_000
    ends_query: ClassVar[bool] = False  # a successful call is the query's last step (StructuredOutput)

    def prepare(self) -> None:
        """The model has begun a call to this tool: get ready to run it (a lazily loaded tool starts
        loading). Never blocks and never raises."""

    def is_concurrency_safe(self, input: Any) -> bool:
        """Whether this particular call may run alongside others (defaults to the class flag)."""
        return self.concurrency_safe

    def is_read_only(self, input: Any) -> bool:
        return self.read_only

    def validate(self, input: dict[str, Any]) -> Any:
        """The raw JSON input parsed into what `run` takes; `ToolInputError` says what does not fit.
        Built-in tools parse with their pydantic model; tools described by a JSON schema (MCP) override."""
        try:
            return self.input_model.model_validate(input)
        except Exception as exc:  # pydantic's ValidationError, imported only with the tool
            raise ToolInputError(validation_summary(exc)) from None

    def paths(self, input: dict[str, Any]) -> list[str]:
        """The paths this call's input names, as written (resolution is the caller's business)."""
        return [v for k in self.path_fields if isinstance(v := input.get(k), str) and v]

    def input_schema(self) -> dict[str, Any]:
        schema = self.input_model.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            if isinstance(prop, dict):
                prop.pop("title", None)
        return schema

    async def run(self, input: Any, ctx: ToolContext) -> ToolResult:  # pragma: no cover - abstract
        raise NotImplementedError

    def summary(self, input: Any) -> str:
        """A short human-readable description of a call (for prompts and logs)."""
        return self.name


def validation_summary(exc: Exception) -> str:
    """A pydantic validation error as one line: `field: problem; field: problem`."""
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return str(exc)
    parts = []
    for err in errors():
        loc = ".".join(str(p) for p in err.get("loc", ())) or "input"
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    return "; ".join(parts)

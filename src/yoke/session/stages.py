"""The records assembly hands from stage to stage: environment → model setup → capabilities → agent →
session (`session/build.py`). Each is frozen once its stage returns it: a later stage reads it and never
changes it. A sub-agent runs the same stages with `Inherited`: its parent session and the parent's records,
and what it may differ in (`ChildOptions`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke.records import FrozenRecord

if TYPE_CHECKING:
    from yoke.agents.child_options import ChildOptions
    from yoke.loop.executor import ToolExecutor
    from yoke.loop.lifecycle import Lifecycle
    from yoke.loop.turn import LoopSettings
    from yoke.permissions.pipeline import PermissionGate
    from yoke.session.engine import Session
    from yoke.session.options import SessionOptions
    from yoke.session.resources import ResourceStack
    from yoke.session.resume import Loaded


class Environment(FrozenRecord):
    """Stage one (`session/environment.py`): settings, the session's own environment, the Yoke home, the
    agent definitions, and the options as `--agent` leaves them. `warnings` collects every stage's."""

    __slots__ = ("options", "cwd", "settings", "env", "home", "add_dirs", "catalog", "warnings")
    options: SessionOptions
    cwd: Path
    settings: Any
    env: dict[str, str]
    home: Path
    add_dirs: list[Path]
    catalog: Any
    warnings: list[str]

    def __init__(self, **fields: Any) -> None:
        self._fill(**fields)

    @property
    def merged(self) -> dict[str, Any]:
        return getattr(self.settings, "merged", {}) or {}


class ModelSetup(FrozenRecord):
    """Stage two (`session/model_setup.py`): the provider and model, the loop's settings, the cost ledger,
    and the conversation the model continues (`loaded`: transcript and record chain; `messages`)."""

    __slots__ = (
        "provider",
        "provider_name",
        "model",
        "settings",
        "ledger",
        "loaded",
        "messages",
        "telemetry",
    )
    provider: Any
    provider_name: str
    model: str
    settings: LoopSettings
    ledger: Any
    loaded: Loaded
    messages: list[Any]
    telemetry: Any  # `telemetry.attach.SessionTelemetry` when the main session exports telemetry, else None

    def __init__(self, **fields: Any) -> None:
        self._fill(**fields)


class Capabilities(FrozenRecord):
    """Stage three (`session/capabilities.py`): what the session can do and who watches it: tools, the gate,
    MCP servers, the lifecycle with its hooks, the tool executor (its context and services), memory,
    extensions, and the resources that close with the session."""

    __slots__ = (
        "resources",
        "registry",
        "gate",
        "mcp",
        "side_events",
        "recorder",
        "lifecycle",
        "executor",
        "memory",
        "auto_memory",
        "extensions",
        "structured",
        "working_dirs",
        "session_dir",
    )
    resources: ResourceStack
    registry: Any
    gate: PermissionGate
    mcp: Any
    side_events: list[Any]
    recorder: Any
    lifecycle: Lifecycle
    executor: ToolExecutor
    memory: Any
    auto_memory: Any
    extensions: Any
    structured: Any
    working_dirs: list[Path]
    session_dir: Path

    def __init__(self, **fields: Any) -> None:
        self._fill(**fields)


class Stages(FrozenRecord):
    """A built session's records: what its sub-agents inherit."""

    __slots__ = ("environment", "model", "capabilities")
    environment: Environment
    model: ModelSetup
    capabilities: Capabilities

    def __init__(self, environment: Environment, model: ModelSetup, capabilities: Capabilities) -> None:
        self._fill(environment=environment, model=model, capabilities=capabilities)


class Inherited(FrozenRecord):
    """A sub-agent's inherited inputs: its parent session (live: its provider, gate, tools and history
    may have changed since it was built), the parent's records, what the child differs in, its ids."""

    __slots__ = ("parent", "stages", "options", "agent_id", "parent_tool_use_id")
    parent: Session
    stages: Stages
    options: ChildOptions
    agent_id: str
    parent_tool_use_id: str

    def __init__(self, **fields: Any) -> None:
        self._fill(**fields)

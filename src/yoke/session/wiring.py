"""What a front-end plugs into a session, or asks about a prompt before it goes out, beyond `SessionOptions`:
its own hook callbacks (the Agent SDK's, in process or over the control protocol), an MCP tool that answers
permission questions (`--permission-prompt-tool`), whether a prompt is a `# note` and whether it fits the
model's window, and the environment that caps auto-compaction (`--autocompact`). Front-ends import this
module, never `hooks/`, `mcp/`, `memory/`, `context/` or `providers/`; each is imported when its operation
runs."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yoke.loop.lifecycle import LifecycleListener
    from yoke.seams import Asker
    from yoke.session.engine import Session

HookCallback = Callable[[dict[str, Any], "str | None", Any], Awaitable[Any]]
# (event, matcher, callback, timeout in seconds or None)
CallbackHook = tuple[str, str, HookCallback, "float | None"]
ControlCall = Callable[[str, dict[str, Any], "str | None"], Awaitable["dict[str, Any] | None"]]


def callback_listener(cwd: Path, hooks: Iterable[CallbackHook]) -> LifecycleListener:
    """A lifecycle listener (for `SessionOptions.listeners`) that runs Python callbacks as hooks, through the
    same matching and output rules as hooks from settings."""
    from yoke.hooks.listener import HookListener

    listener = HookListener(project_dir=Path(cwd))
    for event, matcher, callback, timeout in hooks:
        listener.register_callback(event, callback, matcher=matcher, timeout=timeout)
    return listener


def attach_control_hooks(session: Session, hooks: Any, call: ControlCall) -> list[str]:
    """An Agent SDK client's hooks (its `initialize` request's `hooks` field) on a running session: each
    callback id is answered by `call(callback_id, input, tool_use_id)`. Returns warnings for what was skipped."""
    if not hooks:
        return []
    from yoke.hooks.listener import HookListener
    from yoke.hooks.sdk import register_sdk_hooks

    listener = HookListener(project_dir=session.cwd, work_dir=getattr(session, "session_dir", None))
    warnings = register_sdk_hooks(listener, hooks, call)
    if listener.groups:
        session.agent.lifecycle.add(listener)
        session.resources.add(listener, "sdk hooks")
    return warnings


def prompt_tool_asker(session: Session, name: str) -> Asker:
    """The asker that hands permission questions to the MCP tool `name`; ValueError (one line naming the MCP
    tools there are) when the session has no such tool."""
    from yoke.mcp.prompt_tool import McpPromptToolAsker
    from yoke.mcp.tools import McpTool

    registry = session.agent.executor.registry
    tool = registry.get(name)
    if not isinstance(tool, McpTool):
        available = [t.name for t in registry if isinstance(t, McpTool)]
        listed = ", ".join(available) if available else "none (configure a server with --mcp-config)"
        raise ValueError(
            f"MCP tool {name} (passed via --permission-prompt-tool) not found. Available MCP tools: {listed}"
        )
    return McpPromptToolAsker(tool)


def note_text(prompt: str) -> str | None:
    """The note in a `# note` prompt (saved to a memory file, no model call), or None for any other prompt."""
    from yoke.memory.note import note_text as text

    return text(prompt)


def oversized_prompt(session: Session, prompt: str) -> str:
    """Why `prompt` cannot be sent (it alone fills the session's model's window), or ""."""
    from yoke.context.oversize import oversized_prompt as why

    return why(prompt, session.model)


def autocompact_env(env: Mapping[str, str], window: str) -> dict[str, str]:
    """A copy of `env` in which auto-compaction treats the context window as at most `window` tokens."""
    from yoke.providers.tokens import AUTOCOMPACT_WINDOW_ENV

    return dict(env, **{AUTOCOMPACT_WINDOW_ENV: window})


def plug_host_link(session: Session, call: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]) -> None:
    """A hosted session's way to its host (`call`: a request over the control protocol, answered by the
    host): ListAgents lists the host's other sessions and SendMessage reaches them (host/messages.py)."""
    session.services.host_link = call

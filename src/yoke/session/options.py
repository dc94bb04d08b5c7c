"""What a session is built from: every choice a user can make with a flag, a settings file or the SDK.

Front-ends fill a `SessionOptions` and hand it to `open_session` (`yoke.session.build`); nothing else
assembles a session. Settings files are read by the session itself (`setting_sources`, `settings`), so
an option left at its default means "whatever the user's settings say".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke.loop.lifecycle import LifecycleListener
from yoke.records import dataclass

if TYPE_CHECKING:
    from yoke.providers.gated import RequestGate


@dataclass
class SessionOptions:
    """Everything a session is built from; each field's default defers to the user's settings."""

    cwd: Path = field(default_factory=Path.cwd)
    """The project folder the session works in."""

    env: Mapping[str, str] | None = None
    """The environment the session sees (provider keys, tool subprocesses); None means Yoke's own. Settings'
    `env` blocks are applied on top of a copy of it; the process environment is never changed."""

    # ---- model and provider --------------------------------------------------------------------------
    model: str | None = None
    """A model id or alias (sonnet, opus, haiku); None: settings, then the provider's default."""
    provider: str | None = None
    profile: str | None = None
    """A profile's name (`yoke profile`, docs/movein.md): its provider, model, key reference, budget, sandbox
    and permission defaults; None: `YOKE_PROFILE`, `.yoke/profile`, settings `"profile"`, the user's default.
    After assembly: the name of the profile in force, or None."""
    """anthropic | openai | bedrock | vertex | replay; None: chosen from the environment and settings."""
    replay: Path | None = None
    """Answer from this recorded cassette instead of a model."""
    record: Path | None = None
    """Record every model exchange to this cassette."""
    fallback_model: str | None = None
    """Switch to this model when the main one stays overloaded (529) after the retries."""
    max_output_tokens: int | None = None
    max_thinking_tokens: int | None = None
    show_subagent_thinking: bool = False
    """Someone reads sub-agents' thinking (--forward-subagent-text): their requests ask for it in full."""
    effort: str | None = None
    """Reasoning effort (low, medium, high, xhigh, max) for models that take one (--effort)."""
    betas: list[str] = field(default_factory=list)
    """Extra `anthropic-beta` header values (--betas)."""

    # ---- prompt -----------------------------------------------------------------------------------------
    system_prompt: str | None = None
    """Replaces Yoke's system prompt."""
    append_system_prompt: str | None = None
    """Appended to the system prompt."""

    json_schema: dict[str, Any] | None = None
    """--json-schema: the final answer must be JSON valid against this schema, given through the
    StructuredOutput tool; the result carries it as `structured_output`."""

    # ---- tools and permissions --------------------------------------------------------------------------
    tools: list[str] | None = None
    """Restrict the built-in tools to these names; None: all of them."""
    allowed_tools: list[str] = field(default_factory=list)
    """Permission rules that allow (`Bash(git log:*)`, `Read`)."""
    disallowed_tools: list[str] = field(default_factory=list)
    """Permission rules that deny; a bare tool name hides the tool from the model."""
    permission_mode: str | None = None
    """default | acceptEdits | plan | dontAsk | bypassPermissions; None: settings' defaultMode."""
    allow_bypass: bool = False
    """Let the session switch into bypassPermissions later (--allow-dangerously-skip-permissions)."""
    add_dirs: list[Path] = field(default_factory=list)
    """Folders outside cwd the tools may work in."""
    interactive: bool = False
    """A person can be asked (terminal UI); headless sessions deny what would need a question."""
    asker: Any = None
    """The front-end's `Asker` (yoke.seams): permission prompts, questions, plan approval. None: nobody
    is there, so questions are answered no."""

    # ---- sub-agents ---------------------------------------------------------------------------------
    agents: str | dict[str, Any] | None = None
    """Extra agent definitions: `--agents` JSON or the SDK's dict ({name: {description, prompt, ...}})."""
    agent: str | None = None
    """Run the main session as this agent (`--agent NAME`): its prompt, tools, model and mode."""

    # ---- settings -----------------------------------------------------------------------------------
    settings: str | None = None
    """A settings file path or JSON string given explicitly (highest precedence after managed)."""
    setting_sources: list[str] | None = None
    """Which settings files to read: user, project, local; None: all."""

    # ---- MCP ------------------------------------------------------------------------------------------
    mcp_config: list[str] = field(default_factory=list)
    """MCP server configurations (files or JSON strings, `{"mcpServers": {...}}`) added for this session."""
    strict_mcp_config: bool = False
    """Use only `mcp_config`'s servers, ignoring .mcp.json, ~/.claude.json and ~/.yoke/mcp.json."""
    mcp_sdk_bridge: Any = None
    """How to reach an Agent SDK's in-process MCP servers (`"type": "sdk"`): async (server name, JSON-RPC
    message) -> the JSON-RPC answer. Set by the front-end that speaks to the SDK."""

    # ---- limits -------------------------------------------------------------------------------------
    max_turns: int | None = None
    max_budget_usd: float | None = None
    request_gate: RequestGate | None = None
    """Awaited with each model request (`providers.transport.HttpRequest`) before it is sent: a shared rate
    limiter (`yoke batch`). None: requests go at once."""
    include_partial_messages: bool = False
    """Emit raw provider stream events (StreamEvent)."""

    # ---- persistence ----------------------------------------------------------------------------------
    resume: str | None = None
    """Resume this session id (or transcript path)."""
    continue_session: bool = False
    """Continue the latest session in cwd (a new one if there is none)."""
    fork_session: bool = False
    """With resume/continue: copy the history into a new session id."""
    session_id: str | None = None
    """Use this id for a new (or forked) session."""
    persist: bool = True
    """Write the transcript (False: --no-session-persistence)."""
    entrypoint: str = "sdk-py"
    """Recorded in the transcript (cli, sdk-py, ...)."""

    # ---- extensions ---------------------------------------------------------------------------------
    plugin_dirs: list[Path] = field(default_factory=list)
    """Plugin folders loaded for this session only (--plugin-dir), besides the enabled installed plugins."""
    worktree: str | None = None
    """--worktree [name]: work in a git worktree ("" = a generated name); None: in cwd."""
    listeners: list[LifecycleListener] = field(default_factory=list)
    """Lifecycle listeners to plug in (hook runners, SDK callbacks)."""
    hook_report: Any = None
    """Called with each hook run's report (`yoke.wire.hook_lines.stream_reporter`: stream-json's hook lines)."""
    restricted: bool = False
    """--restricted: the file tools read nothing outside the working directories."""
    workspace_files: Any = None
    """A `yoke.tools.workspace.WorkspaceFiles`: Read, Write and Edit read and write text through it (an
    editor's buffers, over ACP). None: the local disk. Sub-agents share it."""
    command_terminal: Any = None
    """A `yoke.tools.shell.terminal.CommandTerminal`: foreground Bash commands the sandbox does not cover run
    in it, so the front-end (an editor, over ACP) shows them live. None: every command runs locally."""

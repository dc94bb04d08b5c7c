"""Sub-agent definitions, from where Claude Code finds them: built-ins, `~/.claude/agents/`, the project's
`.claude/agents/` (walked up to the repository root, the closest winning), `--agents` JSON and the SDK's
`agents` option. A definition is Markdown with YAML frontmatter; the body is the agent's system prompt.
Invalid files are skipped with one warning naming the file."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from yoke.jsonsafe import loads as safe_json
from yoke.records import Record
from yoke.skills.model import js_description, js_model, js_text, tool_list

READ_ONLY_TOOLS = ["Read", "Glob", "Grep", "Bash", "WebFetch", "WebSearch", "TodoWrite"]


class AgentDefinition(Record):
    __slots__ = (
        "name",
        "description",
        "prompt",
        "tools",
        "disallowed_tools",
        "model",
        "permission_mode",
        "max_turns",
        "background",
        "isolation",
        "effort",
        "skills",
        "mcp_servers",
        "hooks",
        "memory",
        "initial_prompt",
        "read_only",
        "source",
        "path",
    )

    def __init__(
        self,
        name: str,
        description: str,
        prompt: str,
        tools: list[str] | None = None,  # None: every tool a sub-agent may have
        disallowed_tools: list[str] | None = None,
        model: str | None = None,  # None or "inherit": the parent's
        permission_mode: str | None = None,
        max_turns: int | None = None,
        background: bool = False,
        isolation: str | None = None,  # "worktree"
        effort: str | None = None,
        skills: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        hooks: dict[str, Any] | None = None,
        memory: str | None = None,
        initial_prompt: str | None = None,
        read_only: bool = False,  # built-in Explore/Plan: no file changes whatever the tools say
        source: str = "built-in",  # built-in, user, project, flag, sdk, plugin
        path: Path | None = None,
    ) -> None:
        self.name = name
        self.description = description
        self.prompt = prompt
        self.tools = tools
        self.disallowed_tools = [] if disallowed_tools is None else disallowed_tools
        self.model = model
        self.permission_mode = permission_mode
        self.max_turns = max_turns
        self.background = background
        self.isolation = isolation
        self.effort = effort
        self.skills = [] if skills is None else skills
        self.mcp_servers = [] if mcp_servers is None else mcp_servers
        self.hooks = {} if hooks is None else hooks
        self.memory = memory
        self.initial_prompt = initial_prompt
        self.read_only = read_only
        self.source = source
        self.path = path


BUILT_IN = [
    AgentDefinition(
        name="general-purpose",
        description=(
            "General-purpose agent for researching complex questions, searching for code, and executing "
            "multi-step tasks. Use it when a search may take several tries."
        ),
        prompt=(
            "You are an agent working on a task handed to you by another agent. Use the tools available to "
            "complete it fully; when you are done, answer with a concise report of what you found or did, "
            "including the file paths that matter. The report is all the other agent will see."
        ),
    ),
    AgentDefinition(
        name="Explore",
        description=(
            "Fast read-only agent for exploring a codebase: finding files by pattern, searching code for "
            "keywords, answering questions about how the code works. It cannot change files."
        ),
        prompt=(
            "You are a read-only search specialist. Find what was asked using Glob, Grep, Read and read-only "
            "shell commands; never create, modify or delete files. Answer with the relevant file paths and "
            "a short explanation."
        ),
        tools=READ_ONLY_TOOLS,
        read_only=True,
    ),
    AgentDefinition(
        name="Plan",
        description=(
            "Read-only planning agent: studies the code and returns a step-by-step implementation plan, "
            "with the files to change. It cannot change files."
        ),
        prompt=(
            "You are a software architect. Study the relevant code with read-only tools and return a "
            "concrete, step-by-step implementation plan naming the files and functions to change. Never "
            "modify files."
        ),
        tools=READ_ONLY_TOOLS,
        read_only=True,
    ),
]


class AgentCatalog:
    """Every definition a session can use, by name (later sources override earlier ones)."""

    def __init__(self, definitions: list[AgentDefinition] | None = None, warnings: list[str] | None = None):
        self.by_name: dict[str, AgentDefinition] = {}
        self.warnings = list(warnings or [])
        self.withheld_tools: list[Any] = []  # `--agent` took these from the main session, not from its agents
        for definition in definitions or []:
            self.by_name[definition.name] = definition

    def get(self, name: str) -> AgentDefinition | None:
        return self.by_name.get(name)

    def names(self) -> list[str]:
        return list(self.by_name)

    def add(self, definition: AgentDefinition) -> None:
        self.by_name[definition.name] = definition


def load_catalog(
    cwd: Path,
    *,
    env: Mapping[str, str] | None = None,
    flag_agents: str | dict[str, Any] | None = None,
    extra: list[AgentDefinition] | None = None,
) -> AgentCatalog:
    """Built-ins, then user, then project (outermost first, so the closest folder wins), then `--agents`
    and the SDK's definitions."""
    env = os.environ if env is None else env
    warnings: list[str] = []
    found = list(BUILT_IN)
    found += load_dir(_claude_dir(env) / "agents", "user", warnings)
    for folder in reversed(_project_dirs(cwd)):
        found += load_dir(folder / ".claude" / "agents", "project", warnings)
    if flag_agents:
        found += parse_agents_json(flag_agents, "flag", warnings)
    found += extra or []
    return AgentCatalog(found, warnings)


def load_dir(directory: Path, source: str, warnings: list[str]) -> list[AgentDefinition]:
    if not directory.is_dir():
        return []
    out = []
    for path in sorted(directory.rglob("*.md")):
        definition = parse_agent_file(path, source, warnings)
        if definition is not None:
            out.append(definition)
    return out


def parse_agent_file(path: Path, source: str, warnings: list[str]) -> AgentDefinition | None:
    """A user or project agent file, as Claude Code 2.1.330 takes one: it needs a `name` (any text without
    `:` that does not start with `-`) and a `description`; other fields of an unexpected type are ignored."""
    read = _read_agent_file(path, warnings)
    if read is None:
        return None
    meta, body = read
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        if meta:
            warnings.append(f"{path}: skipped, it has no `name` in its frontmatter")
        return None
    return _definition(meta, body.strip(), source, path, warnings)


def parse_plugin_agent_file(
    path: Path, plugin: str, folder: Path, warnings: list[str]
) -> AgentDefinition | None:
    """A plugin's agent: named `plugin:sub:folders:name` (the `name` field, else the file's name) and never
    refused over its frontmatter; no description falls back to `when_to_use`, then to the plugin's name."""
    read = _read_agent_file(path, warnings)
    if read is None:
        return None
    meta, body = read
    own = js_text(meta.get("name"))
    own = own if own and len(own) <= MAX_NAME else path.stem
    try:
        namespace = list(path.parent.relative_to(folder).parts)
    except ValueError:
        namespace = []
    description = (
        js_description(meta.get("description"))
        or js_description(meta.get("when_to_use"))
        or js_description(meta.get("when-to-use"))
        or f"Agent from {plugin} plugin"
    )
    meta = {**meta, "name": ":".join([plugin, *namespace, own]), "description": description}
    definition = _definition(meta, body.strip(), "plugin", path, warnings, namespaced=True)
    if definition is not None:  # plugins may not set these (Claude Code ignores them too)
        definition.hooks, definition.mcp_servers, definition.permission_mode = {}, [], None
    return definition


def _read_agent_file(path: Path, warnings: list[str]) -> tuple[dict[str, Any], str] | None:
    from yoke.skills.frontmatter import parse_frontmatter, read_markdown

    try:
        text = read_markdown(path)
    except (OSError, UnicodeDecodeError) as exc:
        warnings.append(f"{path}: skipped, cannot read it ({getattr(exc, 'strerror', None) or exc})")
        return None
    return parse_frontmatter(text)


def parse_agents_json(value: str | dict[str, Any], source: str, warnings: list[str]) -> list[AgentDefinition]:
    """`--agents '{"name": {"description": ..., "prompt": ...}}'` (or the SDK's dict)."""
    data: Any = value
    if isinstance(value, str):
        try:
            data = safe_json(value)
        except ValueError as exc:
            raise ValueError(f"--agents: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError("--agents: expected a JSON object of agent definitions")
    out = []
    for name, spec in data.items():
        if not isinstance(spec, dict):
            warnings.append(f"--agents: {name}: skipped, expected an object")
            continue
        definition = _definition(
            {"name": name, **spec}, str(spec.get("prompt") or ""), source, None, warnings
        )
        if definition is not None:
            out.append(definition)
    return out


def _definition(
    meta: dict[str, Any],
    body: str,
    source: str,
    path: Path | None,
    warnings: list[str],
    namespaced: bool = False,
) -> AgentDefinition | None:
    where = str(path) if path is not None else f"--agents {meta.get('name')}"
    name = meta.get("name")
    problem = _name_problem(name, namespaced)
    if problem or not isinstance(name, str):  # (a name that is not text always has a problem)
        warnings.append(f"{where}: skipped, {problem}")
        return None
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        warnings.append(f"{where}: skipped, `description` is required")
        return None
    max_turns = meta.get("maxTurns")
    if isinstance(max_turns, str) and max_turns.strip().isdigit():
        max_turns = int(max_turns)
    return AgentDefinition(
        name=name,
        description=description.replace("\\n", "\n").strip(),
        prompt=body,
        tools=_tools(meta, "tools"),
        disallowed_tools=_tools(meta, "disallowedTools") or [],
        model=js_model(meta.get("model")),
        permission_mode=_str(meta.get("permissionMode")),
        max_turns=max_turns if isinstance(max_turns, int) and max_turns > 0 else None,
        background=meta.get("background") in (True, "true"),
        isolation=_str(meta.get("isolation")),
        effort=_str(meta.get("effort")),
        skills=tool_list(meta.get("skills")),
        mcp_servers=list(meta.get("mcpServers") or []) if isinstance(meta.get("mcpServers"), list) else [],
        hooks=dict(meta.get("hooks") or {}) if isinstance(meta.get("hooks"), dict) else {},
        memory=_str(meta.get("memory")),
        initial_prompt=_str(meta.get("initialPrompt")),
        source=source,
        path=path,
    )


MAX_NAME = 256


def _name_problem(name: Any, namespaced: bool) -> str | None:
    """Claude Code's rule: any text up to 256 characters, not starting with `-`, without `:` (which
    namespaces plugin agents)."""
    import unicodedata

    if not isinstance(name, str) or not name:
        return "`name` is required"
    if name.startswith("-"):
        return "`name` must not start with -"
    if len(name) > MAX_NAME:
        return f"`name` must be at most {MAX_NAME} characters"
    if not namespaced and ":" in unicodedata.normalize("NFKC", name):
        return "`name` must not contain : (it namespaces plugin agents)"
    return None


def _tools(meta: dict[str, Any], key: str) -> list[str] | None:
    """`Read, Grep` or `[Read, Grep]` (a rule like `Bash(git:*)` keeps its parentheses). None (every tool)
    when the key is absent or holds `*`; present but empty, or of another type, is no tools (Claude Code
    2.1.330 starts such an agent with none, `tools:` with nothing after it included)."""
    if key not in meta:
        return None
    names = tool_list(meta[key])
    return None if "*" in names else names


def _str(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _claude_dir(env: Mapping[str, str]) -> Path:
    configured = env.get("CLAUDE_CONFIG_DIR")
    if configured:
        return Path(configured).expanduser()
    return Path(env.get("HOME") or Path.home()) / ".claude"


def _project_dirs(cwd: Path) -> list[Path]:
    """cwd and its parents up to the repository root (or just cwd outside a repository), closest first."""
    dirs = []
    current = cwd.resolve()
    while True:
        dirs.append(current)
        if (current / ".git").exists() or current.parent == current:
            break
        current = current.parent
    if not any((d / ".git").exists() for d in dirs):
        return [cwd.resolve()]
    return dirs

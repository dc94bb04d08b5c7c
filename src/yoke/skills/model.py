"""One skill or custom slash command, read from its Markdown file.

Skills (`<name>/SKILL.md`) and commands (`<name>.md`) share the frontmatter of Claude Code's reference; a
command is the single-file form. The command name comes from the folder (skills) or the file (commands),
never from the `name` field, which is only a display name (for plugin skills it replaces the last segment).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from yoke.records import Record
from yoke.skills.frontmatter import FrontmatterError, parse_frontmatter

MAX_DESCRIPTION = 1536  # description + when_to_use, as Claude Code truncates them
BOOL_FIELDS = ("disable-model-invocation", "user-invocable", "background")
TEXT_FIELDS = (
    "name",
    "description",
    "when_to_use",
    "argument-hint",
    "model",
    "effort",
    "context",
    "agent",
    "shell",
    "version",
    "license",
    "compatibility",
)
EFFORTS = ("low", "medium", "high", "xhigh", "max")


class SkillError(ValueError):
    """A skill or command file that cannot be used; the message names the problem in one line."""


class PluginInfo(Record):
    """What a skill from a plugin needs to know about it (for ${CLAUDE_PLUGIN_ROOT} and friends)."""

    __slots__ = ("name", "root", "data_dir")

    name: str
    root: Path
    data_dir: Path

    def __init__(self, name: str, root: Path, data_dir: Path) -> None:
        self.name = name
        self.root = root
        self.data_dir = data_dir


class Skill(Record):
    __slots__ = (
        "name",
        "path",
        "kind",
        "source",
        "body",
        "description",
        "display_name",
        "when_to_use",
        "argument_hint",
        "arguments",
        "disable_model_invocation",
        "user_invocable",
        "allowed_tools",
        "disallowed_tools",
        "model",
        "effort",
        "context",
        "agent",
        "background",
        "hooks",
        "paths",
        "shell",
        "parameters",
        "label",
        "plugin",
        "frontmatter",
    )

    name: str  # the command name: `deploy`, `frontend:component`, `myplugin:review`
    path: Path  # SKILL.md or the command's .md file
    kind: str  # "skill" or "command"
    source: str  # managed, user, project, add-dir, yoke, plugin, nested
    body: str
    description: str
    display_name: str | None
    when_to_use: str
    argument_hint: str
    arguments: list[str]
    disable_model_invocation: bool
    user_invocable: bool
    allowed_tools: list[str]
    disallowed_tools: list[str]
    model: str | None
    effort: str | None
    context: str  # "fork" runs it as a sub-agent task
    agent: str | None
    background: bool
    hooks: dict[str, Any]
    paths: list[str]
    shell: str
    parameters: dict[str, Any]  # Yoke extension: ${param.x|default}
    label: str  # where it comes from, as a person reads it ("project", "project:frontend", "plugin x")
    plugin: PluginInfo | None
    frontmatter: dict[str, Any]

    @property
    def base_dir(self) -> Path:
        """${CLAUDE_SKILL_DIR}: the skill's folder (a command's own folder)."""
        return self.path.parent

    @property
    def model_invocable(self) -> bool:
        return not self.disable_model_invocation

    def listing_text(self) -> str:
        """description + when_to_use, as the model's listing shows them (cut at 1,536 characters)."""
        text = self.description.strip()
        if self.when_to_use.strip():
            text = f"{text} {self.when_to_use.strip()}".strip()
        text = " ".join(text.split())
        return text if len(text) <= MAX_DESCRIPTION else text[: MAX_DESCRIPTION - 1] + "…"

    def __init__(
        self,
        name: str,
        path: Path,
        kind: str,
        source: str,
        body: str,
        description: str = "",
        display_name: str | None = None,
        when_to_use: str = "",
        argument_hint: str = "",
        arguments: list[str] | None = None,
        disable_model_invocation: bool = False,
        user_invocable: bool = True,
        allowed_tools: list[str] | None = None,
        disallowed_tools: list[str] | None = None,
        model: str | None = None,
        effort: str | None = None,
        context: str = "inline",
        agent: str | None = None,
        background: bool = False,
        hooks: dict[str, Any] | None = None,
        paths: list[str] | None = None,
        shell: str = "bash",
        parameters: dict[str, Any] | None = None,
        label: str = "",
        plugin: PluginInfo | None = None,
        frontmatter: dict[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.path = path
        self.kind = kind
        self.source = source
        self.body = body
        self.description = description
        self.display_name = display_name
        self.when_to_use = when_to_use
        self.argument_hint = argument_hint
        self.arguments = [] if arguments is None else arguments
        self.disable_model_invocation = disable_model_invocation
        self.user_invocable = user_invocable
        self.allowed_tools = [] if allowed_tools is None else allowed_tools
        self.disallowed_tools = [] if disallowed_tools is None else disallowed_tools
        self.model = model
        self.effort = effort
        self.context = context
        self.agent = agent
        self.background = background
        self.hooks = {} if hooks is None else hooks
        self.paths = [] if paths is None else paths
        self.shell = shell
        self.parameters = {} if parameters is None else parameters
        self.label = label
        self.plugin = plugin
        self.frontmatter = {} if frontmatter is None else frontmatter


def load_skill_file(path: Path, *, name: str, kind: str, source: str, label: str = "") -> Skill:
    """Read and check one file. Raises SkillError naming what to fix."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SkillError(f"cannot read it: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        meta, body = parse_frontmatter(text)
    except FrontmatterError as exc:
        raise SkillError(str(exc)) from None
    return skill_from_fields(meta, body, path=path, name=name, kind=kind, source=source, label=label)


def skill_from_fields(
    meta: dict[str, Any], body: str, *, path: Path, name: str, kind: str, source: str, label: str = ""
) -> Skill:
    for key in TEXT_FIELDS:
        value = meta.get(key)
        if value is not None and not isinstance(value, str | int | float):
            raise SkillError(f"`{key}` must be text (got {type(value).__name__})")
    flags = {key: _bool(meta, key) for key in BOOL_FIELDS}
    context = _text(meta, "context") or "inline"
    if context not in ("inline", "fork"):
        raise SkillError(f"`context` must be inline or fork (got {context!r})")
    effort = _text(meta, "effort") or None
    if effort is not None and effort not in EFFORTS:
        raise SkillError(f"`effort` must be one of {', '.join(EFFORTS)} (got {effort!r})")
    hooks = meta.get("hooks") or {}
    if not isinstance(hooks, dict):
        raise SkillError("`hooks` must be a mapping of event names to matcher lists")
    parameters = meta.get("parameters") or {}
    if not isinstance(parameters, dict):
        raise SkillError("`parameters` must be a mapping of names to `${param.name|default}` templates")
    shell = _text(meta, "shell") or "bash"
    if shell not in ("bash", "powershell"):
        raise SkillError(f"`shell` must be bash or powershell (got {shell!r})")
    description = _text(meta, "description") or _default_description(body, kind)
    return Skill(
        name=name,
        path=path,
        kind=kind,
        source=source,
        body=body,
        description=description,
        display_name=_text(meta, "name") or None,
        when_to_use=_text(meta, "when_to_use"),
        argument_hint=_text(meta, "argument-hint"),
        arguments=_names(meta.get("arguments")),
        disable_model_invocation=flags["disable-model-invocation"] or False,
        user_invocable=flags["user-invocable"] is not False,
        allowed_tools=_tool_list(meta.get("allowed-tools"), "allowed-tools"),
        disallowed_tools=_tool_list(meta.get("disallowed-tools"), "disallowed-tools"),
        model=_text(meta, "model") or None,
        effort=effort,
        context=context,
        agent=_text(meta, "agent") or None,
        background=bool(flags["background"]),
        hooks=hooks,
        paths=_tool_list(meta.get("paths"), "paths", split_spaces=False),
        shell=shell,
        parameters=parameters,
        label=label or source,
        frontmatter=meta,
    )


def _text(meta: dict[str, Any], key: str) -> str:
    value = meta.get(key)
    return "" if value is None else str(value).strip()


def _bool(meta: dict[str, Any], key: str) -> bool | None:
    value = meta.get(key)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise SkillError(f"`{key}` must be true or false (got {value!r})")


def _names(value: Any) -> list[str]:
    """`arguments`: a list (or space/comma separated text) of names for `$name`."""
    if value is None:
        return []
    if isinstance(value, str):
        return [n for n in value.replace(",", " ").split() if n]
    if isinstance(value, list):
        names = []
        for item in value:
            if isinstance(item, dict) and isinstance(item.get("name"), str):
                names.append(item["name"])
            elif isinstance(item, str | int):
                names.append(str(item))
            else:
                raise SkillError("`arguments` must list names")
        return names
    raise SkillError("`arguments` must be a list of names")


def _tool_list(value: Any, key: str, split_spaces: bool = True) -> list[str]:
    from yoke.permissions.rules import split_rule_list

    if value is None:
        return []
    if isinstance(value, str):
        if not split_spaces:
            return [p.strip() for p in value.split(",") if p.strip()]
        return split_rule_list([value])
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [v.strip() for v in value if v.strip()]
    raise SkillError(f"`{key}` must be text or a list of text")


def _default_description(body: str, kind: str) -> str:
    """No description: the first paragraph of the body (a command's first line), headings stripped."""
    lines: list[str] = []
    for line in body.strip().splitlines():
        if not line.strip():
            if lines:
                break
            continue
        lines.append(line.strip().lstrip("#").strip())
        if kind == "command":
            break
    text = " ".join(lines)
    return text[:250]

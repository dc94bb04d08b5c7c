"""One skill or custom slash command, read from its Markdown file.

Skills (`<name>/SKILL.md`) and commands (`<name>.md`) share the frontmatter of Claude Code's reference; a
command is the single-file form. The command name comes from the folder (skills) or the file (commands),
never from the `name` field, which is only a display name (for plugin skills it replaces the last segment).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from yoke.records import Record
from yoke.regex import lazy_compile
from yoke.skills.frontmatter import parse_frontmatter, read_markdown

MAX_DESCRIPTION = 1536  # description + when_to_use, as Claude Code truncates them
EFFORTS = ("low", "medium", "high", "xhigh", "max")
_HEADING = lazy_compile(r"^#+\s+(\S.*)$")


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
        if self.when_to_use.strip():  # Claude Code's listing: `description - when_to_use`
            text = f"{text} - {self.when_to_use.strip()}" if text else self.when_to_use.strip()
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
    """Read one file. Raises SkillError only when it cannot be read: its frontmatter never refuses it."""
    try:
        text = read_markdown(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise SkillError(f"cannot read it: {getattr(exc, 'strerror', None) or exc}") from None
    meta, body = parse_frontmatter(text)
    return skill_from_fields(meta, body, path=path, name=name, kind=kind, source=source, label=label)


def skill_from_fields(
    meta: dict[str, Any], body: str, *, path: Path, name: str, kind: str, source: str, label: str = ""
) -> Skill:
    """Fields as Claude Code 2.1.330 takes them: a value of an unexpected type is read as text where the
    field is text, and ignored (the default stands) where it cannot be read; no field refuses the file."""
    description = js_description(meta.get("description"))
    if description is None:
        description = _default_description(body, kind)
    effort = _text(meta, "effort").lower() or None
    hooks = meta.get("hooks")
    parameters = meta.get("parameters")
    shell = _text(meta, "shell").lower()
    invocable = meta.get("user-invocable")
    return Skill(
        name=name,
        path=path,
        kind=kind,
        source=source,
        body=body,
        description=description,
        display_name=_display_name(meta.get("name")),
        when_to_use=_text(meta, "when_to_use"),
        argument_hint=_text(meta, "argument-hint"),
        arguments=_names(meta.get("arguments")),
        disable_model_invocation=js_flag(meta.get("disable-model-invocation")) or False,
        user_invocable=True if invocable is None else bool(js_flag(invocable)),
        allowed_tools=tool_list(meta.get("allowed-tools")),
        disallowed_tools=tool_list(meta.get("disallowed-tools")),
        model=js_model(meta.get("model")),
        effort=effort if effort in EFFORTS else None,
        context="fork" if meta.get("context") == "fork" else "inline",
        agent=_text(meta, "agent") or None,
        background=bool(js_flag(meta.get("background"))),
        hooks=hooks if isinstance(hooks, dict) else {},
        paths=_paths(meta.get("paths")),
        shell=shell if shell in ("bash", "powershell") else "bash",
        parameters=parameters if isinstance(parameters, dict) else {},
        label=label or source,
        frontmatter=meta,
    )


def js_text(value: Any) -> str:
    """A YAML value as text, the way Claude Code's `String(value)` writes it: a list's items joined by
    commas, true/false in lower case, 2.0 as 2."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
    if isinstance(value, list | tuple):
        return ",".join("" if item is None else js_text(item) for item in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def js_description(value: Any) -> str | None:
    """A `description`: text (None when blank), a number or true/false as text; a list or mapping is no
    description (the body's first line stands in)."""
    if value is None or isinstance(value, list | dict):
        return None
    text = js_text(value).strip() if not isinstance(value, str) else value.strip()
    return text or None


def js_flag(value: Any) -> bool | None:
    """true/false, also written as text or a number (1/yes/on, 0/no/off); None when it is neither."""
    if isinstance(value, bool):
        return value
    if not isinstance(value, str | int | float):
        return None
    text = js_text(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    return None


def tool_list(value: Any) -> list[str]:
    """`Read, Bash(git add *)` or a list of such: split at commas and spaces outside parentheses; items
    that are not text are left out."""
    from yoke.config.settings import split_tool_list

    if isinstance(value, str):
        return split_tool_list([value])
    if isinstance(value, list):
        return split_tool_list([v for v in value if isinstance(v, str)])
    return []


def _display_name(value: Any) -> str | None:
    text = js_text(value)
    return text if text and len(text) <= 256 else None


def js_model(value: Any) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    model = value.strip()
    return "inherit" if model.lower() == "inherit" else model


def _text(meta: dict[str, Any], key: str) -> str:
    return js_text(meta.get(key)).strip()


def _names(value: Any) -> list[str]:
    """`arguments`: a list (or space separated text) of names for `$name`; numbers are not names."""
    if isinstance(value, str):
        value = value.split()
    if not isinstance(value, list):
        return []
    names = []
    for item in value:
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            item = item["name"]
        if isinstance(item, str) and item.strip() and not item.strip().isdigit():
            names.append(item)
    return names


def _paths(value: Any) -> list[str]:
    """`paths`: comma separated text or a list of it."""
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return [p.strip() for item in items if isinstance(item, str) for p in item.split(",") if p.strip()]


def _default_description(body: str, kind: str) -> str:
    """No description: the body's first non-blank line, a heading's text without its #s, cut at 100
    characters (Claude Code's rule)."""
    for line in body.split("\n"):
        line = line.strip()
        if line:
            heading = _HEADING.match(line)
            text = heading.group(1) if heading else line
            return text if len(text) <= 100 else text[:97] + "..."
    return ""

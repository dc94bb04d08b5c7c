"""Hook configuration: Claude Code's `hooks` key, parsed (read from every place it can be written by
`sources.py`).

Shape: `{"<Event>": [{"matcher": "...", "hooks": [{"type": "command", "command": "...", ...}]}]}`. Lists
from every source merge (never replace), highest precedence first. A malformed entry is skipped with one
warning naming its file; the rest of the file still applies. Project and local settings only contribute
hooks in a trusted folder (a cloned repository must not run code just by being opened); an untrusted
folder's hooks are skipped with one line saying so. `disableAllHooks` turns off every non-managed hook and
a managed `allowManagedHooksOnly` keeps only the policy's own.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from yoke.loop.lifecycle import HOOK_EVENTS
from yoke.records import Record

HANDLER_TYPES = ("command", "http", "prompt", "agent", "mcp_tool", "callback")
# Events Claude Code knows beyond the lifecycle seam's list (accepted in configuration, fired if announced).
EXTRA_EVENTS = (
    "Setup", "UserPromptExpansion", "MessageDisplay", "TeammateIdle", "DirectoryAdded", "PreSkillShellCommand",
)  # fmt: skip
KNOWN_EVENTS = frozenset((*HOOK_EVENTS, *EXTRA_EVENTS))
PROJECT_SCOPES = ("project", "local")


class HookHandler(Record):
    """One entry of a matcher group's `hooks` list, plus where it came from."""

    __slots__ = (
        "type",
        "command",
        "args",
        "shell",
        "url",
        "headers",
        "allowed_env_vars",
        "prompt",
        "model",
        "timeout",
        "if_rule",
        "run_async",
        "async_rewake",
        "status_message",
        "once",
        "continue_on_block",
        "callback",
        "fail_closed",
    )

    type: str
    command: str
    args: list[str] | None  # exec form when present
    shell: str
    url: str
    headers: dict[str, str]
    allowed_env_vars: list[str]
    prompt: str
    model: str | None
    timeout: float | None  # seconds; None = the per-type default
    if_rule: str | None
    run_async: bool
    async_rewake: bool
    status_message: str
    once: bool
    continue_on_block: bool
    callback: Callable[..., Any] | None  # SDK hooks: fn(input, tool_use_id, context) -> dict
    fail_closed: bool  # SDK `onFailure: "block"`: a callback that fails blocks the action

    def describe(self) -> str:
        """A short human label: the command, URL or prompt."""
        if self.type == "command":
            return " ".join([self.command, *(self.args or [])])
        if self.type == "http":
            return self.url
        if self.type in ("prompt", "agent"):
            text = " ".join(self.prompt.split())
            return text if len(text) <= 60 else text[:57] + "..."
        if self.type == "callback":
            return getattr(self.callback, "__qualname__", repr(self.callback))
        return self.type

    def __init__(
        self,
        type: str,
        command: str = "",
        args: list[str] | None = None,
        shell: str = "bash",
        url: str = "",
        headers: dict[str, str] | None = None,
        allowed_env_vars: list[str] | None = None,
        prompt: str = "",
        model: str | None = None,
        timeout: float | None = None,
        if_rule: str | None = None,
        run_async: bool = False,
        async_rewake: bool = False,
        status_message: str = "",
        once: bool = False,
        continue_on_block: bool = False,
        callback: Callable[..., Any] | None = None,
        fail_closed: bool = False,
    ) -> None:
        self.type = type
        self.command = command
        self.args = args
        self.shell = shell
        self.url = url
        self.headers = {} if headers is None else headers
        self.allowed_env_vars = [] if allowed_env_vars is None else allowed_env_vars
        self.prompt = prompt
        self.model = model
        self.timeout = timeout
        self.if_rule = if_rule
        self.run_async = run_async
        self.async_rewake = async_rewake
        self.status_message = status_message
        self.once = once
        self.continue_on_block = continue_on_block
        self.callback = callback
        self.fail_closed = fail_closed


class HookGroup(Record):
    """A matcher and its handlers for one event, with the source that configured it."""

    __slots__ = ("event", "matcher", "handlers", "scope", "source", "plugin_root", "plugin_data", "tag")

    event: str
    matcher: str
    handlers: list[HookHandler]
    scope: str  # managed, flag, local, project, user, plugin, skill, agent, sdk
    source: str  # a file path or a label ("--settings", "sdk", "plugin foo")
    plugin_root: Path | None
    plugin_data: Path | None
    tag: str  # lets a skill or agent remove what it added

    def __init__(
        self,
        event: str,
        matcher: str,
        handlers: list[HookHandler],
        scope: str,
        source: str,
        plugin_root: Path | None = None,
        plugin_data: Path | None = None,
        tag: str = "",
    ) -> None:
        self.event = event
        self.matcher = matcher
        self.handlers = handlers
        self.scope = scope
        self.source = source
        self.plugin_root = plugin_root
        self.plugin_data = plugin_data
        self.tag = tag


class HookSet(Record):
    """Every configured hook group, plus the warnings met while reading them."""

    __slots__ = ("groups", "warnings", "skipped", "untrusted")

    groups: list[HookGroup]
    warnings: list[str]
    skipped: list[HookGroup]
    untrusted: list[HookGroup]  # skipped because the folder is not trusted (a subset of `skipped`)

    def for_event(self, event: str) -> list[HookGroup]:
        return [g for g in self.groups if g.event == event]

    def __init__(
        self,
        groups: list[HookGroup] | None = None,
        warnings: list[str] | None = None,
        skipped: list[HookGroup] | None = None,
        untrusted: list[HookGroup] | None = None,
    ) -> None:
        self.groups = [] if groups is None else groups
        self.warnings = [] if warnings is None else warnings
        self.skipped = [] if skipped is None else skipped
        self.untrusted = [] if untrusted is None else untrusted


def parse_hooks(
    data: Any,
    *,
    scope: str,
    source: str,
    warnings: list[str],
    plugin_root: Path | None = None,
    plugin_data: Path | None = None,
    tag: str = "",
    stop_as_subagent_stop: bool = False,
) -> list[HookGroup]:
    """The groups of one `hooks` value (a settings key, a plugin's hooks.json, skill/agent frontmatter).
    `stop_as_subagent_stop` is for agent frontmatter, where Claude Code turns `Stop` into `SubagentStop`."""
    if data is None:
        return []
    if not isinstance(data, dict):
        warnings.append(f"{source}: `hooks` must be an object of event names; ignored")
        return []
    groups: list[HookGroup] = []
    for event, entries in data.items():
        if event not in KNOWN_EVENTS:
            warnings.append(
                f"{source}: unknown hook event {event!r} skipped (events: {', '.join(HOOK_EVENTS)})"
            )
            continue
        if not isinstance(entries, list):
            warnings.append(f"{source}: hooks.{event} must be a list of matcher groups; skipped")
            continue
        name = "SubagentStop" if stop_as_subagent_stop and event == "Stop" else event
        for index, entry in enumerate(entries):
            where = f"{source}: hooks.{event}[{index}]"
            group = _parse_group(entry, name, where, warnings)
            if group is None:
                continue
            matcher, handlers = group
            groups.append(HookGroup(name, matcher, handlers, scope, source, plugin_root, plugin_data, tag))
    return groups


def _parse_group(
    entry: Any, event: str, where: str, warnings: list[str]
) -> tuple[str, list[HookHandler]] | None:
    if not isinstance(entry, dict):
        warnings.append(f"{where} must be an object with `hooks`; skipped")
        return None
    matcher = entry.get("matcher", "")
    if matcher is None:
        matcher = ""
    if not isinstance(matcher, str):
        warnings.append(f"{where}: `matcher` must be a string; group skipped")
        return None
    from yoke.hooks.matching import matcher_problem

    problem = matcher_problem(matcher)
    if problem:
        warnings.append(f"{where}: {problem}")
    raw = entry.get("hooks")
    if not isinstance(raw, list):
        warnings.append(f"{where}: `hooks` must be a list of handlers; group skipped")
        return None
    handlers = []
    for j, item in enumerate(raw):
        handler = parse_handler(item, f"{where}.hooks[{j}]", warnings)
        if handler is not None:
            handlers.append(handler)
    return (matcher, handlers) if handlers else None


def parse_handler(item: Any, where: str, warnings: list[str]) -> HookHandler | None:
    """One handler object; None (with a warning) when it cannot run."""
    if not isinstance(item, dict):
        warnings.append(f"{where} must be an object; skipped")
        return None
    kind = item.get("type", "command")
    if kind not in HANDLER_TYPES or kind == "callback":
        warnings.append(f"{where}: unknown hook type {kind!r} (use command, http, prompt or agent); skipped")
        return None
    handler = HookHandler(type=kind)
    timeout = item.get("timeout")
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            warnings.append(f"{where}: `timeout` must be a positive number of seconds; the default is used")
        else:
            handler.timeout = float(timeout)
    cond = item.get("if")
    if cond is not None:
        if not isinstance(cond, str) or not cond.strip():
            warnings.append(f'{where}: `if` must be one permission rule like "Bash(git *)"; skipped')
            return None
        handler.if_rule = cond.strip()
    handler.status_message = str(item.get("statusMessage") or "")
    handler.once = item.get("once") is True
    value = item.get(_REQUIRED[kind])
    if not isinstance(value, str) or not value.strip():
        warnings.append(f"{where}: a {kind} hook needs a non-empty `{_REQUIRED[kind]}` string; skipped")
        return None
    return _with_kind_fields(handler, kind, value, item, where, warnings)


# the field each kind of handler cannot do without
_REQUIRED = {"command": "command", "http": "url", "prompt": "prompt", "agent": "prompt", "mcp_tool": "tool"}


def _with_kind_fields(
    handler: HookHandler, kind: str, value: str, item: dict[str, Any], where: str, warnings: list[str]
) -> HookHandler | None:
    """The fields of one kind of handler (`value` is its required one); None (with a warning) when bad."""
    if kind == "command":
        handler.command = value
        args = item.get("args")
        if args is not None:
            if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
                warnings.append(f"{where}: `args` must be a list of strings; skipped")
                return None
            handler.args = list(args)
        handler.shell = str(item.get("shell") or "bash")
        handler.async_rewake = item.get("asyncRewake") is True
        handler.run_async = item.get("async") is True or handler.async_rewake
    elif kind == "http":
        handler.url = value
        headers = item.get("headers") or {}
        if not isinstance(headers, dict):
            warnings.append(f"{where}: `headers` must be an object; skipped")
            return None
        handler.headers = {str(k): str(v) for k, v in headers.items()}
        allowed = item.get("allowedEnvVars") or []
        handler.allowed_env_vars = [str(v) for v in allowed] if isinstance(allowed, list) else []
    elif kind in ("prompt", "agent"):
        handler.prompt = value
        handler.model = item.get("model") if isinstance(item.get("model"), str) else None
        handler.continue_on_block = item.get("continueOnBlock") is True
    else:
        handler.command = f"{item.get('server', '?')}:{value}"
    return handler

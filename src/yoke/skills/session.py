"""Connecting skills, commands, output styles and plugins to a session.

`prepare_extensions` is called once while a session is assembled (`yoke.session.build`); `prompt_events`
runs one prompt through command expansion and then the agent (`Session.query` calls it, so every
front-end's prompts go through it).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke import events as ev
from yoke.records import Record
from yoke.skills.runtime import SkillRuntime

if TYPE_CHECKING:
    from yoke.permissions.gate import Gate


class Extensions(Record):
    __slots__ = ("runtime", "plugins", "style", "plugin_errors", "observer")

    def __init__(
        self,
        runtime: SkillRuntime,
        plugins: list[Any] | None = None,
        style: Any = None,
        plugin_errors: list[dict[str, Any]] | None = None,
        observer: SkillActivation | None = None,
    ) -> None:
        self.runtime = runtime
        self.plugins = [] if plugins is None else plugins
        self.style = style  # the OutputStyle chosen by settings, or None
        # plugins refused (system/init `plugin_errors`)
        self.plugin_errors: list[dict[str, Any]] = [] if plugin_errors is None else plugin_errors
        self.observer = observer  # the tool observer announcing skills a touched path brings into play

    @property
    def style_prompt(self) -> str | None:
        return self.style.prompt if self.style is not None else None

    @property
    def keep_coding_instructions(self) -> bool:
        return self.style is None or self.style.keep_coding_instructions

    def init_fields(self) -> dict[str, Any]:
        """What the stream-json `system/init` message reports about commands, skills, style and plugins."""
        from yoke.skills.expand import BUILTINS

        catalog = self.runtime.catalog
        return {
            "slash_commands": [
                *(b for b in BUILTINS if b not in {s.name for s in catalog.user_invocable()}),
                *sorted(s.name for s in catalog.user_invocable()),
            ],
            # Claude Code 2.1.330 lists here the skills and workflows a user can invoke and the commands
            # the model may not (`disable-model-invocation: true`), checked against its CLI
            "skills": sorted(
                s.name
                for s in catalog.user_invocable()
                if s.kind in ("skill", "workflow") or s.disable_model_invocation
            ),
            "output_style": self.style.name if self.style is not None else "default",
            "plugins": [p.summary() for p in self.plugins],
            # refused plugins, as 2.1.330 reports them (the key only when there is one)
            **({"plugin_errors": list(self.plugin_errors)} if self.plugin_errors else {}),
        }


def prepare_extensions(
    *,
    cwd: Path,
    env: Mapping[str, str],
    settings: Any,
    add_dirs: Sequence[Path],
    plugin_dirs: Sequence[str | Path],
    registry: Any,
    gate: Gate,
    lifecycle: Any,
    context: Callable[[], Any],
    session_id: str,
    model: str,
    provider_name: str,
    warnings: list[str],
    setting_sources: Sequence[str] | None = None,
    loop_settings: Any = None,
) -> Extensions:
    """The session's plugins, skills runtime, output style and tool observer, made before the tool executor
    that holds them: the capabilities stage hands `runtime` and the record to `SessionServices` and
    `observer` to the executor. `context` returns the session's `ToolContext` once it exists."""
    plugins, plugin_errors, catalog = _plugins_and_catalog(
        cwd, env, settings, add_dirs, plugin_dirs, warnings, setting_sources
    )
    runtime = SkillRuntime(
        catalog,
        Path(os.path.realpath(cwd)),
        session_id,
        env,
        registry,
        gate,
        context=context,
        lifecycle=lifecycle,
        loop_settings=loop_settings,
        provider_name=provider_name,
    )
    style = None
    if (getattr(settings, "merged", {}) or {}).get("outputStyle"):
        from yoke.skills.output_styles import find_styles, select_style

        style_dirs = [d for p in plugins for d in p.output_style_dirs()]
        styles = find_styles(cwd, env=env, plugin_dirs=style_dirs, warnings=warnings)
        style = select_style(settings.merged, styles, warnings)
    return Extensions(runtime, plugins, style, plugin_errors, SkillActivation(runtime, model, env))


def offer_skill_tool(extensions: Extensions, model: str, env: Mapping[str, str]) -> None:
    """The Skill tool, in the session's registry when the model may invoke a skill."""
    if extensions.runtime.catalog.model_invocable():
        _register_tool(extensions.runtime, model, env)


def _plugins_and_catalog(
    cwd: Path,
    env: Mapping[str, str],
    settings: Any,
    add_dirs: Sequence[Path],
    plugin_dirs: Sequence[str | Path],
    warnings: list[str],
    setting_sources: Sequence[str] | None,
) -> tuple[list[Any], list[dict[str, Any]], Any]:
    from yoke.plugins import enabled_plugins
    from yoke.skills.catalog import load_catalog

    plugin_errors: list[dict[str, Any]] = []
    plugins = enabled_plugins(
        settings, cwd, plugin_dirs=plugin_dirs, env=env, warnings=warnings, errors=plugin_errors
    )
    sources = None if setting_sources is None else set(setting_sources)
    catalog = load_catalog(
        cwd,
        env=env,
        add_dirs=add_dirs,
        plugins=plugins,
        include_project=sources is None or "project" in sources,
        include_user=sources is None or "user" in sources,
    )
    warnings.extend(catalog.warnings)
    catalog.warnings.clear()
    return plugins, plugin_errors, catalog


def session_plugins(session: Any) -> list[Any]:
    """The plugins a built session loaded (`yoke.plugins.Plugin`): for the hooks, MCP and sub-agents
    packages to read `hooks_configs()`, `mcp_configs()`, `agent_files()` from."""
    extensions = session.services.extensions
    return list(extensions.plugins) if isinstance(extensions, Extensions) else []


def init_fields(session: Any) -> dict[str, Any]:
    """The `system/init` fields for a session built with extensions (none otherwise), and the agents it
    can start: built-in, user, project and plugin ones, sorted without regard to case as Claude Code
    2.1.330 sorts them."""
    services = session.services
    extensions = services.extensions
    fields = extensions.init_fields() if isinstance(extensions, Extensions) else {}
    catalog = getattr(services.agents, "catalog", None)
    if catalog is not None:
        fields["agents"] = sorted(catalog.names(), key=str.casefold)
    return fields


def _register_tool(runtime: SkillRuntime, model: str, env: Mapping[str, str]) -> None:
    from yoke.providers.tokens import context_window
    from yoke.skills.tool import SkillTool

    runtime.registry.register(SkillTool(runtime, context_window(model, env)))


class SkillActivation:
    """A tool observer: after a file tool touches a path, the skills that path brings into play (nested
    `.claude/skills`, `paths` skills) are announced to the model next to the result."""

    def __init__(self, runtime: SkillRuntime, model: str, env: Mapping[str, str]):
        self.runtime, self.model, self.env = runtime, model, env

    def before_change(self, tool: Any, input: dict[str, Any], ctx: Any) -> None:
        return None

    def after_success(self, tool: Any, input: dict[str, Any], ctx: Any) -> str | None:
        if tool.kind not in ("read", "edit"):
            return None
        paths = [p for p in tool.paths(input) if p]
        if not paths:
            return None
        runtime = self.runtime
        path = paths[0] if os.path.isabs(paths[0]) else str(runtime.cwd / paths[0])
        added = [s for s in runtime.catalog.skills_for_path(path) if s.model_invocable]
        if not added:
            return None
        if runtime.registry.get("Skill") is None:
            _register_tool(runtime, self.model, self.env)
        lines = "\n".join(f"- {s.name}: {s.listing_text()[:250]}" for s in added)
        return (
            "<system-reminder>\nThe following skills are now available for use with the Skill tool:\n"
            f"{lines}\n</system-reminder>"
        )


def command_route(session: Any, prompt: Any) -> AsyncIterator[ev.Event] | None:
    """The session's prompt route for `/name args` (`yoke.session.routing`): the command's events, or None
    when the prompt is no command or the session has no skills."""
    from yoke.skills.command_line import parse_command

    runtime = session.services.skills
    if runtime is None or parse_command(prompt) is None:
        return None
    return _command_events(session, runtime, prompt)


async def _command_events(session: Any, runtime: SkillRuntime, prompt: Any) -> AsyncIterator[ev.Event]:
    """One `/name args` prompt: expanded (or a built-in run), then the agent's query."""
    from yoke.skills.expand import expand_prompt

    agent = session.agent

    started = time.monotonic()
    expanded = await expand_prompt(
        prompt,
        runtime.catalog,
        session_id=runtime.session_id,
        cwd=runtime.cwd,
        env=runtime.env,
        permit_for=runtime.permit_for,
        run_shell=runtime.run_shell,
    )
    if expanded.builtin is not None:
        async for event in _builtin(session, expanded, started):
            yield event
        return
    if expanded.error is not None:
        from yoke.skills.builtin_commands import local_result

        yield local_result(agent, expanded.error, started, is_error=True)
        return
    if expanded.skill is not None:
        for notice in runtime.activate(expanded.skill):
            yield ev.Notice("warning", notice)
    try:
        async for event in agent.query(expanded.prompt):
            yield event
    finally:
        runtime.end_query()


async def _builtin(session: Any, expanded: Any, started: float) -> AsyncIterator[ev.Event]:
    from yoke.skills import builtin_commands as bc

    agent = session.agent
    name = expanded.builtin
    if name == "compact":
        async for event in agent.compact(expanded.args or None):
            yield event
        return
    if name == "cost":
        yield bc.local_result(agent, bc.cost_text(agent), started)
        return
    if name == "goal":
        from yoke.skills.goal import goal_command

        async for event in goal_command(session, expanded.args or "", started):
            yield event
        return
    if name == "loop":
        from yoke.skills.loop_command import loop_command

        async for event in loop_command(session, expanded.args or "", started):
            yield event
        return
    if name == "model":  # `/model NAME`: switch, with the model hooks; a bare `/model` says which is in use
        text, failed = await _model_command(session, (expanded.args or "").strip())
        yield bc.local_answer(text)  # what it says, as an assistant line of no model (as 2.1.330 writes it)
        yield bc.local_result(agent, text, started, is_error=failed)
        return
    if name == "context":
        yield bc.local_result(agent, await bc.context_text(session), started)
        return
    if name == "memory":
        yield bc.local_result(agent, bc.memory_text(session), started)
        return
    if name in ("review", "code-review", "security-review", "debug", "usage"):
        async for event in _daily(session, name, expanded.args or "", started):
            yield event
        return
    async for event in _init(session, started):
        yield event


async def _model_command(session: Any, spec: str) -> tuple[str, bool]:
    """The text and error flag of `/model [NAME]` run without a terminal."""
    if spec:
        try:
            refusal = await session.switch_model(spec, "command")
        except ValueError as exc:
            refusal = str(exc)
        if refusal:
            return refusal, True
    model = session.agent.settings.model
    from yoke.providers.pricing import known_model

    if spec and not known_model(model) and session.provider_name != "replay":
        return f"Model: {model} (No provider Yoke knows lists {model!r}; it is sent as given.)", False
    return f"Model: {model}", False


async def _daily(session: Any, name: str, args: str, started: float) -> AsyncIterator[ev.Event]:
    """/usage answers locally; /review, /security-review and /debug ask the model with read-only tools."""
    from yoke.skills import builtin_commands as bc
    from yoke.skills import daily_commands as dc

    if name == "usage":
        yield bc.local_result(session.agent, dc.usage_text(session), started)
        return
    try:
        if name == "debug":
            prompt = dc.debug_prompt(session, args)
        elif name == "security-review":
            prompt = await asyncio.to_thread(dc.security_review_prompt, Path(session.cwd), args)
        else:
            prompt = await asyncio.to_thread(dc.review_prompt, Path(session.cwd), args)
    except (dc.CommandError, OSError) as exc:
        yield bc.local_result(session.agent, str(exc), started, is_error=True)
        return
    async for event in _read_only_query(session, prompt):
        yield event


async def _read_only_query(session: Any, prompt: str) -> AsyncIterator[ev.Event]:
    """A query whose tools are only the read-only ones (and no Skill), restored afterwards."""
    registry = session.agent.executor.registry
    removed = [
        tool for tool in list(registry) if not getattr(tool, "read_only", False) or tool.name == "Skill"
    ]
    for tool in removed:
        registry.remove(tool.name)
    try:
        async for event in session.agent.query(prompt):
            yield event
    finally:
        for tool in removed:
            registry.register(tool)


async def _init(session: Any, started: float) -> AsyncIterator[ev.Event]:
    """/init: the model studies the repository with read-only tools; Yoke writes what it answers."""
    from yoke.skills import builtin_commands as bc

    async for event in _read_only_query(session, bc.init_prompt(Path(session.cwd))):
        if isinstance(event, ev.Result) and not event.is_error:
            try:
                text = bc.write_claude_md(Path(session.cwd), event.text)
            except (OSError, ValueError) as exc:
                event = event.replace(is_error=True, text=f"/init: {exc}", errors=[str(exc)])
            else:
                yield ev.Notice("info", text)
                event = event.replace(text=text)
        yield event

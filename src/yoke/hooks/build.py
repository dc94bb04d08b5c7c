"""The session's hook listener from its loaded settings (and optional plugin/SDK hooks)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke.hooks.config import PROJECT_SCOPES, HookGroup, HookSet, parse_hooks
from yoke.hooks.sources import load_settings_hooks

if TYPE_CHECKING:
    from yoke.config.settings import LoadedSettings
    from yoke.hooks.listener import HookListener, ReportFn
    from yoke.hooks.runners import PromptModel
    from yoke.loop.lifecycle import Lifecycle


def settings_hooks(settings: LoadedSettings, trusted: bool | None = None) -> HookSet:
    """Hooks from every settings source; `trusted` defaults to the folder's recorded trust."""
    if trusted is None:
        from yoke.config.trust import is_trusted

        trusted = is_trusted(
            settings.cwd, settings.yoke_home, home=settings.home, claude_dir=settings.claude_dir
        )
    return load_settings_hooks(settings, trusted)


def build_hook_listener(
    settings: LoadedSettings,
    *,
    trusted: bool | None = None,
    extra_groups: list[HookGroup] | None = None,
    work_dir: Path | None = None,
    prompt_model: PromptModel | None = None,
    agent_model: PromptModel | None = None,
    tool_lookup: Callable[[str], Any] | None = None,
    on_report: ReportFn | None = None,
) -> HookListener | None:
    """The listener, or None when nothing is configured (so the seam skips payload building entirely).
    Its `warnings` (untrusted folder, malformed entries) are for the front-end to print once."""
    hooks = settings_hooks(settings, trusted)
    hooks.groups += extra_groups or []
    if not hooks.groups and not hooks.warnings:
        return None
    from yoke.hooks.listener import HookListener  # loaded only when some hook is configured

    return HookListener(
        hooks,
        project_dir=settings.cwd,
        home=settings.home,
        work_dir=work_dir,
        prompt_model=prompt_model,
        agent_model=agent_model,
        tool_lookup=tool_lookup,
        on_report=on_report,
    )


def attach_hooks(
    lifecycle: Lifecycle,
    settings: LoadedSettings,
    *,
    tool_lookup: Callable[[str], Any] | None,
    work_dir: Path,
    env: dict[str, str] | None,
    resources: Any,
    warnings: list[str],
    on_report: Callable[..., Any] | None = None,
    prompt_model: PromptModel | tuple[Any, str, str] | None = None,
    agent_model: PromptModel | None = None,
    extensions: Any = None,
    wrap: Callable[[Any], Any] | None = None,
) -> HookListener | None:
    """Put the settings' and plugins' hooks on a session's lifecycle, and skills' frontmatter hooks as each
    skill is invoked. The listener sees the session's environment (and writes CLAUDE_ENV_FILE exports back
    into it for later Bash commands), its warnings join the session's, and it is closed with the session.
    `on_report` lets a front-end show runs. `prompt_model` is a PromptModel or
    the session's (provider, provider name, model) to build one from; `agent_model` runs agent hooks'
    checks (`yoke.session.hook_agent`). `extensions` is what
    `yoke.skills.session.prepare_extensions` returned (its plugins and skill runtime). `wrap` gives the
    listener as the lifecycle holds it (telemetry times hooks)."""
    hooks = settings_hooks(settings)
    _judge_untrusted(lifecycle, hooks, settings)
    plugins = list(getattr(extensions, "plugins", None) or [])
    hooks.groups += plugin_hook_groups(plugins, hooks.warnings)
    warnings.extend(hooks.warnings)
    hooks.warnings = []
    made: list[HookListener] = []

    def listener() -> HookListener:
        if not made:
            from yoke.hooks.listener import HookListener  # loaded only when some hook is configured

            made.append(
                HookListener(
                    hooks,
                    project_dir=settings.cwd,
                    home=settings.home,
                    work_dir=work_dir,
                    prompt_model=_prompt_model(prompt_model, env),
                    agent_model=agent_model,
                    tool_lookup=tool_lookup,
                    on_report=on_report,
                    base_env=env,
                    export_to=env,
                )
            )
            lifecycle.add(wrap(made[0]) if wrap is not None else made[0])
            resources.add(made[0], "hooks")
        return made[0]

    runtime = getattr(extensions, "runtime", None)
    if runtime is not None and isinstance(getattr(runtime, "on_invoke", None), list):
        runtime.on_invoke.append(SkillHooks(listener, settings))
    return listener() if hooks.groups else None


def _judge_untrusted(lifecycle: Lifecycle, hooks: HookSet, settings: LoadedSettings) -> None:
    """An untrusted folder's judging hooks do not run, and the calls they would judge fail closed (unless
    the user's own settings turn every hook off)."""
    user_disabled = any(
        s.scope not in PROJECT_SCOPES and s.data.get("disableAllHooks") is True for s in settings.sources
    )
    if hooks.untrusted and not user_disabled:
        from yoke.hooks.untrusted import UntrustedJudges

        judges = UntrustedJudges(hooks.untrusted)
        if judges.groups:
            lifecycle.add(judges)


def _prompt_model(
    prompt_model: PromptModel | tuple[Any, str, str] | None, env: dict[str, str] | None
) -> PromptModel | None:
    """A PromptModel, or one built from the session's (provider, provider name, model)."""
    if isinstance(prompt_model, tuple):
        from yoke.hooks.model_call import provider_prompt_model

        return provider_prompt_model(*prompt_model, env or {})
    return prompt_model


def plugin_hook_groups(plugins: list[Any], warnings: list[str]) -> list[HookGroup]:
    """Hook groups of enabled plugins (`yoke.plugins.Plugin.hooks_configs()`), with their root and data."""
    groups: list[HookGroup] = []
    for plugin in plugins:
        for config in plugin.hooks_configs():
            groups += parse_hooks(
                config.get("hooks"),
                scope="plugin",
                source=f"plugin {plugin.name}",
                warnings=warnings,
                plugin_root=plugin.root,
                plugin_data=plugin.data_dir,
                tag=f"plugin {plugin.name}",
            )
    return groups


class SkillHooks:
    """Registers a skill's `hooks` frontmatter when the skill is first invoked (for the rest of the session,
    `once: true` honoured). A project skill's hooks need a trusted folder, as the project's settings do."""

    UNTRUSTED_SOURCES = ("project", "nested", "local", "add-dir")

    def __init__(self, listener: Callable[[], HookListener], settings: LoadedSettings):
        self._listener = listener
        self._settings = settings
        self._added: set[str] = set()
        self._trusted: bool | None = None

    def __call__(self, skill: Any) -> None:
        hooks = getattr(skill, "hooks", None)
        if not hooks or skill.name in self._added:
            return
        self._added.add(skill.name)
        listener = self._listener()
        if skill.source in self.UNTRUSTED_SOURCES and not self._is_trusted():
            listener.notify(f"/{skill.name}: its hooks are skipped until this folder is trusted (yoke trust)")
            return
        problems: list[str] = []
        plugin = getattr(skill, "plugin", None)
        listener.add_groups(
            parse_hooks(
                hooks,
                scope="skill",
                source=f"skill {skill.name}",
                warnings=problems,
                plugin_root=getattr(plugin, "root", None),
                plugin_data=getattr(plugin, "data_dir", None),
                tag=f"skill {skill.name}",
            )
        )
        for problem in problems:
            listener.notify(problem)

    def _is_trusted(self) -> bool:
        if self._trusted is None:
            from yoke.config.trust import is_trusted

            s = self._settings
            self._trusted = is_trusted(s.cwd, s.yoke_home, home=s.home, claude_dir=s.claude_dir)
        return self._trusted

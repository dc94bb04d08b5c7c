"""The session's hook listener from its loaded settings (and optional plugin/SDK hooks)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke.hooks.config import HookGroup, HookSet, load_settings_hooks

if TYPE_CHECKING:
    from yoke.config.settings import LoadedSettings
    from yoke.hooks.listener import HookListener, ReportFn
    from yoke.hooks.runners import PromptModel


def settings_hooks(settings: LoadedSettings, trusted: bool | None = None) -> HookSet:
    """Hooks from every settings source; `trusted` defaults to the folder's recorded trust."""
    if trusted is None:
        from yoke.permissions.trust import is_trusted

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
    lifecycle: Any,
    settings: LoadedSettings,
    *,
    tool_lookup: Callable[[str], Any] | None,
    work_dir: Path,
    env: dict[str, str] | None,
    resources: Any,
    warnings: list[str],
    extras: dict[str, Any],
    prompt_model: PromptModel | tuple[Any, str, str] | None = None,
) -> HookListener | None:
    """Put the settings' hooks on a session's lifecycle: the listener sees the session's environment (and
    writes CLAUDE_ENV_FILE exports back into it for later Bash commands), its warnings join the session's,
    and it is closed with the session. `extras["hook_report"]` (an `on_report`) lets a front-end show runs.
    `prompt_model` is a PromptModel or the session's (provider, provider name, model) to build one from."""
    listener = build_hook_listener(
        settings, work_dir=work_dir, tool_lookup=tool_lookup, on_report=extras.get("hook_report")
    )
    if listener is None:
        return None
    if isinstance(prompt_model, tuple):
        from yoke.hooks.model_call import provider_prompt_model

        prompt_model = provider_prompt_model(*prompt_model, env or {})
    listener.prompt_model = prompt_model
    listener.base_env = env
    listener.set_export_target(env)
    warnings.extend(listener.warnings)
    lifecycle.add(listener)
    resources.add(listener, "hooks")
    return listener

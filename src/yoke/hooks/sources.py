"""Where hooks come from: every settings source (honouring trust, `disableAllHooks` and a managed
`allowManagedHooksOnly`) and a plugin's `hooks/hooks.json` and `plugin.json`. The shape is `config.py`'s."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke.fsutil import read_regular_text
from yoke.hooks.config import KNOWN_EVENTS, PROJECT_SCOPES, HookSet, parse_hooks
from yoke.jsonsafe import loads as safe_json

if TYPE_CHECKING:
    from yoke.config.settings import LoadedSettings


def load_settings_hooks(settings: LoadedSettings, trusted: bool) -> HookSet:
    """Hook groups from every settings source, highest precedence first, honouring trust and policy."""
    out = HookSet()
    sources = settings.sources
    managed_only = any(s.scope == "managed" and s.data.get("allowManagedHooksOnly") is True for s in sources)
    disable_all = any(s.data.get("disableAllHooks") is True for s in sources)
    managed_disable = any(s.scope == "managed" and s.data.get("disableAllHooks") is True for s in sources)
    untrusted_files: list[str] = []
    untrusted_count = 0
    for source in sources:
        if "hooks" not in source.data:
            continue
        groups = parse_hooks(
            source.data.get("hooks"), scope=source.scope, source=source.label, warnings=out.warnings
        )
        if source.scope in PROJECT_SCOPES and not trusted:
            if groups:
                untrusted_files.append(source.label)
                untrusted_count += sum(len(g.handlers) for g in groups)
            out.skipped += groups
            out.untrusted += groups
            continue
        if managed_disable or (source.scope != "managed" and (managed_only or disable_all)):
            out.skipped += groups
            continue
        out.groups += groups
    if untrusted_files:
        noun = "hook" if untrusted_count == 1 else "hooks"
        out.warnings.append(
            f"this workspace ({settings.cwd}) has not been trusted: skipping {untrusted_count} {noun} from "
            f"{', '.join(untrusted_files)}; run `yoke trust` here to let them run"
        )
    return out


def load_plugin_hooks(
    plugin_root: Path,
    *,
    plugin_name: str | None = None,
    plugin_data: Path | None = None,
    manifest: Any = None,
) -> HookSet:
    """A plugin's hooks: `hooks/hooks.json` (an optional top-level `description` beside `hooks`) and any
    inline `hooks` object in its `.claude-plugin/plugin.json` (pass the parsed manifest as `manifest`, or
    it is read here). Handlers get CLAUDE_PLUGIN_ROOT / CLAUDE_PLUGIN_DATA when they run."""
    out = HookSet()
    name = plugin_name or plugin_root.name
    label = f"plugin {name}"
    path = plugin_root / "hooks" / "hooks.json"
    if path.is_file():
        hooks = _hooks_file(path, out.warnings)
        if hooks is not None:
            out.groups += parse_hooks(
                hooks,
                scope="plugin",
                source=str(path),
                warnings=out.warnings,
                plugin_root=plugin_root,
                plugin_data=plugin_data,
                tag=label,
            )
    inline = _manifest_hooks(plugin_root, manifest, path, out.warnings)
    if isinstance(inline, dict):
        out.groups += parse_hooks(
            inline,
            scope="plugin",
            source=f"{label} (plugin.json)",
            warnings=out.warnings,
            plugin_root=plugin_root,
            plugin_data=plugin_data,
            tag=label,
        )
    return out


def _hooks_file(path: Path, warnings: list[str]) -> Any:
    """A plugin's `hooks/hooks.json`: its `hooks` value (or its event keys), None when it cannot be read."""
    try:
        data = safe_json(read_regular_text(path))
    except (OSError, ValueError) as exc:
        warnings.append(f"{path}: cannot be read as JSON ({exc}); its hooks are ignored")
        return None
    if isinstance(data, dict):
        return data.get("hooks") if "hooks" in data else {k: v for k, v in data.items() if k in KNOWN_EVENTS}
    if data is not None:
        warnings.append(f"{path}: expected a JSON object; its hooks are ignored")
    return None


def _manifest_hooks(plugin_root: Path, manifest: Any, hooks_json: Path, warnings: list[str]) -> Any:
    """The `hooks` of a plugin's `.claude-plugin/plugin.json`: an inline object, or a path to another hooks
    file relative to the plugin root (not `hooks/hooks.json` again)."""
    if manifest is None:
        manifest_path = plugin_root / ".claude-plugin" / "plugin.json"
        try:
            manifest = safe_json(read_regular_text(manifest_path)) if manifest_path.is_file() else None
        except (OSError, ValueError):
            manifest = None  # the plugins loader reports a bad manifest; not repeated here
    inline = manifest.get("hooks") if isinstance(manifest, dict) else None
    if isinstance(inline, str):  # a path to another hooks file, relative to the plugin root
        extra = plugin_root / inline
        if extra.resolve() != hooks_json.resolve() and extra.is_file():
            try:
                loaded = safe_json(read_regular_text(extra))
                inline = loaded.get("hooks", loaded) if isinstance(loaded, dict) else None
            except (OSError, ValueError) as exc:
                warnings.append(f"{extra}: cannot be read as JSON ({exc}); its hooks are ignored")
                inline = None
        else:
            inline = None
    return inline

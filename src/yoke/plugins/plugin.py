"""One Claude Code plugin folder and where its components are.

A plugin is a folder with an optional `.claude-plugin/plugin.json` manifest and default component paths:
`commands/`, `agents/`, `skills/`, `workflows/`, `hooks/hooks.json`, `.mcp.json`, `output-styles/`.
Manifest fields `skills`, `outputStyles`, `workflows` (a path or a list of paths, relative to the plugin
root, starting with `./`) add to the defaults; `commands` and `agents` replace theirs (Claude Code 2.1.330
then ignores `commands/` and `agents/`), and an `agents` entry that is not a `.md` file refuses the whole
plugin; `hooks` and `mcpServers` may be a path, a list, or the configuration inline. Other parts of Yoke read the components through this API: the skills package reads
skills and commands, the hooks package `hooks_configs()`, the MCP package `mcp_configs()`, the sub-agents
package `agent_files()`; each expands `${CLAUDE_PLUGIN_ROOT}` / `${CLAUDE_PLUGIN_DATA}` with `expand()`.
"""

from __future__ import annotations

import json
import re
from dataclasses import field
from pathlib import Path
from typing import Any

from yoke.fsutil import read_regular_text
from yoke.jsonsafe import loads as safe_json
from yoke.records import dataclass

MANIFEST = Path(".claude-plugin") / "plugin.json"
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class PluginError(ValueError):
    """A plugin that cannot be used; the message says what to fix, in one line."""


@dataclass
class Plugin:
    name: str
    root: Path
    data_dir: Path  # ${CLAUDE_PLUGIN_DATA}: the plugin's own persistent folder (created on first use)
    manifest: dict[str, Any] = field(default_factory=dict)
    marketplace: str | None = None  # None for --plugin-dir plugins
    source: str = "local"  # "marketplace" or "local" (--plugin-dir)
    hook_errors: list[str] = field(default_factory=list)  # hooks files that failed to load (plugin kept)

    @property
    def id(self) -> str:
        return f"{self.name}@{self.marketplace}" if self.marketplace else self.name

    @property
    def version(self) -> str | None:
        value = self.manifest.get("version")
        return str(value) if value is not None else None

    # ---- components ----------------------------------------------------------------------------------

    def skill_dirs(self) -> list[Path]:
        return self._dirs("skills", "skills")

    def command_dirs(self) -> list[Path]:
        return self._named_or_default("commands")

    def command_files(self) -> list[Path]:
        """Single .md files the manifest's `commands` names (folders come from `command_dirs`)."""
        return [p for p in self._paths("commands") if p.is_file() and p.suffix == ".md"]

    def agent_dirs(self) -> list[Path]:
        return self._named_or_default("agents")

    def agent_files(self) -> list[Path]:
        """Every agent definition (.md) the plugin brings, folders searched recursively."""
        files = [p for p in self._paths("agents") if p.is_file() and p.suffix == ".md"]
        for folder in self.agent_dirs():
            files.extend(sorted(p for p in folder.rglob("*.md") if p.is_file()))
        return list(dict.fromkeys(files))

    def workflow_files(self) -> list[Path]:
        """Workflow scripts: `workflows/*.js` and the `.js` files (or folders of them) the manifest names."""
        files = [p for p in self._paths("workflows") if p.is_file() and p.suffix == ".js"]
        for folder in self._dirs("workflows", "workflows"):
            files.extend(sorted(p for p in folder.glob("*.js") if p.is_file()))
        return list(dict.fromkeys(files))

    def output_style_dirs(self) -> list[Path]:
        return self._dirs("outputStyles", "output-styles")

    def hooks_files(self) -> list[Path]:
        default = self.root / "hooks" / "hooks.json"
        files = [default] if default.is_file() else []
        value = self.manifest.get("hooks")
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str):
                path = self._resolve(item)
                if path.is_file() and path not in files:
                    files.append(path)
        return files

    def hooks_configs(self) -> list[dict[str, Any]]:
        """Every hooks configuration (`{"hooks": {...}}` files' content, or inline), unexpanded; a hooks
        file that failed to load (`hook_errors`) gives none."""
        configs = []
        for path in self.hooks_files():
            try:
                configs.append(_hooks_file(path))
            except PluginError:
                continue
        value = self.manifest.get("hooks")
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict):
                configs.append(item if "hooks" in item else {"hooks": item})
        return [c for c in configs if isinstance(c, dict)]

    def mcp_files(self) -> list[Path]:
        default = self.root / ".mcp.json"
        files = [default] if default.is_file() else []
        value = self.manifest.get("mcpServers")
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str):
                path = self._resolve(item)
                if path.is_file() and path not in files:
                    files.append(path)
        return files

    def mcp_configs(self) -> dict[str, Any]:
        """The plugin's MCP servers by name (from `.mcp.json` files and inline `mcpServers`), unexpanded."""
        servers: dict[str, Any] = {}
        for path in self.mcp_files():
            data = _read_json(path)
            if isinstance(data, dict):
                servers.update(
                    data.get("mcpServers", data) if isinstance(data.get("mcpServers"), dict) else data
                )
        value = self.manifest.get("mcpServers")
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict):
                servers.update(
                    item.get("mcpServers", item) if isinstance(item.get("mcpServers"), dict) else item
                )
        return servers

    def lsp_configs(self) -> dict[str, Any]:
        """The plugin's language servers by name, unexpanded: `.lsp.json` at its root, then its manifest's
        `lspServers` (a path to such a file, an object of servers, or a list of either), as 2.1.332 reads
        them."""
        servers: dict[str, Any] = {}
        default = self.root / ".lsp.json"
        files = [default] if default.is_file() else []
        value = self.manifest.get("lspServers")
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, str):
                try:
                    path = self._resolve(item)
                except PluginError:
                    continue
                if path.is_file() and path not in files:
                    files.append(path)
        for path in files:
            data = _read_json(path)
            if isinstance(data, dict):
                servers.update(data)
        for item in items:
            if isinstance(item, dict):
                servers.update(item)
        return servers

    def env(self) -> dict[str, str]:
        return {"CLAUDE_PLUGIN_ROOT": str(self.root), "CLAUDE_PLUGIN_DATA": str(self.data_dir)}

    def expand(self, value: Any) -> Any:
        """`${CLAUDE_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_DATA}` filled in, through strings, lists and dicts."""
        if isinstance(value, str):
            for key, text in self.env().items():
                value = value.replace("${" + key + "}", text)
            return value
        if isinstance(value, list):
            return [self.expand(v) for v in value]
        if isinstance(value, dict):
            return {k: self.expand(v) for k, v in value.items()}
        return value

    def summary(self) -> dict[str, Any]:
        """What Claude Code's init message reports for a plugin."""
        info: dict[str, Any] = {"name": self.name, "path": str(self.root)}
        if self.marketplace:
            info["source"] = self.id
        if self.version:
            info["version"] = self.version
        return info

    # ---- helpers -------------------------------------------------------------------------------------

    def _resolve(self, relative: str) -> Path:
        path = (self.root / relative).resolve()
        root = self.root.resolve()
        if path != root and root not in path.parents:
            raise PluginError(f"{self.name}: {relative!r} points outside the plugin folder")
        return path

    def _paths(self, key: str) -> list[Path]:
        value = self.manifest.get(key)
        items = value if isinstance(value, list) else [value] if isinstance(value, str) else []
        paths = []
        for item in items:
            if isinstance(item, str):
                try:
                    paths.append(self._resolve(item))
                except PluginError:
                    continue
        return paths

    def _named_or_default(self, key: str) -> list[Path]:
        """`commands/` or `agents/`, unless the manifest names its own: then Claude Code 2.1.330 reads only
        those (skills' folders add to `skills/` instead)."""
        if key in self.manifest:
            return [p for p in self._paths(key) if p.is_dir()]
        return self._dirs(key, key)

    def _dirs(self, key: str, default: str) -> list[Path]:
        dirs = [self.root / default] if (self.root / default).is_dir() else []
        dirs += [p for p in self._paths(key) if p.is_dir() and p not in dirs]
        return dirs


def load_plugin(
    root: Path, data_root: Path, *, marketplace: str | None = None, source: str = "local"
) -> Plugin:
    """Read a plugin folder. Raises PluginError when it is not a usable plugin."""
    root = Path(root).expanduser().resolve()
    if not root.is_dir():
        raise PluginError(f"{root} is not a folder")
    manifest: dict[str, Any] = {}
    manifest_path = root / MANIFEST
    if manifest_path.is_file():
        data = _read_json(manifest_path)
        if not isinstance(data, dict):
            raise PluginError(f"{manifest_path}: not a JSON object")
        manifest = data
        name = manifest.get("name")
        if not isinstance(name, str) or not name.strip():
            raise PluginError(f"{manifest_path}: `name` is required")
        _check_agent_paths(manifest_path, manifest.get("agents"))
    else:
        name = root.name
    name = name.strip()
    if not NAME.match(name) or ":" in name:
        raise PluginError(f"plugin name {name!r} must be letters, digits, dots, dashes and underscores")
    data_id = re.sub(r"[^A-Za-z0-9._-]", "-", f"{name}-{marketplace}" if marketplace else name)
    plugin = Plugin(name, root, data_root / data_id, manifest, marketplace, source)
    for path in plugin.hooks_files():
        try:
            _check_guarding_hooks(path, _hooks_file(path))
        except _HookLoadFailed as exc:
            plugin.hook_errors.append(f"{path}: {exc}")
    return plugin


# Hooks that may guard the permissions a plugin brings: 2.1.332 refuses the whole plugin when one of these is
# malformed (read off the bundled CLI on generated hooks.json files), and only drops the hooks file, keeping
# the plugin, when the file as a whole does not load (not JSON, not an object, no `hooks`).
GUARDING_EVENTS = ("PreToolUse", "PermissionRequest", "PreSkillShellCommand")
_HOOK_TYPES = ("command", "http", "prompt", "agent", "mcp_tool")


class _HookLoadFailed(PluginError):
    """A hooks file that does not load: its hooks are dropped, the plugin stays (plugin_errors
    `hook-load-failed`)."""


def _hooks_file(path: Path) -> dict[str, Any]:
    try:
        data = _read_json(path)
    except PluginError as exc:
        raise _HookLoadFailed(str(exc).removeprefix(f"{path}: ")) from None
    if not isinstance(data, dict):
        raise _HookLoadFailed("expected a JSON object")
    if "hooks" not in data and "modules" not in data:
        top = [e for e in GUARDING_EVENTS if e in data]
        if top:  # events written outside `hooks`: a guard that would silently not load
            raise PluginError(f"{path}: {', '.join(top)} at the top level, outside the `hooks` object")
        raise _HookLoadFailed("needs a `hooks` object of event names")
    return data


def _check_guarding_hooks(path: Path, data: dict[str, Any]) -> None:
    """PluginError (the whole plugin refused) when a PreToolUse/PermissionRequest entry cannot be loaded."""
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise PluginError(f"{path}: `hooks` must be an object mapping event names to matcher lists")
    for event in GUARDING_EVENTS:
        groups = hooks.get(event)
        if groups is None:
            continue
        if not isinstance(groups, list):
            raise PluginError(f"{path}: hooks.{event} must be a list of matchers")
        for i, group in enumerate(groups):
            entries = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(entries, list):
                raise PluginError(f"{path}: hooks.{event}[{i}].hooks must be a list of hook entries")
            for j, entry in enumerate(entries):
                kind = entry.get("type") if isinstance(entry, dict) else None
                if kind not in _HOOK_TYPES:
                    raise PluginError(f"{path}: hooks.{event}[{i}].hooks[{j}]: unknown hook type {kind!r}")


def _check_agent_paths(manifest_path: Path, value: Any) -> None:
    """Claude Code 2.1.330 refuses a whole plugin whose manifest `agents` names anything but `.md` files."""
    if value is None:
        return
    items = value if isinstance(value, list) else [value]
    for i, item in enumerate(items):
        if not isinstance(item, str) or not item.endswith(".md"):
            where = "`agents`" if not isinstance(value, list) else f"`agents[{i}]`"
            raise PluginError(f"{manifest_path}: {where} must be the path of a .md file (got {item!r})")


def _read_json(path: Path) -> Any:
    try:
        return safe_json(read_regular_text(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise PluginError(f"{path}: cannot read it: {getattr(exc, 'strerror', None) or exc}") from None
    except json.JSONDecodeError as exc:
        raise PluginError(f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}") from None

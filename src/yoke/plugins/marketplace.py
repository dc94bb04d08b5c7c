"""Marketplaces (`.claude-plugin/marketplace.json`) and installing plugins from them, as `claude plugin` does.

A marketplace is added from a local folder (used where it is), a marketplace.json file, a git URL (cloned
into `plugins/marketplaces/<name>`) or `owner/repo` (GitHub). `marketplace.json` is
`{"name", "owner": {...}, "metadata"?: {"pluginRoot"?}, "plugins": [{"name", "source", "version"?, ...}]}`
where a plugin's `source` is a relative path (`./plugins/x`), `{"source": "github", "repo": "o/r"}`,
`{"source": "url"|"git", "url": ..., "ref"?, "sha"?}` or `{"source": "git-subdir", "url", "path"}`.
Installing copies the plugin into `plugins/cache/<marketplace>/<plugin>/<version>/`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from yoke.plugins.plugin import PluginError, load_plugin
from yoke.plugins.store import PluginStore, now_iso, read_json

MARKETPLACE_FILE = Path(".claude-plugin") / "marketplace.json"
_GITHUB = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def source_for(spec: str, cwd: Path) -> dict[str, Any]:
    """What `yoke plugin marketplace add SPEC` means: a folder, a file, a git URL or `owner/repo`."""
    path = Path(spec).expanduser()
    path = path if path.is_absolute() else cwd / path
    if path.is_file() and path.suffix == ".json":
        return {"source": "file", "path": str(path.resolve())}
    if path.is_dir():
        if (path / MARKETPLACE_FILE).is_file():
            return {"source": "directory", "path": str(path.resolve())}
        if _is_git_repo(path):
            return {"source": "git", "url": str(path.resolve())}
        raise PluginError(f"{path} has no {MARKETPLACE_FILE} (and is not a git repository)")
    if (
        re.match(r"^(https?|ssh|git|file)://", spec)
        or spec.endswith(".git")
        or re.match(r"^[\w.-]+@[\w.-]+:", spec)
    ):
        return {"source": "git", "url": spec}
    if _GITHUB.match(spec) and not spec.startswith("."):
        return {"source": "github", "repo": spec}
    raise PluginError(f"{spec!r} is not a folder, a marketplace.json file, a git URL or owner/repo")


def read_marketplace(root: Path) -> dict[str, Any]:
    """The marketplace.json at `root` (a folder or the file itself), checked."""
    file = root if root.is_file() else root / MARKETPLACE_FILE
    data = read_json(file, None)
    if data is None:
        raise PluginError(f"{file}: no marketplace file there")
    if not isinstance(data, dict):
        raise PluginError(f"{file}: not a JSON object")
    name = data.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise PluginError(f"{file}: `name` must be a name of letters, digits, dots, dashes and underscores")
    plugins = data.get("plugins")
    if not isinstance(plugins, list) or not all(
        isinstance(p, dict) and isinstance(p.get("name"), str) for p in plugins
    ):
        raise PluginError(f"{file}: `plugins` must be a list of objects with a `name`")
    return data


def add_marketplace(store: PluginStore, spec: str | dict[str, Any], cwd: Path) -> tuple[str, dict[str, Any]]:
    """Add (or refresh) a marketplace; returns its name and its marketplace.json."""
    source = source_for(spec, cwd) if isinstance(spec, str) else dict(spec)
    kind = source.get("source")
    if kind in ("directory", "file"):
        location = Path(source["path"])
        data = read_marketplace(location)
        install_location = location if kind == "directory" else location.parent.parent
    elif kind in ("git", "github"):
        url = source["url"] if kind == "git" else f"https://github.com/{source['repo']}.git"
        store.root.mkdir(parents=True, exist_ok=True)
        temp = Path(tempfile.mkdtemp(prefix=".clone-", dir=store.root))
        try:
            _git(["clone", "--quiet", url, str(temp / "repo")], store.root)
            data = read_marketplace(temp / "repo")
            install_location = store.marketplace_dir(data["name"])
            if install_location.exists():
                shutil.rmtree(install_location)
            install_location.parent.mkdir(parents=True, exist_ok=True)
            os.replace(temp / "repo", install_location)
        finally:
            shutil.rmtree(temp, ignore_errors=True)
    else:
        raise PluginError(f"unsupported marketplace source {kind!r} (use a folder, a git URL or owner/repo)")
    known = store.known()
    known[data["name"]] = {
        "source": source,
        "installLocation": str(install_location),
        "lastUpdated": now_iso(),
    }
    store.save_known(known)
    return data["name"], data


def marketplace_root(store: PluginStore, name: str, extra: Mapping[str, Any], cwd: Path) -> Path:
    """Where marketplace `name` is on disk: known ones, else added now from `extraKnownMarketplaces`."""
    entry = store.known().get(name)
    if entry is None:
        declared = extra.get(name)
        if not isinstance(declared, dict) or not isinstance(declared.get("source"), dict):
            known = ", ".join(sorted(store.known())) or "none"
            raise PluginError(
                f"unknown marketplace {name!r} (known: {known}); add it with: yoke plugin marketplace add SOURCE"
            )
        add_marketplace(store, _settings_source(declared["source"], cwd), cwd)
        entry = store.known()[name]
    location = Path(entry.get("installLocation", ""))
    if not location.exists():
        raise PluginError(f"marketplace {name!r} is missing at {location}; add it again")
    return location


def _settings_source(source: dict[str, Any], cwd: Path) -> dict[str, Any]:
    """`extraKnownMarketplaces` sources as settings write them (`directory` paths may be relative)."""
    if source.get("source") in ("directory", "file") and isinstance(source.get("path"), str):
        path = Path(source["path"]).expanduser()
        return {**source, "path": str((path if path.is_absolute() else cwd / path).resolve())}
    return source


def install_plugin(
    store: PluginStore, plugin_id: str, *, scope: str, cwd: Path, extra: Mapping[str, Any]
) -> dict[str, Any]:
    """Install `name@marketplace` into the cache and record it; returns the installation entry."""
    name, _, market = plugin_id.partition("@")
    if not name or not market:
        raise PluginError(f"name the plugin as name@marketplace (got {plugin_id!r})")
    root = marketplace_root(store, market, extra, cwd)
    data = read_marketplace(root)
    entry = next((p for p in data["plugins"] if p.get("name") == name), None)
    if entry is None:
        names = ", ".join(p["name"] for p in data["plugins"]) or "none"
        raise PluginError(f"marketplace {market!r} has no plugin {name!r} (it has: {names})")
    base = root if root.is_dir() else root.parent.parent
    with tempfile.TemporaryDirectory(prefix=".fetch-", dir=_mkdir(store.root)) as temp:
        folder, sha = _fetch_source(entry.get("source"), base, data.get("metadata") or {}, Path(temp))
        plugin = load_plugin(folder, store.data_root, marketplace=market, source="marketplace")
        if plugin.name != name:
            raise PluginError(f"the plugin at {entry.get('source')!r} is named {plugin.name!r}, not {name!r}")
        version = plugin.version or (str(entry["version"]) if entry.get("version") else None)
        version = version or (sha[:12] if sha else "unknown")
        target = store.cache_dir(market, name, _safe(version))
        if target.exists():
            shutil.rmtree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(folder, target, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    now = now_iso()
    record: dict[str, Any] = {
        "scope": scope,
        "installPath": str(target),
        "version": version,
        "installedAt": now,
        "lastUpdated": now,
    }
    if sha:
        record["gitCommitSha"] = sha
    if scope != "user":
        record["projectPath"] = str(cwd)
    installed = store.installed()
    entries = [e for e in installed.get(plugin_id, []) if not _same_install(e, scope, cwd)]
    installed[plugin_id] = [*entries, record]
    store.save_installed(installed)
    return record


def _same_install(entry: dict[str, Any], scope: str, cwd: Path) -> bool:
    if entry.get("scope", "user") != scope:
        return False
    return scope == "user" or entry.get("projectPath") in (None, str(cwd))


def _fetch_source(
    source: Any, base: Path, metadata: Mapping[str, Any], temp: Path
) -> tuple[Path, str | None]:
    """The plugin's folder (a path inside the marketplace, or a fresh clone in `temp`) and its commit."""
    if isinstance(source, str):
        relative = source
        root = metadata.get("pluginRoot")
        if isinstance(root, str) and not relative.startswith(("./", "../")):
            relative = str(Path(root) / relative)
        folder = (base / relative).resolve()
        if folder != base.resolve() and base.resolve() not in folder.parents:
            raise PluginError(f"plugin source {source!r} points outside the marketplace")
        if not folder.is_dir():
            raise PluginError(f"plugin source {source!r} is not a folder in the marketplace")
        return folder, _head(base)
    if not isinstance(source, dict):
        raise PluginError(f"plugin source {source!r} is not a path or a source object")
    kind = source.get("source")
    if kind == "github" and isinstance(source.get("repo"), str):
        url = f"https://github.com/{source['repo']}.git"
    elif kind in ("url", "git", "git-subdir") and isinstance(source.get("url"), str):
        url = source["url"]
    else:
        raise PluginError(f"plugin source type {kind!r} is not supported (use a path, github, url or git)")
    clone = temp / "plugin"
    _git(["clone", "--quiet", url, str(clone)], temp)
    ref = source.get("sha") or source.get("ref")
    if isinstance(ref, str) and ref:
        _git(["checkout", "--quiet", ref], clone)
    folder = clone
    if kind == "git-subdir" and isinstance(source.get("path"), str):
        folder = (clone / source["path"]).resolve()
        if clone.resolve() not in folder.parents or not folder.is_dir():
            raise PluginError(f"plugin source path {source['path']!r} is not a folder in {url}")
    return folder, _head(clone)


def _git(args: list[str], cwd: Path) -> str:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    try:
        from yoke import spawn

        # the user's `plugin marketplace add/update`: git with the user's own set-up (credentials, ssh)
        proc = spawn.run(["git", *args], confine=None, cwd=cwd, env=env, text=True, timeout=300)
    except FileNotFoundError:
        raise PluginError("git is needed for git marketplaces and plugins, and was not found") from None
    except subprocess.TimeoutExpired:
        raise PluginError(f"git {args[0]} took more than 5 minutes; check the URL and network") from None
    if proc.returncode != 0:
        message = (proc.stderr or proc.stdout).strip().splitlines()
        raise PluginError(
            f"git {args[0]} failed: {message[-1] if message else 'exit ' + str(proc.returncode)}"
        )
    return proc.stdout.strip()


def _head(folder: Path) -> str | None:
    try:
        return _git(["rev-parse", "HEAD"], folder) or None
    except PluginError:
        return None


def _is_git_repo(path: Path) -> bool:
    return (path / ".git").exists() or ((path / "HEAD").is_file() and (path / "objects").is_dir())


def _safe(version: str) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]", "-", version) or "unknown"


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path

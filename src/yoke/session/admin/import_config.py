"""`yoke import-config --from codex|gemini|opencode`: what maps from another agent's configuration, copied
into the files Yoke and Claude Code read (docs/movein.md):

- MCP servers into Claude Code's `mcpServers` (a user-level file's into `~/.claude.json`, a project's into
  `.mcp.json`), through `yoke mcp`'s own checks;
- the model and provider into a Yoke profile named after the agent (`yoke profile use codex`), its key by
  reference only;
- instruction files as `@path` imports in CLAUDE.md (`~/.claude/CLAUDE.md` for the user's, the project's
  own CLAUDE.md for a project's).

Nothing that exists is replaced without `force`; everything else is reported, with what was not mapped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from yoke.session.admin import AdminError


@dataclass
class ImportReport:
    read: list[str] = field(default_factory=list)
    done: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # exists; --force replaces
    not_mapped: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"read {p}" for p in self.read] or ["found no configuration to read"]
        out += [f"copied: {d}" for d in self.done]
        out += [f"kept (exists; --force replaces it): {k}" for k in self.kept]
        out += [f"not mapped: {n}" for n in self.not_mapped]
        return out


def import_config(
    source: str, cwd: Path, env: Mapping[str, str], *, force: bool = False, dry_run: bool = False
) -> ImportReport:
    from yoke.session.foreign.configs import read_config
    from yoke.session.foreign.history import ForeignFormatError

    try:
        found = read_config(source, cwd, env)
    except ForeignFormatError as exc:
        raise AdminError(str(exc)) from None
    report = ImportReport(read=[str(p) for p in found.files], not_mapped=list(found.not_mapped))
    for scope, servers in found.mcp.items():
        for name, entry in servers.items():
            _server(report, "user" if scope == "user" else "project", name, entry, cwd, force, dry_run)
    if found.profile is not None:
        _profile(report, source, found.profile, env, force, dry_run)
    _instructions(report, found.instructions, cwd, env, force, dry_run)
    return report


def _server(
    report: ImportReport, scope: str, name: str, entry: dict, cwd: Path, force: bool, dry: bool
) -> None:
    from yoke.session.admin.mcp import add_server, read_file, remove_server, scope_path

    path = scope_path(scope, cwd)
    data = read_file(path)
    servers = data.get("mcpServers") if isinstance(data.get("mcpServers"), dict) else {}
    where = f"MCP server {name!r} -> {path}"
    if name in (servers or {}):
        if (servers or {})[name] == entry:
            report.done.append(f"{where} (already there)")
            return
        if not force:
            report.kept.append(where)
            return
        if not dry:
            remove_server(name, scope, cwd)
    if not dry:
        try:
            add_server(scope, name, entry, cwd)
        except AdminError as exc:
            report.not_mapped.append(f"MCP server {name!r}: {exc}")
            return
    report.done.append(where)


def _profile(
    report: ImportReport, source: str, fields: dict, env: Mapping[str, str], force: bool, dry: bool
) -> None:
    from yoke.config.profiles import ProfileError, load_profiles, parse_profile, save_user_profiles, user_file
    from yoke.config.settings import yoke_home_dir

    home = yoke_home_dir(env=env)
    try:
        profiles, default = load_profiles(user_file(home), "user")
        profile = parse_profile(source, fields)
    except ProfileError as exc:
        report.not_mapped.append(f"model and provider: {exc}")
        return
    where = (
        f"profile {source!r} ({profile.summary()}) -> {user_file(home)}; use it: yoke profile use {source}"
    )
    if source in profiles and profiles[source].as_json() != profile.as_json() and not force:
        report.kept.append(where)
        return
    if not dry:
        profiles[source] = profile
        save_user_profiles(home, profiles, default)
    report.done.append(where)


def _instructions(
    report: ImportReport,
    wanted: list[tuple[str, str]],
    cwd: Path,
    env: Mapping[str, str],
    force: bool,
    dry: bool,
) -> None:
    """Each instruction file as an `@` line in the CLAUDE.md of its scope; one write per CLAUDE.md."""
    from yoke.config.settings import claude_config_dir

    lines: dict[Path, list[tuple[str, str]]] = {}
    for scope, target in wanted:
        memory = (claude_config_dir(env=env) if scope == "user" else cwd) / "CLAUDE.md"
        target_path = Path(target)
        if (
            scope == "project"
            and target_path.parent == cwd
            and target_path.name in ("AGENTS.md", "CLAUDE.md")
        ):
            report.done.append(f"{target} (Yoke reads it as it is)")
            continue
        lines.setdefault(memory, []).append((target, f"@{_reference(target_path, memory.parent)}"))
    for memory, entries in lines.items():
        try:
            text = memory.read_text(encoding="utf-8")
        except FileNotFoundError:
            text = None
        except OSError as exc:
            report.not_mapped.append(f"instructions: cannot read {memory} ({exc.strerror or exc})")
            continue
        present = set(text.splitlines()) if text is not None else set()
        new = [(t, line) for t, line in entries if line not in present]
        report.done += [
            f"instructions {t} -> {memory} ({line}) (already there)" for t, line in entries if line in present
        ]
        if not new:
            continue
        if text is not None and not force:
            report.kept.append(f"{memory} (adding {', '.join(line for _, line in new)} changes it)")
            continue
        if not dry:
            memory.parent.mkdir(parents=True, exist_ok=True)
            prefix = "" if not text else (text if text.endswith("\n") else text + "\n")
            memory.write_text(prefix + "".join(f"{line}\n" for _, line in new), encoding="utf-8")
        report.done += [f"instructions {t} -> {memory} ({line})" for t, line in new]


def _reference(target: Path, folder: Path) -> str:
    """How CLAUDE.md names the file: relative inside its folder, `~/...` under the home, else absolute."""
    try:
        return str(target.relative_to(folder))
    except ValueError:
        pass
    try:
        return "~/" + str(target.relative_to(Path.home()))
    except ValueError:
        return str(target)

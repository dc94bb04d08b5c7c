"""Finding skills and custom slash commands, as Claude Code does.

Skills: `<dir>/<name>/SKILL.md` in the managed folder, `~/.claude/skills`, `~/.agents/skills`,
`~/.yoke/skills`, every `.claude/skills` and `.agents/skills` from the working directory up to the repository
root (the closest wins), `--add-dir` folders' `.claude/skills`, and plugins (`plugin:name`). `.agents/skills`
is the folder Codex and opencode read for skills shared across tools (project: from the working directory up
to the repository root; user: `~/.agents/skills`); its skills are read by the same rules, with the same
source (and so the same trust) as `.claude/skills` at the same level, and where both folders of one level
define a name, `.claude/skills` wins. Commands: `.claude/commands/**/*.md` (walked up the
same way) and `~/.claude/commands/**/*.md`; a subfolder becomes part of the label (`project:frontend`) and
`/frontend:component` names the command unambiguously. Precedence on the same name: managed, then personal
(user, Yoke), then project, then added folders; a skill beats a command.

Skills under a subfolder's own `.claude/skills` and skills whose `paths` frontmatter limits them come into
play when a file under them is touched: `skills_for_path(path)`.

A file that cannot be used is skipped with one warning naming it; the rest of the catalog still loads.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from yoke.records import Record
from yoke.regex import lazy_compile
from yoke.skills.model import PluginInfo, Skill, SkillError, load_skill_file

SKILL_FILE = "SKILL.md"
CLAUDE_SKILLS = Path(".claude") / "skills"
AGENTS_SKILLS = Path(".agents") / "skills"  # shared across agents (Codex, opencode); after .claude's
SKILL_FOLDERS = (CLAUDE_SKILLS, AGENTS_SKILLS)
_PLUGIN_SKILL_CHARS = lazy_compile(r"[^a-zA-Z0-9_-]")
RESERVED = frozenset({"synced"})
SOURCE_RANK = {"managed": 0, "user": 1, "yoke": 2, "project": 3, "add-dir": 4, "nested": 5, "plugin": 6}
MAX_COMMAND_DEPTH = 6


class Catalog(Record):
    """Every skill and command of a session, by command name."""

    __slots__ = ("cwd", "root", "entries", "aliases", "conditional", "warnings", "_scanned", "_answered")

    def __init__(self, cwd: Path, root: Path) -> None:
        self.cwd = cwd
        self.root = root  # the repository root (or cwd): where the project walk stops
        self.entries: dict[str, Skill] = {}
        self.aliases: dict[str, str] = {}  # `frontend:component` -> `component`
        self.conditional: list[Skill] = []  # `paths` skills not yet activated
        self.warnings: list[str] = []
        self._scanned: set[Path] = set()
        self._answered: set[str] = set()  # paths skills_for_path has looked at

    def get(self, name: str) -> Skill | None:
        name = name.lstrip("/")
        found = self.entries.get(name)
        if found is None and name in self.aliases:
            found = self.entries.get(self.aliases[name])
        return found

    def __len__(self) -> int:
        return len(self.entries)

    def all(self) -> list[Skill]:
        return list(self.entries.values())

    def model_invocable(self) -> list[Skill]:
        return [s for s in self.entries.values() if s.model_invocable]

    def user_invocable(self) -> list[Skill]:
        return [s for s in self.entries.values() if s.user_invocable]

    def add(self, skill: Skill) -> bool:
        """Add unless something of higher precedence holds the name; True when it was added."""
        held = self.entries.get(skill.name)
        if held is not None and _rank(held) <= _rank(skill):
            return False
        if skill.paths and skill.source != "plugin":
            self.conditional.append(skill)
            return False
        self.entries[skill.name] = skill
        return True

    def skills_for_path(self, path: str | Path) -> list[Skill]:
        """Skills that touching `path` brings into play and that were not in play yet: those of
        `.claude/skills` folders between the file and the working directory, and `paths` skills whose
        globs match it. They join the catalog; the caller tells the model about them."""
        asked = str(path)
        if asked in self._answered and not self.conditional:
            return []  # its folders are scanned already and no `paths` skill waits to match
        self._answered.add(asked)
        target = Path(os.path.abspath(Path(path).expanduser()))
        added: list[Skill] = []
        for folder, sub in ((f, s) for f in _folders_between(target.parent, self.cwd) for s in SKILL_FOLDERS):
            skills_dir = folder / sub
            if skills_dir in self._scanned:
                continue
            self._scanned.add(skills_dir)
            for skill in _skills_in(skills_dir, "nested", self.warnings):
                if skill.name in self.entries:
                    prefix = os.path.relpath(folder, self.root).replace(os.sep, "/")
                    skill.name = f"{prefix}:{skill.name}"
                skill.label = f"nested:{os.path.relpath(folder, self.root)}"
                if self.add(skill):
                    added.append(skill)
        added.extend(self._activate_conditional(target))
        return added

    def _activate_conditional(self, target: Path) -> list[Skill]:
        from yoke.memory.globs import glob_matches

        try:
            relative = target.relative_to(self.root).as_posix()
        except ValueError:
            return []
        activated = []
        for skill in list(self.conditional):
            if glob_matches(skill.paths, relative):
                self.conditional.remove(skill)
                held = self.entries.get(skill.name)
                if held is None or _rank(held) > _rank(skill):
                    self.entries[skill.name] = skill
                    activated.append(skill)
        return activated


def _rank(skill: Skill) -> tuple[int, int]:
    return (SOURCE_RANK.get(skill.source, 9), 0 if skill.kind == "skill" else 1)


def load_catalog(
    cwd: Path,
    *,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    add_dirs: Sequence[Path] = (),
    plugins: Iterable[Any] = (),
    managed_dir: Path | None = None,
    include_project: bool = True,
    include_user: bool = True,
) -> Catalog:
    """The catalog for a session started in `cwd`. `plugins` are `yoke.plugins.Plugin`s (enabled ones).
    `include_project` / `include_user` follow `--setting-sources` (the Agent SDK loads a project's skills
    only when `project` is among them, and personal ones only with `user`)."""
    from yoke.config.settings import claude_config_dir, git_root, yoke_home_dir
    from yoke.skills.frontmatter import yaml_cache

    env = os.environ if env is None else env
    home = home or Path(env.get("HOME") or Path.home())
    cwd = Path(os.path.realpath(cwd))
    root = git_root(cwd) or cwd
    catalog = Catalog(cwd=cwd, root=root)
    warnings = catalog.warnings
    yaml_cache.use(yoke_home_dir(home, env) / "cache" / "frontmatter.json")
    claude_dir = claude_config_dir(home, env)
    if managed_dir is None:
        from yoke.memory.files import default_managed_dir

        managed_dir = default_managed_dir()
    project_dirs = list(_folders_between(cwd, root)) if include_project else []
    # Each (folder, source, label); precedence is settled by rank, so the order only matters within a rank
    # (the first found wins: the closest project folder).
    user_dirs = [
        (claude_dir / "skills", "user"),
        (home / AGENTS_SKILLS, "user"),
        (yoke_home_dir(home, env) / "skills", "yoke"),
    ]
    skill_dirs: list[tuple[Path, str]] = [
        (managed_dir / ".claude" / "skills", "managed"),
        *(user_dirs if include_user else []),
        *[(folder / sub, "project") for folder in project_dirs for sub in SKILL_FOLDERS],
        *[(Path(d) / ".claude" / "skills", "add-dir") for d in add_dirs],
    ]
    for folder, source in skill_dirs:
        catalog._scanned.add(folder)
        for skill in _skills_in(folder, source, warnings):
            catalog.add(skill)
    command_dirs: list[tuple[Path, str]] = [
        *([(claude_dir / "commands", "user")] if include_user else []),
        *[(folder / ".claude" / "commands", "project") for folder in project_dirs],
    ]
    for folder, source in command_dirs:
        for skill in _commands_in(folder, source, warnings):
            if catalog.add(skill) and ":" in skill.label:
                catalog.aliases[f"{skill.label.split(':', 1)[1].replace('/', ':')}:{skill.name}"] = skill.name
    for plugin in plugins:
        add_plugin(catalog, plugin)
    yaml_cache.flush()
    return catalog


def add_plugin(catalog: Catalog, plugin: Any) -> None:
    """A plugin's skills and commands, namespaced `plugin:name`."""
    info = PluginInfo(plugin.name, plugin.root, plugin.data_dir)
    for folder in plugin.skill_dirs():
        root = folder / SKILL_FILE
        if root.is_file():  # the folder named is itself a skill: its `name`, else the folder's
            try:
                found = [load_skill_file(root, name=folder.name, kind="skill", source="plugin")]
            except SkillError as exc:
                catalog.warnings.append(f"{root}: skill skipped: {exc}")
                continue
            own = (found[0].display_name or "").removeprefix(f"{plugin.name}:")
            found[0].name = own or folder.name
        else:
            found = _skills_in(folder, "plugin", catalog.warnings)
        for skill in found:
            # the folder's name with what is not a letter, digit, - or _ as -, as Claude Code 2.1.330 names it
            skill.name = f"{plugin.name}:{_PLUGIN_SKILL_CHARS.sub('-', skill.name)}"
            skill.plugin, skill.label = info, f"plugin:{plugin.name}"
            catalog.add(skill)
    for folder in plugin.command_dirs():
        for skill in _commands_in(folder, "plugin", catalog.warnings):
            sub = skill.label.split(":", 1)[1].replace("/", ":") + ":" if ":" in skill.label else ""
            skill.name = f"{plugin.name}:{sub}{skill.name}"
            skill.plugin, skill.label = info, f"plugin:{plugin.name}"
            catalog.add(skill)
    for file in plugin.command_files():
        try:
            skill = load_skill_file(file, name=file.stem, kind="command", source="plugin")
        except SkillError as exc:
            catalog.warnings.append(f"{file}: command skipped: {exc}")
            continue
        skill.name = f"{plugin.name}:{file.stem}"
        skill.plugin, skill.label = info, f"plugin:{plugin.name}"
        catalog.add(skill)
    if hasattr(plugin, "workflow_files"):
        from yoke.skills.workflows import workflow_skills

        for skill in workflow_skills(plugin, catalog.warnings):
            catalog.add(skill)


def _folders_between(start: Path, stop: Path) -> Iterable[Path]:
    """`start` and its parents down to `stop` (inclusive), closest first; nothing if `start` is outside."""
    start = Path(os.path.abspath(start))
    stop = Path(os.path.abspath(stop))
    if start != stop and stop not in start.parents:
        return []
    folders = []
    folder = start
    while True:
        folders.append(folder)
        if folder == stop or folder.parent == folder:
            break
        folder = folder.parent
    return folders


def _skills_in(folder: Path, source: str, warnings: list[str]) -> list[Skill]:
    try:
        children = sorted(os.scandir(folder), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        warnings.append(f"{folder}: skills folder unreadable: {exc.strerror or exc}")
        return []
    found = []
    for child in children:
        if child.name.startswith(".") or child.name in RESERVED or not child.is_dir():
            continue  # is_dir follows symlinks: a skill folder may be a link
        path = Path(child.path) / SKILL_FILE
        if not path.is_file():
            continue
        try:
            found.append(load_skill_file(path, name=child.name, kind="skill", source=source, label=source))
        except SkillError as exc:
            warnings.append(f"{path}: skill skipped: {exc}")
    return found


def _commands_in(folder: Path, source: str, warnings: list[str]) -> list[Skill]:
    found: list[Skill] = []
    if not folder.is_dir():
        return found
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=True):
        depth = len(Path(dirpath).relative_to(folder).parts)
        dirnames[:] = (
            sorted(d for d in dirnames if not d.startswith(".")) if depth < MAX_COMMAND_DEPTH else []
        )
        sub = Path(dirpath).relative_to(folder).as_posix()
        label = source if sub == "." else f"{source}:{sub}"
        skill_file = next((f for f in sorted(filenames) if f.lower() == "skill.md"), None)
        if skill_file is not None and sub != ".":
            # a skill folder among the commands: the folder is one command (its other files are the
            # skill's), named and namespaced by where the folder is, as Claude Code 2.1.330 reads it
            dirnames[:] = []
            parent = Path(sub).parent.as_posix()
            where = source if parent == "." else f"{source}:{parent}"
            path = Path(dirpath) / skill_file
            try:
                found.append(
                    load_skill_file(path, name=Path(sub).name, kind="skill", source=source, label=where)
                )
            except SkillError as exc:
                warnings.append(f"{path}: skill skipped: {exc}")
            continue
        for filename in sorted(filenames):
            if not filename.endswith(".md") or filename.startswith("."):
                continue
            path = Path(dirpath) / filename
            try:
                found.append(
                    load_skill_file(path, name=filename[:-3], kind="command", source=source, label=label)
                )
            except SkillError as exc:
                warnings.append(f"{path}: command skipped: {exc}")
    return found

"""Memory files: the instructions users keep in CLAUDE.md, AGENTS.md and friends.

Loaded at launch, broad to specific: the managed policy file, the user's `~/.claude/CLAUDE.md` and
`~/.claude/rules/**/*.md`, then for every directory from the repository root down to the working directory
its `CLAUDE.md`, `.claude/CLAUDE.md`, `AGENTS.md`, `.claude/rules/**/*.md` and `CLAUDE.local.md`. Each file's
`@path` imports follow it (relative to the importing file, `~` or absolute; at most 4 hops; a file is
loaded once, so cycles end). Files in directories below the working directory, and rules whose `paths:`
frontmatter matches, are loaded later, when the model first reads a file there (`MemoryIndex.memory_for_path`).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from yoke.fsutil import read_regular_text
from yoke.memory.globs import glob_matches
from yoke.memory.markdown import find_imports, parse_frontmatter, strip_html_comments
from yoke.providers.tokens import estimate_text
from yoke.records import dataclass

MAX_IMPORT_DEPTH = 4
MAX_FILE_CHARS = 200_000  # a runaway file must not fill the context on its own
DIR_FILES = ("CLAUDE.md", ".claude/CLAUDE.md", "AGENTS.md")
LOCAL_FILE = "CLAUDE.local.md"

KIND_LABELS = {
    "managed": "managed policy instructions",
    "user": "the user's own instructions for all projects",
    "project": "project instructions, checked into the repository",
    "local": "the user's private instructions for this project",
    "rule": "project rule",
    "user-rule": "the user's rule for all projects",
}


@dataclass(frozen=True, slots=True)
class MemoryFile:
    path: Path
    content: str  # as the model sees it: frontmatter and HTML comments removed
    tokens: int
    kind: str = "project"  # a KIND_LABELS key
    imported_from: Path | None = None
    globs: tuple[str, ...] = ()  # a conditional rule's `paths:` patterns
    base: Path | None = None  # the directory those patterns are relative to

    @property
    def label(self) -> str:
        label = KIND_LABELS.get(self.kind, self.kind)
        if self.imported_from is not None:
            label += f", imported by {self.imported_from}"
        return label


def config_dir(env: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """Claude Code's config root: $CLAUDE_CONFIG_DIR, else ~/.claude."""
    env = os.environ if env is None else env
    override = env.get("CLAUDE_CONFIG_DIR")
    if override:
        return Path(override).expanduser()
    return (home or Path.home()) / ".claude"


def default_managed_dir() -> Path:
    if sys.platform == "darwin":
        return Path("/Library/Application Support/ClaudeCode")
    if sys.platform.startswith("win"):
        return Path("C:/Program Files/ClaudeCode")
    return Path("/etc/claude-code")


def find_repo_root(start: Path) -> Path | None:
    """The nearest directory at or above `start` holding `.git` (a directory, or a file in worktrees)."""
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


class MemoryIndex:
    """The memory files of one session: those loaded at launch plus those loaded later on demand."""

    def __init__(
        self,
        cwd: Path,
        *,
        home: Path | None = None,
        env: Mapping[str, str] | None = None,
        managed_dir: Path | None = None,
        excludes: Iterable[str] = (),
        trusted: bool | None = None,
    ):
        self.cwd = Path(os.path.realpath(cwd))
        self.home = home or Path.home()
        self.env = os.environ if env is None else env
        self.managed_dir = managed_dir if managed_dir is not None else default_managed_dir()
        self.excludes = tuple(excludes)
        self.root = find_repo_root(self.cwd) or self.cwd
        self.trusted = _folder_trusted(self.cwd, self.home, self.env) if trusted is None else trusted
        self.enabled = not self.env.get("CLAUDE_CODE_DISABLE_CLAUDE_MDS")
        self._seen: set[str] = set()
        self._scanned_dirs: set[str] = set()
        self._answered: set[str] = set()
        self._conditional: list[MemoryFile] = []
        self.files: list[MemoryFile] = self._load_launch_files() if self.enabled else []
        self.later: list[MemoryFile] = []

    # ---- public -------------------------------------------------------------------------------

    def memory_for_path(self, path: str | Path) -> list[MemoryFile]:
        """Memory files that reading `path` brings in and that are not loaded yet: CLAUDE.md and friends of
        the directories between the repository root and the file, and rules whose `paths:` match it."""
        if not self.enabled:
            return []
        # A path answered before brings nothing new unless a conditional rule still waits to match: its
        # folders stay scanned. (Re-reading one file every turn made this a per-turn cost.)
        asked = str(path)
        if asked in self._answered and not self._conditional:
            return []
        self._answered.add(asked)
        target = Path(os.path.realpath(Path(path).expanduser()))
        new: list[MemoryFile] = []
        if target.is_relative_to(self.root):
            directory = target if target.is_dir() else target.parent
            chain = [directory, *directory.parents]
            for d in reversed(chain[: chain.index(self.root) + 1] if self.root in chain else [directory]):
                new.extend(self._load_dir(d, include_local=True))
        for rule in list(self._conditional):
            base = rule.base or self.root
            if target.is_relative_to(base) and glob_matches(rule.globs, target.relative_to(base).as_posix()):
                self._conditional.remove(rule)
                new.append(rule)
                new.extend(self._imports_of(rule, rule.kind, depth=1))
        self.later.extend(new)
        return new

    def all_files(self) -> list[MemoryFile]:
        return [*self.files, *self.later]

    # ---- loading ------------------------------------------------------------------------------

    def _load_launch_files(self) -> list[MemoryFile]:
        files: list[MemoryFile] = []
        files.extend(self._load_file(self.managed_dir / "CLAUDE.md", "managed"))
        user_dir = config_dir(self.env, self.home)
        files.extend(self._load_file(user_dir / "CLAUDE.md", "user"))
        files.extend(self._load_rules(user_dir / "rules", "user-rule", base=self.root))
        chain = [self.cwd, *self.cwd.parents]
        for directory in reversed(chain[: chain.index(self.root) + 1]):
            files.extend(self._load_dir(directory, include_local=True))
        return files

    def _load_dir(self, directory: Path, include_local: bool) -> list[MemoryFile]:
        key = str(directory)
        if key in self._scanned_dirs:
            return []
        self._scanned_dirs.add(key)
        files: list[MemoryFile] = []
        for name in DIR_FILES:
            files.extend(self._load_file(directory / name, "project"))
        files.extend(self._load_rules(directory / ".claude" / "rules", "rule", base=directory))
        if include_local:
            files.extend(self._load_file(directory / LOCAL_FILE, "local"))
        return files

    def _load_rules(self, rules_dir: Path, kind: str, base: Path) -> list[MemoryFile]:
        if not rules_dir.is_dir():
            return []
        files: list[MemoryFile] = []
        for path in sorted(rules_dir.rglob("*.md")):
            files.extend(self._load_file(path, kind, base=base))
        return files

    def _load_file(
        self,
        path: Path,
        kind: str,
        *,
        imported_from: Path | None = None,
        depth: int = 0,
        base: Path | None = None,
    ) -> list[MemoryFile]:
        """The file (if it exists and is new) followed by what it imports."""
        real = os.path.realpath(path)
        if real in self._seen or not os.path.isfile(real) or self._excluded(real):
            return []
        self._seen.add(real)
        try:
            raw = read_regular_text(real, errors="replace")
        except OSError:
            return []
        meta, body = parse_frontmatter(raw)
        body = strip_html_comments(body)
        if len(body) > MAX_FILE_CHARS:
            body = (
                body[:MAX_FILE_CHARS]
                + f"\n[... truncated: the file is longer than {MAX_FILE_CHARS} characters]"
            )
        globs = _paths_of(meta) if kind in ("rule", "user-rule") else ()
        memory = MemoryFile(
            path=Path(path),
            content=body.strip("\n"),
            tokens=estimate_text(body),
            kind=kind,
            imported_from=imported_from,
            globs=globs,
            base=base,
        )
        if globs:
            self._conditional.append(memory)  # waits for a matching read
            return []
        return [memory, *self._imports_of(memory, kind, depth + 1)]

    def _imports_of(self, memory: MemoryFile, kind: str, depth: int) -> list[MemoryFile]:
        if depth > MAX_IMPORT_DEPTH:
            return []
        files: list[MemoryFile] = []
        for ref in find_imports(memory.content):
            target = self._resolve_import(ref, memory.path.parent)
            if target is not None and self._import_allowed(memory, target):
                files.extend(self._load_file(target, kind, imported_from=memory.path, depth=depth))
        return files

    def _resolve_import(self, ref: str, relative_to: Path) -> Path | None:
        candidates = [ref]
        stripped = ref.rstrip(".,;:!?)]}'\"")
        if stripped != ref:
            candidates.append(stripped)
        for candidate in candidates:
            candidate = candidate.replace("\\ ", " ")
            if candidate.startswith("~/") or candidate == "~":
                path = self.home / candidate[2:]
            elif os.path.isabs(candidate):
                path = Path(candidate)
            else:
                path = relative_to / candidate
            if path.is_file():
                return path
        return None

    def _import_allowed(self, memory: MemoryFile, target: Path) -> bool:
        """A repository's own memory files (and what they import) are the repository's words: they never
        import a secret, and import from outside the project only once the folder is trusted. The user's
        and the managed files import freely."""
        if memory.kind not in ("project", "local", "rule"):
            return True
        from yoke.paths import is_inside, is_secret

        real = os.path.realpath(target)
        if is_secret(real, self.home) or is_secret(str(target), self.home):
            return False
        return self.trusted or is_inside(real, [os.path.realpath(self.root), str(self.cwd)])

    def _excluded(self, real: str) -> bool:
        return bool(self.excludes) and glob_matches(self.excludes, real)


def _folder_trusted(cwd: Path, home: Path, env: Mapping[str, str]) -> bool:
    from yoke.config.settings import yoke_home_dir
    from yoke.config.trust import is_trusted

    return is_trusted(cwd, yoke_home_dir(home, env), home=home)


def _paths_of(meta: dict[str, object]) -> tuple[str, ...]:
    value = meta.get("paths")
    if isinstance(value, str):
        return tuple(p.strip() for p in value.split(",") if p.strip())
    if isinstance(value, list):
        return tuple(str(p).strip() for p in value if str(p).strip())
    return ()


def discover_memory(cwd: Path, **kwargs: object) -> list[MemoryFile]:
    """The memory files loaded at launch for `cwd` (see `MemoryIndex` for the keyword arguments)."""
    return MemoryIndex(cwd, **kwargs).files  # type: ignore[arg-type]


_BLANK_RUN = re.compile(r"\n{3,}")


def format_memory(files: Iterable[MemoryFile]) -> str:
    """The memory files as one prompt section (empty when there are none)."""
    parts = [
        f'<memory-file path="{f.path}" source="{f.label}">\n{_BLANK_RUN.sub(chr(10) * 2, f.content)}\n</memory-file>'
        for f in files
        if f.content.strip()
    ]
    if not parts:
        return ""
    head = (
        "# Instructions from memory files\n"
        "The user and the project keep standing instructions in the files below. Follow them: where they "
        "differ from your general guidance, they win. Later (more specific) files refine earlier ones."
    )
    return head + "\n\n" + "\n\n".join(parts)


def memory_reminder(files: Iterable[MemoryFile]) -> str:
    """Lazily loaded memory files as a `<system-reminder>` the loop appends to the next tool result."""
    body = format_memory(files)
    if not body:
        return ""
    return (
        "<system-reminder>\nReading that file brought more memory files into scope. They apply to work in "
        "their directories.\n\n" + body + "\n</system-reminder>"
    )

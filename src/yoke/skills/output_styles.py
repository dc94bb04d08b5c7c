"""Output styles: a named change to how the assistant talks, chosen with the `outputStyle` setting.

Built in: `default` (no change), `Explanatory` and `Learning`. Custom styles are Markdown files with
frontmatter `name` (default: the file name), `description`, `keep-coding-instructions` (default false) in
`~/.claude/output-styles/`, every `.claude/output-styles/` from the working directory up to the repository
root (the closest wins), and enabled plugins' `output-styles/`. The style's text is added to the system
prompt; a custom style without `keep-coding-instructions: true` also drops the default prompt's
software-engineering instructions, as Claude Code does.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from yoke.records import Record
from yoke.skills.frontmatter import parse_frontmatter, read_markdown
from yoke.skills.model import js_description, js_flag, js_text

EXPLANATORY = """\
You are in the Explanatory output style: besides doing the work, help the user understand the codebase and \
the choices you make.
- Before and after writing code, give short educational insights about the implementation: why this \
approach, which patterns of the codebase it follows, what trade-offs it makes. Mark each one like this:
  "★ Insight ─────────────────────────────────────
  [two or three key points]
  ─────────────────────────────────────────────────"
- Keep insights specific to this code rather than general programming advice, and keep them brief; the \
task still comes first."""

LEARNING = """\
You are in the Learning output style: the user wants to learn by doing, so share the work with them.
- Do the routine parts yourself, but for pieces of meaningful design or logic (roughly 2-10 lines that \
involve a real decision), leave the piece to the user: add a clearly marked `TODO(human)` in the code, \
explain what it should do, the options and what to consider, then stop and ask them to write it.
- Give short educational insights about the code and your choices, marked like this:
  "★ Insight ─────────────────────────────────────
  [two or three key points]
  ─────────────────────────────────────────────────"
- When the user has written their part, review it kindly and specifically, then carry on."""


class OutputStyle(Record):
    __slots__ = ("name", "description", "prompt", "keep_coding_instructions", "source", "path")

    def __init__(
        self,
        name: str,
        description: str,
        prompt: str,
        keep_coding_instructions: bool,
        source: str,  # built-in, user, project, plugin
        path: Path | None = None,
    ) -> None:
        self.name = name
        self.description = description
        self.prompt = prompt
        self.keep_coding_instructions = keep_coding_instructions
        self.source = source
        self.path = path


BUILTIN_STYLES = {
    "default": OutputStyle(
        "default", "Claude Code's default: concise software engineering", "", True, "built-in"
    ),
    "Explanatory": OutputStyle(
        "Explanatory",
        "Explains the implementation choices and codebase patterns",
        EXPLANATORY,
        True,
        "built-in",
    ),
    "Learning": OutputStyle(
        "Learning",
        "Learn by doing: asks you to write small pieces of code yourself",
        LEARNING,
        True,
        "built-in",
    ),
}


def find_styles(
    cwd: Path,
    *,
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
    plugin_dirs: Iterable[Path] = (),
    warnings: list[str] | None = None,
) -> dict[str, OutputStyle]:
    """Every style by name: built-ins, then plugin, user and project files (later ones win)."""
    from yoke.config.settings import claude_config_dir, git_root

    env = os.environ if env is None else env
    home = home or Path(env.get("HOME") or Path.home())
    cwd = Path(os.path.realpath(cwd))
    warnings = warnings if warnings is not None else []
    styles = dict(BUILTIN_STYLES)
    root = git_root(cwd) or cwd
    project = []
    folder = cwd
    while True:
        project.append(folder / ".claude" / "output-styles")
        if folder == root or folder.parent == folder:
            break
        folder = folder.parent
    sources = [(d, "plugin") for d in plugin_dirs]
    sources += [(claude_config_dir(home, env) / "output-styles", "user")]
    sources += [(d, "project") for d in reversed(project)]  # the closest folder last, so it wins
    for folder, source in sources:
        for style in _styles_in(folder, source, warnings):
            styles[style.name] = style
    return styles


def _styles_in(folder: Path, source: str, warnings: list[str]) -> list[OutputStyle]:
    try:
        files = sorted(p for p in folder.iterdir() if p.suffix == ".md" and p.is_file())
    except OSError:
        return []
    found = []
    for path in files:
        try:
            meta, body = parse_frontmatter(read_markdown(path))
        except (OSError, UnicodeDecodeError) as exc:
            warnings.append(f"{path}: output style skipped: {exc}")
            continue
        # read as Claude Code 2.1.330 reads it: a value of another type never refuses the style
        keep = bool(js_flag(meta.get("keep-coding-instructions")))
        name = js_text(meta.get("name")).strip() or path.stem
        description = js_description(meta.get("description")) or ""
        found.append(OutputStyle(name, description, body.strip(), keep, source, path))
    return found


def select_style(
    merged_settings: Mapping[str, Any], styles: Mapping[str, OutputStyle], warnings: list[str]
) -> OutputStyle | None:
    """The style the `outputStyle` setting names (case-insensitive), None for the default."""
    wanted = merged_settings.get("outputStyle")
    if wanted is None or wanted == "":
        return None
    if not isinstance(wanted, str):
        warnings.append("outputStyle must be the name of a style (text); using the default")
        return None
    style = styles.get(wanted) or next((s for n, s in styles.items() if n.lower() == wanted.lower()), None)
    if style is None:
        names = ", ".join(sorted(styles))
        warnings.append(f"outputStyle {wanted!r}: no such style (available: {names}); using the default")
        return None
    return None if style.name == "default" else style

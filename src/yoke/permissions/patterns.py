"""Matching rule specifiers: Bash command patterns, gitignore-style path patterns, tool-name wildcards.

Bash: `*` matches any characters (spaces too) anywhere; a trailing ` *` also matches the bare command
(`Bash(ls *)` matches `ls` and `ls -la` but not `lsof`); a trailing `:*` is the legacy spelling of ` *`.

Paths (Read/Edit rules): `//x` is absolute, `~/x` is in the home directory, `/x` is relative to the settings
source's directory, `x` and `./x` relative to the working directory. `*` matches within one path segment,
`**` across segments, `?` one character, `[...]` a class. A pattern without a slash matches a name at any
depth (`.env` ≡ `**/.env`); so does a single-directory pattern like `src/**` in deny and ask rules (in
allow rules it means `<cwd>/src/**` only). As in gitignore, a pattern that matches a directory matches
everything below it.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

from yoke.globs import compile_glob
from yoke.permissions.rules import PermissionRule
from yoke.records import dataclass


@functools.lru_cache(maxsize=2048)
def bash_pattern(spec: str) -> re.Pattern[str]:
    spec = " ".join(spec.split())
    if spec.endswith(":*"):
        spec = spec[:-2].rstrip() + " *"
    trailing = spec.endswith(" *") or spec == "*"
    body = spec[:-2] if spec.endswith(" *") else spec
    regex = ".*".join(
        re.escape(piece.replace("\\*", "\0")).replace("\0", r"\*") for piece in _split_stars(body)
    )
    if trailing and spec != "*":
        regex += "(?: .*)?"
    return re.compile(regex, re.DOTALL)


def _split_stars(text: str) -> list[str]:
    """Split on `*` not preceded by a backslash (an escaped star stays a literal star)."""
    return re.split(r"(?<!\\)\*", text)


def bash_matches(spec: str, command_text: str) -> bool:
    return bash_pattern(spec).fullmatch(command_text) is not None


def tool_name_matches(rule_tool: str, names: set[str]) -> bool:
    """Rule tool names may use `*` (`mcp__*`, `mcp__github__get_*`, `*`)."""
    if "*" not in rule_tool:
        if rule_tool in names:
            return True
        # `mcp__server` covers every tool of that server.
        return (
            rule_tool.startswith("mcp__")
            and rule_tool.count("__") == 1
            and any(n.startswith(rule_tool + "__") for n in names)
        )
    regex = re.compile(".*".join(re.escape(p) for p in rule_tool.split("*")))
    return any(regex.fullmatch(n) for n in names)


@dataclass(slots=True, frozen=True)
class PathPattern:
    base: str  # absolute directory the pattern is anchored at ("/" for `//` and anywhere patterns)
    regex: re.Pattern[str]  # matched against the path relative to `base`
    anywhere: bool  # matches at any depth below `base`


def path_pattern(rule: PermissionRule, cwd: Path, home: Path) -> PathPattern | None:
    """Compile a Read/Edit rule's specifier; None if it cannot be used (an unsupported `~user` form)."""
    spec = rule.specifier or "**"
    if spec.startswith("//"):
        base, rel = "/", spec[2:]
    elif spec == "~" or spec.startswith("~/"):
        base, rel = str(home), spec[2:]
    elif spec.startswith("~"):
        return None
    elif spec.startswith("/"):
        base, rel = str(rule.base_dir), spec[1:]
    else:
        base, rel = str(cwd), spec[2:] if spec.startswith("./") else spec
        core = rel.rstrip("/")
        no_slash = "/" not in core
        single_dir = bool(re.fullmatch(r"[^/]+/\*\*", core)) and not spec.startswith("./")
        if no_slash or (single_dir and rule.behavior != "allow"):
            # Deny and ask rules are kept broad: anywhere on disk, not only below cwd.
            base = "/" if rule.behavior != "allow" else base
            return PathPattern(os.path.normpath(base), _glob_regex(core), True)
    rel = rel.rstrip("/")
    if rel.startswith("/"):
        rel = rel.lstrip("/")
    return PathPattern(os.path.normpath(base), _glob_regex(rel) if rel else re.compile(""), False)


def path_matches(pattern: PathPattern, path: str) -> bool:
    """Whether `path` (absolute, normalised) or a directory above it matches."""
    base = pattern.base.rstrip("/")
    if path == base or not base:
        rel = path.lstrip("/") if not base else ""
    elif path.startswith(base + "/"):
        rel = path[len(base) + 1 :]
    else:
        return False
    if rel == "":
        return pattern.regex.pattern == ""
    parts = rel.split("/")
    for end in range(len(parts), 0, -1):
        candidate = "/".join(parts[:end])
        if pattern.anywhere:
            if any(pattern.regex.fullmatch("/".join(parts[start:end])) for start in range(end)):
                return True
        elif pattern.regex.fullmatch(candidate):
            return True
    return pattern.regex.pattern == ""


@dataclass(slots=True, frozen=True)
class RulePaths:
    """The paths a set of deny rules name, as a predicate over absolute paths (handed to the sandbox, which
    hides or pins what it names; picklable, unlike a closure)."""

    patterns: tuple[PathPattern, ...]
    # the folders the anchored patterns start from, up to their first wildcard (`Read(~/.aws/**)`: ~/.aws):
    # where the kernel's scan looks for what they name, beside the working directories
    roots: tuple[str, ...] = ()

    def __call__(self, path: str) -> bool:
        return any(path_matches(p, path) for p in self.patterns)


def rule_paths(rules: list[PermissionRule], cwd: Path, home: Path) -> RulePaths | None:
    """The predicate of `rules`' path patterns, or None when they name no path."""
    named = [r for r in rules if not r.whole_tool]
    compiled = [path_pattern(r, cwd, home) for r in named]
    patterns = tuple(p for p in compiled if p is not None)
    roots = tuple(dict.fromkeys(r for r in (_literal_root(p) for p in compiled if p is not None) if r))
    return RulePaths(patterns, roots) if patterns else None


def _literal_root(pattern: PathPattern) -> str | None:
    """The folder an anchored pattern's matches all lie below (its base and the pattern's leading literal
    names), or None for a pattern matching anywhere or anchored at `/` with a wildcard first."""
    if pattern.anywhere:
        return None
    names: list[str] = []
    for part in pattern.regex.pattern.split("/"):
        literal = re.sub(r"\\(.)", r"\1", part)
        if re.escape(literal) != part:
            break  # a wildcard (or anything that is not a plain name) from here on
        names.append(literal)
    root = os.path.normpath(os.path.join(pattern.base, *names)) if names else pattern.base
    return None if root == "/" else root


def _glob_regex(glob: str) -> re.Pattern[str]:
    # gitignore-style rules have no {a,b} alternatives: a brace is a literal character here
    return compile_glob(glob, braces=False)

"""The facts of one tool call (what it reads, writes, runs or fetches) and whether a rule matches them.

Deny and ask rules match broadly: a path rule matches if the path as written or its real target matches, a
Bash rule if any command in the line (in any spelling, through any wrapper) matches. Allow rules match
narrowly: a path rule must match both the path and its target, and Bash allow rules are judged per command
by the gate.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from yoke.records import Record
from yoke.regex import lazy_compile

if TYPE_CHECKING:
    from yoke.permissions.bash_analysis import BashAnalysis

from yoke.paths import ResolvedPath, resolve_path
from yoke.permissions.patterns import bash_matches, path_matches, path_pattern, tool_name_matches
from yoke.permissions.rules import PermissionRule
from yoke.sandbox.domains import domain_matches
from yoke.tools.base import Tool, ToolContext

EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
READ_TOOLS = frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead", "LSP"})  # LSP: judged like Read
# Tools whose `command` is a shell line, judged as a Bash call: Bash rules (deny, ask, allow),
# `--disallowedTools Bash`, the critical-rm guard and the fast paths' confinement all hold for Monitor's
# command too (2.1.332's Monitor checks its permissions through the shell's own check); Monitor's own
# rules match it as well.
SHELL_TOOLS = frozenset({"Bash", "Monitor"})
PATH_KEYS = ("file_path", "notebook_path", "path", "filePath")  # filePath: the LSP tool's
PRIMARY_FIELDS = frozenset({"command", "file_path", "path", "url", "notebook_path"})
# Bash commands whose operands are files they read (Read deny rules apply to them, best effort).
FILE_READERS = frozenset(
    [
        "cat",
        "head",
        "tail",
        "less",
        "more",
        "sed",
        "awk",
        "gawk",
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "wc",
        "sort",
        "uniq",
        "cut",
        "nl",
        "od",
        "xxd",
        "hexdump",
        "strings",
        "diff",
        "cmp",
        "comm",
        "tac",
        "rev",
        "base64",
        "file",
        "stat",
        "cp",
        "scp",
        "rsync",
        "tar",
        "zip",
        "gzip",
        "zcat",
        "bzcat",
        "xzcat",
        "jq",
        "yq",
        "source",
        ".",
        "vim",
        "vi",
        "nano",
        "emacs",
        "code",
        "open",
        "python",
        "python3",
        "node",
        "ruby",
        "perl",
        "php",
        "bat",
        "md5sum",
        "sha1sum",
        "sha256sum",
        "sha512sum",
    ]
)
_PARAM_SPEC = lazy_compile(r"^([A-Za-z_][A-Za-z0-9_]*):(.*)$", re.DOTALL)


class CallFacts(Record):
    __slots__ = (
        "tool",
        "input",
        "names",
        "kind",
        "read_only",
        "paths",
        "raw_paths",
        "bash",
        "shell_cwd",
        "host",
        "port",
    )

    tool: Tool
    input: dict[str, Any]
    names: set[str]
    kind: str  # "bash", "read", "edit", "web", "other"
    read_only: bool  # the tool's own verdict for this input
    paths: list[ResolvedPath] | None  # read/edit tools; None if a path cannot be resolved
    raw_paths: list[str]
    bash: BashAnalysis | None
    shell_cwd: Path | None
    host: str | None
    port: int | None

    @property
    def command(self) -> str:
        return str(self.input.get("command", ""))

    def __init__(
        self,
        tool: Tool,
        input: dict[str, Any],
        names: set[str],
        kind: str,
        read_only: bool,
        paths: list[ResolvedPath] | None = None,
        raw_paths: list[str] | None = None,
        bash: BashAnalysis | None = None,
        shell_cwd: Path | None = None,
        host: str | None = None,
        port: int | None = None,
    ) -> None:
        self.tool = tool
        self.input = input
        self.names = names
        self.kind = kind
        self.read_only = read_only
        self.paths = paths
        self.raw_paths = [] if raw_paths is None else raw_paths
        self.bash = bash
        self.shell_cwd = shell_cwd
        self.host = host
        self.port = port


def canonical_input(tool: Tool, input: dict[str, Any]) -> dict[str, Any]:
    """The one reading of a call's input that is judged and then executed: path fields and a Glob pattern
    without surrounding whitespace (the file tools strip it too, so `" ~/.aws/credentials"` is judged as
    the file it opens)."""
    out = dict(input)
    for key in (*PATH_KEYS, "pattern"):
        value = out.get(key)
        if isinstance(value, str) and (key != "pattern" or tool.name == "Glob") and value != value.strip():
            out[key] = value.strip()
    return out


def call_facts(tool: Tool, input: dict[str, Any], ctx: ToolContext, home: Path) -> CallFacts:
    names = {tool.name, *tool.aliases}
    if names & SHELL_TOOLS:
        names.add("Bash")
    read_only = _tool_read_only(tool, input)
    facts = CallFacts(tool, input, names, "other", read_only)
    if names & SHELL_TOOLS:
        from yoke.permissions.bash_analysis import analyze  # the parser loads only once Bash is called

        facts.kind = "bash"
        facts.read_only = False
        facts.bash = analyze(str(input.get("command", "")))
        shell_cwd = ctx.session.shell_cwd if ctx.session is not None else None
        facts.shell_cwd = shell_cwd if shell_cwd is not None and shell_cwd.is_dir() else ctx.cwd
        return facts
    if names & EDIT_TOOLS:
        facts.kind = "edit"
        facts.read_only = False
    elif names & READ_TOOLS:
        facts.kind = "read"
    elif any(key in input for key in PATH_KEYS):
        facts.kind = "read" if read_only else "edit"
    elif "url" in input and names & {"WebFetch"}:
        facts.kind = "web"
        parts = urlsplit(str(input.get("url", "")))
        facts.host = (parts.hostname or "").lower() or None
        try:
            facts.port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            facts.port = None
        return facts
    else:
        return facts
    facts.raw_paths = _raw_paths(tool, input, ctx.cwd)
    resolved = [resolve_path(p, ctx.cwd, home) for p in facts.raw_paths]
    facts.paths = None if any(r is None for r in resolved) else [r for r in resolved if r is not None]
    return facts


def _tool_read_only(tool: Tool, input: dict[str, Any]) -> bool:
    try:
        return bool(tool.is_read_only(tool.validate(input)))
    except Exception:
        return bool(getattr(tool, "read_only", False))


def _raw_paths(tool: Tool, input: dict[str, Any], cwd: Path) -> list[str]:
    paths = [str(input[k]) for k in PATH_KEYS if isinstance(input.get(k), str) and input.get(k)]
    pattern = input.get("pattern")
    is_glob = "Glob" in (tool.name, *tool.aliases)
    # An absolute or climbing glob reaches beyond `path`: its literal prefix is what gets listed.
    if (
        is_glob
        and isinstance(pattern, str)
        and (pattern.startswith(("/", "~")) or ".." in pattern.split("/"))
    ):
        prefix = re.split(r"[*?\[{]", pattern, maxsplit=1)[0]
        base = paths[0] if paths else str(cwd)
        paths.append(prefix if prefix.startswith(("/", "~")) else f"{base}/{prefix}")
    if not paths:
        paths.append(str(cwd))
    return paths


class RuleMatcher:
    """Rule-versus-call matching for one session (cwd and home fixed)."""

    def __init__(self, cwd: Path, home: Path) -> None:
        self.cwd = cwd
        self.home = home

    def matches(self, rule: PermissionRule, facts: CallFacts) -> bool:
        """Deny/ask semantics for every kind; allow semantics for everything but Bash (see the gate)."""
        family = path_family(rule)
        if family is not None:
            return self._path_rule(rule, family, facts)
        if not tool_name_matches(rule.tool, facts.names):
            return False
        if rule.whole_tool:
            return True
        spec = rule.specifier or ""
        param = _PARAM_SPEC.match(spec)
        if param and param.group(1) not in PRIMARY_FIELDS and _is_field(facts.tool, param.group(1)):
            if rule.behavior == "allow":
                return False  # Claude Code: parameter rules are for deny and ask only
            return _glob(param.group(2), _scalar(facts.input.get(param.group(1))))
        if facts.kind == "bash":
            return rule.behavior != "allow" and self.bash_deny_match(spec, facts)
        if facts.kind == "web":
            return self._web_rule(rule, spec, facts)
        return self._named_specifier(rule, spec, facts)

    def bash_deny_match(self, spec: str, facts: CallFacts) -> bool:
        analysis = facts.bash
        assert analysis is not None
        for inv in analysis.invocations:
            if any(bash_matches(spec, text) for text in inv.deny_texts):
                return True
        if analysis.analysable:
            return False
        # The analyser gave up: try the raw line and every piece between separators too.
        pieces = [facts.command, *re.split(r"[;&|\n`()]|\$\(", facts.command)]
        return any(bash_matches(spec, " ".join(p.split())) for p in pieces if p.strip())

    def _path_rule(self, rule: PermissionRule, family: str, facts: CallFacts) -> bool:
        pattern = path_pattern(rule, self.cwd, self.home)
        if pattern is None:
            return False
        if facts.kind in ("read", "edit"):
            applies = family == facts.kind or (family == "read" and rule.behavior != "allow")
            if not applies or facts.paths is None:
                return False
            if rule.behavior == "allow":
                return all(
                    path_matches(pattern, p.logical) and path_matches(pattern, p.real) for p in facts.paths
                )
            paths = list(facts.paths)
            if facts.kind == "read":
                # A directory search (Glob, Grep) is caught by a deny on what is inside it (`src/**`).
                paths += [
                    ResolvedPath(p.logical + "/_", p.real + "/_")
                    for p in facts.paths
                    if os.path.isdir(p.real)
                ]
            return any(path_matches(pattern, p.logical) or path_matches(pattern, p.real) for p in paths)
        if facts.kind == "bash" and rule.behavior != "allow":
            reached = self.bash_paths(facts, family)
            if reached is None:
                return True  # a path only known at run time fails closed against deny and ask rules
            return any(path_matches(pattern, p.logical) or path_matches(pattern, p.real) for p in reached)
        return False

    def bash_paths(self, facts: CallFacts, family: str) -> list[ResolvedPath] | None:
        """The files a command line reads (family "read", directory trees included for commands that may
        recurse) or writes (family "edit"); None when one of them cannot be resolved statically."""
        from yoke.permissions.bash_analysis import (
            candidate_cwds,
            committed_reads,
            copied_paths,
            paths_of,
            tree_paths,
        )

        analysis = facts.bash
        assert analysis is not None and facts.shell_cwd is not None
        cwds = candidate_cwds(analysis, facts.shell_cwd, self.home)
        words = list(analysis.write_redirects)
        for inv in analysis.invocations:
            words += inv.writes + inv.removes
        out: list[ResolvedPath] = []
        if family == "read":
            words += analysis.read_redirects
            for inv in analysis.invocations:
                reader = inv.name in FILE_READERS or inv.name.rsplit("/", 1)[-1] in FILE_READERS
                operands = _reader_operands(inv.words)
                found = paths_of(inv.read_only.reads + (operands if reader else []), cwds, self.home)
                committed = committed_reads(inv, cwds)  # `git show`, `git log -p`: the whole history
                if found is None or committed is None:
                    return None
                out += found + committed
                if reader or inv.read_only.recursive:
                    follows = inv.read_only.follows_links or not inv.read_only.read_only
                    tree = tree_paths(found, follows)
                    if tree is None:
                        return None
                    out += tree
        else:
            for inv in analysis.invocations:
                copied = copied_paths(inv, cwds, self.home)
                if copied is None:
                    return None
                out += copied
        found = paths_of(words, cwds, self.home)
        return None if found is None else out + found

    def _web_rule(self, rule: PermissionRule, spec: str, facts: CallFacts) -> bool:
        if spec.startswith("domain:"):
            return facts.host is not None and domain_matches(spec[7:], facts.host)
        if rule.behavior == "allow":
            return False
        return _glob(spec, str(facts.input.get("url", "")))

    def _named_specifier(self, rule: PermissionRule, spec: str, facts: CallFacts) -> bool:
        value = None
        if facts.names & {"Agent", "Task"}:
            value = facts.input.get("subagent_type")
        elif facts.names & {"Skill"}:
            value = facts.input.get("skill") or facts.input.get("name") or facts.input.get("command")
            value = str(value).lstrip("/") if value else None
        if value is not None:
            return _glob(spec, str(value))
        if rule.behavior == "allow":
            return False
        # Unknown specifier forms in deny/ask: match any top-level string in the input.
        return any(_glob(spec, v) for v in facts.input.values() if isinstance(v, str))


_PROGRAM_FIRST = frozenset({"grep", "egrep", "fgrep", "rg", "sed", "awk", "gawk", "jq", "yq"})


def _reader_operands(words: list[Any]) -> list[Any]:
    """The operands of a file-reading command that may name files: not its options, and not the pattern or
    program that grep, sed, awk and jq take first (unless given with -e/-f)."""
    operands = [w for w in words[1:] if not (w.static and w.text.startswith("-"))]
    name = words[0].text.rsplit("/", 1)[-1] if words else ""
    given = any(
        w.static and w.text.startswith(("-e", "-f", "--regexp", "--file", "--expression")) for w in words
    )
    if name in _PROGRAM_FIRST and operands and not given:
        operands = operands[1:]
    return operands


def path_family(rule: PermissionRule) -> str | None:
    """ "read" or "edit" for path rules (Read(…), Edit(…), Write(…)…), None for everything else."""
    if rule.whole_tool:
        return None
    if rule.tool in READ_TOOLS:
        return "read"
    if rule.tool in EDIT_TOOLS:
        return "edit"
    return None


def _is_field(tool: Tool, name: str) -> bool:
    model = getattr(tool, "input_model", None)
    fields = getattr(model, "model_fields", {}) or {}
    return name in fields


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _glob(pattern: str, value: str) -> bool:
    regex = ".*".join(re.escape(p) for p in pattern.split("*"))
    return re.fullmatch(regex, value, re.DOTALL) is not None

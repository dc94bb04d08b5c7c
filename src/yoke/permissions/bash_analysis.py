"""Bash analysis for permissions: every command a command line would run, and what each one reads and writes.

`analyze(command)` parses with tree-sitter-bash (see `bash_parse`), looks through wrappers and `bash -c` /
`eval` strings (see `bash_commands`), and returns one `Invocation` per simple command with the texts rules
are matched against. Path operands are resolved later, against the working directory the command starts
in plus every directory a `cd` in it may move to, so `cd x; cat ../y` is judged from both places.

`is_read_only_command(command, cwd, working_dirs)` is the question the Bash tool's `is_read_only` and the
gate's read-only fast path ask: every command in the built-in read-only set, every path it reads inside the
working directories and not a secret, no writes except to /dev/null and friends.
"""

from __future__ import annotations

import functools
import glob as globlib
import os
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from yoke.permissions.bash_parse import Redirect, SimpleCommand, parse_bash
from yoke.permissions.bash_readonly import (
    ACCEPT_EDITS_COMMANDS,
    REMOVE_COMMANDS,
    ReadOnlyCheck,
    find_exec_commands,
    finds_changes,
    read_only_check,
)
from yoke.permissions.bash_words import Word
from yoke.permissions.bash_wrappers import SHELLS, Unwrapped, safe_variable, unwrap
from yoke.permissions.paths import ResolvedPath, expand_user, is_inside, is_secret, real_dirs, resolve_path

MAX_SCRIPT_DEPTH = 4
MAX_GLOB_MATCHES = 1000
MAX_CWD_CANDIDATES = 64
DEVICE_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1", "/dev/fd/2"})
_FORMAT_CHARS = re.compile(r"[\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")


@dataclass(slots=True)
class Invocation:
    """One simple command, as rules see it."""

    words: list[Word]  # the innermost command after wrappers
    deny_texts: list[str]  # every form deny and ask rules are tried on
    allow_text: str | None  # the form allow rules are tried on; None when no allow rule may approve it
    allow_exact_only: bool = False  # only a wildcard-free allow rule may approve it (executing wrappers)
    read_only: ReadOnlyCheck = field(default_factory=lambda: ReadOnlyCheck(False))
    fs_edit: bool = False  # mkdir/touch/mv/cp: acceptEdits approves it inside the working directories
    writes: list[Word] = field(default_factory=list)  # operands an fs_edit command writes
    removes: list[Word] = field(default_factory=list)  # operands of rm/rmdir

    @property
    def name(self) -> str:
        return self.words[0].text if self.words else ""

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)


@dataclass(slots=True)
class BashAnalysis:
    command: str
    invocations: list[Invocation] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    cd_targets: list[Word] = field(default_factory=list)
    cd_unknown: bool = False  # a cd whose destination cannot be known (cd -, popd, cd $X)
    problems: list[str] = field(default_factory=list)

    @property
    def analysable(self) -> bool:
        return not self.problems

    @property
    def write_redirects(self) -> list[Word]:
        return [
            r.target for r in self.redirects if r.writes and r.target is not None and not _device(r.target)
        ]

    @property
    def read_redirects(self) -> list[Word]:
        return [
            r.target for r in self.redirects if r.reads and r.target is not None and not _device(r.target)
        ]

    def commands_read_only(self) -> bool:
        """Every command is in the read-only set and nothing is written (paths not yet checked)."""
        return (
            self.analysable
            and all(i.read_only.read_only for i in self.invocations)
            and not self.write_redirects
        )


@functools.lru_cache(maxsize=512)
def analyze(command: str) -> BashAnalysis:
    """The analysis of one command line (cached: the gate and the tool ask about the same command)."""
    analysis = BashAnalysis(command)
    _Analyzer(analysis).add_script(command, 0)
    return analysis


class _Analyzer:
    def __init__(self, analysis: BashAnalysis) -> None:
        self.a = analysis

    def add_script(self, script: str, depth: int) -> None:
        if depth > MAX_SCRIPT_DEPTH:
            self.problem("shell code nested too deeply")
            return
        parsed = parse_bash(script)
        for problem in parsed.problems:
            self.problem(problem)
        self.a.redirects.extend(parsed.redirects)
        for cmd in parsed.commands:
            self.add_command(cmd, parsed.functions, depth)

    def problem(self, text: str) -> None:
        if text not in self.a.problems:
            self.a.problems.append(text)

    def add_command(self, cmd: SimpleCommand, functions: list[str], depth: int) -> None:
        if cmd.kind == "command" and cmd.words:
            self.add_simple(cmd, functions, depth)
            return
        texts = [_assignments_text(cmd.assignments), cmd.text]
        text = " ".join(t for t in texts if t)
        read_only = self.builtin_read_only(cmd)
        self.a.invocations.append(
            Invocation(cmd.words or [Word(text)], _deny_forms([text]), text, read_only=read_only)
        )

    def builtin_read_only(self, cmd: SimpleCommand) -> ReadOnlyCheck:
        safe = all(safe_variable(name) for name, _ in cmd.assignments)
        if cmd.kind in ("assignment", "unset"):
            return ReadOnlyCheck(safe, reason="" if safe else "sets a variable that changes how commands run")
        if cmd.kind == "declaration":
            names = [w.text for w in cmd.words[1:] if not w.text.startswith(("-", "+"))]
            ok = safe and all(w.static for w in cmd.words) and all(safe_variable(n) for n in names)
            return ReadOnlyCheck(ok, reason="" if ok else "exports a variable that changes how commands run")
        if cmd.kind in ("test", "arith"):
            ok = all(w.static for w in cmd.words)
            return ReadOnlyCheck(ok, reason="" if ok else "an expression with expansions")
        return ReadOnlyCheck(not cmd.assignments or safe)

    def add_simple(self, cmd: SimpleCommand, functions: list[str], depth: int) -> None:
        unwrapped = unwrap(cmd.words)
        if unwrapped.problem:
            self.problem(unwrapped.problem)
        for script in unwrapped.scripts:
            if script.static:
                self.add_script(script.text, depth + 1)
            else:
                self.problem("shell code that is only known at run time")
        inner = unwrapped.layers[-1]
        assignments = cmd.assignments + unwrapped.assignments
        unsafe = [(n, v) for n, v in assignments if not safe_variable(n)]
        if not inner[0].static or inner[0].brace or inner[0].glob:
            self.problem("a command name that is only known at run time")
        deny_texts = _deny_forms(_layer_texts(cmd, unwrapped.layers))
        exec_like = not unwrapped.transparent or finds_changes(inner) or bool(unwrapped.scripts)
        if exec_like:
            allow_text: str | None = " ".join(
                t for t in (_assignments_text(cmd.assignments), _text(cmd.words)) if t
            )
        else:
            allow_text = " ".join(t for t in (_assignments_text(unsafe), _text(inner)) if t)
        if not inner[0].static or inner[0].brace or inner[0].glob:
            allow_text = None
        container = _script_container(cmd.words, unwrapped)
        if container:
            read_only = ReadOnlyCheck(True)  # `bash -c '…'` / `eval '…'`: its commands were added above
            exec_like = False
        elif inner[0].text in functions:
            read_only = ReadOnlyCheck(False, reason="calls a function defined in the command")
        elif exec_like or unsafe or unwrapped.problem:
            read_only = ReadOnlyCheck(False, reason="runs another command through a wrapper")
        else:
            read_only = read_only_check(inner)
        invocation = Invocation(inner, deny_texts, allow_text, exec_like, read_only)
        name = inner[0].text
        if name in ACCEPT_EDITS_COMMANDS and not exec_like and not unsafe:
            invocation.fs_edit = True
            invocation.writes = _operands(inner[1:])
        if name in REMOVE_COMMANDS:
            invocation.removes = _operands(inner[1:])
        self.a.invocations.append(invocation)
        self.note_cd(name, inner[1:])
        for exec_words in find_exec_commands(inner):
            texts = _deny_forms([_text(exec_words)])
            self.a.invocations.append(Invocation(exec_words, texts, None, True, ReadOnlyCheck(False)))

    def note_cd(self, name: str, args: list[Word]) -> None:
        if name not in ("cd", "pushd", "popd", "chdir"):
            return
        operands = [a for a in args if not (a.text.startswith("-") and a.text not in ("-",))]
        if name == "popd" or any(a.text == "-" for a in operands) or len(operands) > 1:
            self.a.cd_unknown = True
        elif not operands:
            self.a.cd_targets.append(Word("~", tilde=True))
        else:
            self.a.cd_targets.append(operands[0])


def _script_container(words: list[Word], unwrapped: Unwrapped) -> bool:
    """`bash -c 'static code'`, `eval 'static code'`, `trap 'static code' EXIT`: nothing but their code runs."""
    head = words[0].text
    shells = head in SHELLS or head in ("eval", "trap")
    return (
        shells
        and len(unwrapped.layers) == 1
        and bool(unwrapped.scripts)
        and not unwrapped.problem
        and all(s.static for s in unwrapped.scripts)
    )


def _text(words: list[Word]) -> str:
    return " ".join(w.text for w in words)


def _assignments_text(assignments: list[tuple[str, Word]]) -> str:
    return " ".join(f"{name}={value.text}" for name, value in assignments)


def _layer_texts(cmd: SimpleCommand, layers: list[list[Word]]) -> list[str]:
    texts = []
    prefix = _assignments_text(cmd.assignments)
    if prefix:
        texts.append(f"{prefix} {_text(cmd.words)}")
    for layer in layers:
        if not layer:
            continue
        texts.append(_text(layer))
        head = layer[0].text
        if "/" in head:  # /bin/rm is rm for deny rules
            texts.append(" ".join([os.path.basename(head), *(w.text for w in layer[1:])]))
    return texts


def _deny_forms(texts: Iterable[str]) -> list[str]:
    """Deny and ask rules are tried on every spelling: as written, NFKC-folded, invisible characters removed."""
    out: list[str] = []
    for text in texts:
        for form in (text, unicodedata.normalize("NFKC", _FORMAT_CHARS.sub("", text))):
            form = " ".join(form.split())
            if form and form not in out:
                out.append(form)
    return out


def _operands(args: list[Word]) -> list[Word]:
    out: list[Word] = []
    done = False
    for arg in args:
        if not done and arg.text == "--":
            done = True
            continue
        if not done and arg.text.startswith("-") and arg.static and arg.text != "-":
            if arg.text.startswith("--") and "=" in arg.text:
                out.append(Word(arg.text.split("=", 1)[1]))
            continue
        out.append(arg)
    return out


def _device(word: Word) -> bool:
    return word.static and word.text in DEVICE_TARGETS


# ---- resolving operands ----------------------------------------------------------------------------------


def candidate_cwds(analysis: BashAnalysis, cwd: Path, home: Path) -> list[str] | None:
    """Every directory relative paths in the command may be resolved from; None if one cannot be known."""
    cands = [os.path.realpath(cwd)]
    if analysis.cd_unknown:
        return None
    cdpath = bool(os.environ.get("CDPATH"))
    for _ in range(len(analysis.cd_targets)):
        grown = False
        for target in analysis.cd_targets:
            if not target.static or target.glob or target.brace:
                return None
            text = target.text
            if cdpath and not text.startswith(("/", ".", "~")):
                return None
            for base in list(cands):
                resolved = resolve_path(text, Path(base), home)
                if resolved is None:
                    return None
                if resolved.real not in cands:
                    cands.append(resolved.real)
                    grown = True
                    if len(cands) > MAX_CWD_CANDIDATES:
                        return None
        if not grown:
            break
    return cands


def resolve_operand(
    word: Word, cwds: list[str] | None, home: Path, *, with_prefix: bool = True
) -> list[ResolvedPath] | None:
    """The paths an operand names (globs expanded now, from every candidate directory); None if unknowable.
    A glob also names the directory it lists (its literal prefix) unless `with_prefix` is false."""
    if word.procsub:
        return []
    if not word.static or word.brace:
        return None
    text = word.text
    if text == "-":
        return []
    if word.tilde:
        expanded = expand_user(text, home)
        if expanded is None:
            return None
        text = expanded
    if not text.startswith("/") and cwds is None:
        return None
    bases = ["/"] if text.startswith("/") else (cwds or [])
    out: list[ResolvedPath] = []
    for base in bases:
        paths = _expand_glob(text, base, with_prefix) if word.glob else [text]
        if paths is None:
            return None
        for path in paths:
            resolved = resolve_path(path, Path(base), home)
            if resolved is None:
                return None
            out.append(resolved)
    return out


def _expand_glob(pattern: str, base: str, with_prefix: bool = True) -> list[str] | None:
    parts = pattern.split("/")
    literal: list[str] = []
    for part in parts:
        if any(ch in part for ch in "*?["):
            break
        literal.append(part)
    if any(any(ch in p for ch in "*?[") and p.startswith((".", "[")) for p in parts):
        return None  # `.*` may match `..` in bash: the pattern could climb out of the directory
    prefix = "/".join(literal) or ("/" if pattern.startswith("/") else ".")
    matches: list[str] = [prefix] if with_prefix else []
    root = base if not pattern.startswith("/") else "/"
    for i, match in enumerate(globlib.iglob(pattern, root_dir=root, include_hidden=True)):
        if i >= MAX_GLOB_MATCHES or os.path.basename(match).startswith("-"):
            return None  # too many to check, or a file name that the command would take as an option
        matches.append(match)
    return matches


def removal_targets(word: Word, cwds: list[str] | None, home: Path) -> list[ResolvedPath] | None:
    """What `rm` would remove: the glob's matches, and for a bare `dir/*` the directory's whole content,
    judged as the directory itself (so `rm -rf ~/*` counts as removing the home directory)."""
    paths = resolve_operand(word, cwds, home, with_prefix=False)
    if paths is None or not word.glob:
        return paths
    head, _, last = word.text.rpartition("/")
    if last in ("*", "**"):
        folder = resolve_operand(
            Word(head or ("/" if word.text.startswith("/") else "."), tilde=word.tilde), cwds, home
        )
        if folder is None:
            return None
        paths = [*paths, *folder]
    return paths


def paths_of(words: Iterable[Word], cwds: list[str] | None, home: Path) -> list[ResolvedPath] | None:
    out: list[ResolvedPath] = []
    for word in words:
        resolved = resolve_operand(word, cwds, home)
        if resolved is None:
            return None
        out.extend(resolved)
    return out


def reads_of(analysis: BashAnalysis, cwd: Path, home: Path) -> list[ResolvedPath] | None:
    """Every path the read-only commands and `<` redirections read (with cd destinations); None if unknowable."""
    cwds = candidate_cwds(analysis, cwd, home)
    words: list[Word] = [w for inv in analysis.invocations for w in inv.read_only.reads]
    words += analysis.read_redirects
    return paths_of(words, cwds, home)


def is_read_only_command(
    command: str, cwd: Path, working_dirs: Iterable[Path], home: Path | None = None
) -> bool:
    """True only if the whole command line just reads, inside the working directories, and no secrets."""
    home = home or Path.home()
    analysis = analyze(command)
    if not analysis.commands_read_only():
        return False
    reads = reads_of(analysis, cwd, home)
    if reads is None:
        return False
    dirs = real_dirs([cwd, *working_dirs])
    return all(
        is_inside(p.real, dirs) and not is_secret(p.real, home) and not is_secret(p.logical, home)
        for p in reads
    )

"""Bash analysis for permissions: every command a command line would run, and what each one reads and writes.

`analyze(command)` parses with tree-sitter-bash (see `bash_parse`), looks through wrappers and `bash -c` /
`eval` strings (see `bash_wrappers`), and returns one `Invocation` per simple command with the texts rules
are matched against and its read-only verdict (`bash_readonly`: known-safe shapes only). It never raises:
what it cannot follow is a problem, and a line with problems is unknown. Path operands are resolved later
(`bash_paths`), against the working directory the command starts in plus every directory a `cd` in it may
move to, so `cd x; cat ../y` is judged from both places.

`is_read_only_command(command, cwd, working_dirs)` is the question the Bash tool's `is_read_only` and the
gate's read-only fast path ask: a line of literals, every command a known-safe shape, every path it reads
(trees below recursive readers included) inside the working directories and not a secret, no writes except
to /dev/null and friends.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from yoke.permissions.bash_command_words import (
    assignments_text,
    deny_forms,
    fs_edit_operands,
    git_chdir,
    layer_texts,
    operand_words,
    words_text,
)
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

MAX_SCRIPT_DEPTH = 4
_ARITH_TEST_OPERATORS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-v", "-R"})
# Wrappers that only time or schedule the command they run: no environment, no code of their own.
_TIMING_WRAPPERS = frozenset({"time", "timeout", "nice", "nohup", "stdbuf"})
DEVICE_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1", "/dev/fd/2"})


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
    chdir: list[Word] = field(default_factory=list)  # `git -C DIR`: allow rules apply only if DIR is inside

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
    expansions: bool = False  # a word somewhere is only known at run time
    defines: bool = False  # the line defines a function or an alias (not trusted)

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
        """Every command is in the known-safe subset, every word is a literal, no function or alias is
        defined and nothing is written (paths not yet checked)."""
        return (
            self.analysable
            and not self.expansions
            and not self.defines
            and all(i.read_only.read_only for i in self.invocations)
            and not self.write_redirects
        )


@functools.lru_cache(maxsize=512)
def analyze(command: str) -> BashAnalysis:
    """The analysis of one command line (cached: the gate and the tool ask about the same command)."""
    analysis = BashAnalysis(command)
    try:
        _Analyzer(analysis).add_script(command, 0)
    except Exception as exc:  # the analyser never ends a run: what it cannot follow is unknown
        analysis.problems.append(f"the analyser could not follow this command ({type(exc).__name__})")
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
        self.a.expansions = self.a.expansions or parsed.expansions
        self.a.defines = self.a.defines or bool(parsed.functions)
        for cmd in parsed.commands:
            self.add_command(cmd, parsed.functions, depth)

    def problem(self, text: str) -> None:
        if text not in self.a.problems:
            self.a.problems.append(text)

    def add_command(self, cmd: SimpleCommand, functions: list[str], depth: int) -> None:
        if cmd.kind == "command" and cmd.words:
            self.add_simple(cmd, functions, depth)
            return
        texts = [assignments_text(cmd.assignments), cmd.text]
        text = " ".join(t for t in texts if t)
        read_only = self.builtin_read_only(cmd)
        self.a.invocations.append(
            Invocation(cmd.words or [Word(text)], deny_forms([text]), text, read_only=read_only)
        )

    def builtin_read_only(self, cmd: SimpleCommand) -> ReadOnlyCheck:
        """Assignments, declarations, `unset`, loops and `(( ))` set variables (or evaluate their values as
        arithmetic, array subscripts and all): never read-only. `[[ ]]` is, without expansions, `-v` or an
        arithmetic comparison (which evaluates variable values)."""
        if cmd.kind in ("local", "forin"):
            return ReadOnlyCheck(True)  # a line local or a loop over known words (bash_values)
        if cmd.kind == "test":
            tokens = set(cmd.text.split())
            ok = all(w.static for w in cmd.words) and not tokens & _ARITH_TEST_OPERATORS
            return ReadOnlyCheck(ok, reason="" if ok else "an expression that evaluates variables")
        return ReadOnlyCheck(False, reason=f"{cmd.kind} sets or evaluates variables")

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
        deny_texts = deny_forms(layer_texts(cmd, unwrapped.layers))
        exec_like = not unwrapped.transparent or finds_changes(inner) or bool(unwrapped.scripts)
        if exec_like:
            allow_text: str | None = " ".join(
                t for t in (assignments_text(cmd.assignments), words_text(cmd.words)) if t
            )
        else:
            allow_text = " ".join(t for t in (assignments_text(unsafe), words_text(inner)) if t)
        if not inner[0].static or inner[0].brace or inner[0].glob:
            allow_text = None
        container = _script_container(cmd.words, unwrapped)
        if container:
            exec_like = False  # its commands were added above and are judged one by one
        read_only = _read_only_of(cmd, unwrapped, functions, exec_like or container)
        if inner[0].text in ("alias", "unalias"):
            self.alias(inner[1:], depth)
        chdir, git_form = git_chdir(inner)
        if git_form is not None and allow_text is not None and not exec_like:
            deny_texts = deny_forms([*deny_texts, words_text(git_form)])
            allow_text = " ".join(t for t in (assignments_text(unsafe), words_text(git_form)) if t)
        invocation = Invocation(inner, deny_texts, allow_text, exec_like, read_only, chdir=chdir)
        name = inner[0].text
        if name in ACCEPT_EDITS_COMMANDS and not exec_like and not unsafe:
            writes = fs_edit_operands(name, inner[1:])
            invocation.fs_edit = writes is not None
            invocation.writes = writes if writes is not None else operand_words(inner[1:])
        if name in REMOVE_COMMANDS:
            invocation.removes = operand_words(inner[1:])
        self.a.invocations.append(invocation)
        self.note_cd(name, inner[1:])
        for exec_words in find_exec_commands(inner):
            texts = deny_forms([words_text(exec_words)])
            self.a.invocations.append(Invocation(exec_words, texts, None, True, ReadOnlyCheck(False)))

    def alias(self, args: list[Word], depth: int) -> None:
        """An alias defined in the line applies to the lines after it (the Bash tool expands aliases): its
        value is parsed as code so deny rules see it, and the line is never approved without a person."""
        self.problem("the command defines an alias")
        self.a.defines = True
        for arg in args:
            name, eq, value = arg.text.partition("=")
            if eq and arg.static:
                self.add_script(value, depth + 1)

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


def _read_only_of(
    cmd: SimpleCommand, unwrapped: Unwrapped, functions: list[str], runs_code: bool
) -> ReadOnlyCheck:
    """Read-only only without wrappers (bar the timing ones), functions, or assignments other than a
    plain locale setting (`LC_ALL=C sort f`)."""
    inner = unwrapped.layers[-1]
    wrappers = {layer[0].text for layer in unwrapped.layers[:-1] if layer}
    if runs_code or unwrapped.problem or unwrapped.assignments or wrappers - _TIMING_WRAPPERS:
        return ReadOnlyCheck(False, reason="runs another command through a wrapper or shell code")
    if inner[0].text in functions:
        return ReadOnlyCheck(False, reason="calls a function defined in the command")
    if not all(_locale_assignment(name, value) for name, value in cmd.assignments):
        return ReadOnlyCheck(False, reason="sets a variable for the command")
    return read_only_check(inner)


_LOCALE_VALUE = re.compile(r"^[A-Za-z0-9_.@+:-]*$")


def _locale_assignment(name: str, value: Word) -> bool:
    """`LANG=C`, `LC_ALL=en_US.UTF-8`, `TZ=UTC`, `NO_COLOR=1`: cannot name a file or a program."""
    known = name in ("LANG", "LANGUAGE", "TZ", "NO_COLOR", "COLUMNS") or name.startswith("LC_")
    return known and value.static and not value.glob and bool(_LOCALE_VALUE.match(value.text))


def fast_path_applies(inv: Invocation, analysis: BashAnalysis) -> bool:
    """Whether the read-only fast path may approve `inv`: the line is all literals, defines no function
    or alias, and no other command of it that is not read-only may change what `inv`'s paths point to
    before it runs (`ln -s ~/.ssh k; cat k/id_rsa`). Commands that read no file (`cd`, `echo`) keep it."""
    if analysis.expansions or analysis.defines:
        return False
    if inv.words and inv.words[0].text == "cd":
        return True
    if not (inv.read_only.reads or inv.read_only.recursive or inv.read_only.git):
        return True
    return all(other.read_only.read_only for other in analysis.invocations)


def edits_are_stable(analysis: BashAnalysis) -> bool:
    """acceptEdits may approve `mkdir`/`touch`/`mv`/`cp` only on a line of literals where every other
    command is read-only or one of them: anything else may link or move what their operands name first."""
    if analysis.expansions or analysis.defines:
        return False
    return all(inv.read_only.read_only or inv.fs_edit for inv in analysis.invocations)


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


def _device(word: Word) -> bool:
    return word.static and word.text in DEVICE_TARGETS


# Re-exported: callers ask the analysis module for where a line's operands lead.
from yoke.permissions.bash_paths import (  # noqa: E402
    candidate_cwds,
    committed_reads,
    copied_paths,
    copy_reads,
    is_read_only_command,
    path_word,
    paths_of,
    read_only_reads,
    reads_of,
    removal_targets,
    resolve_operand,
    tree_paths,
)

__all__ = [
    "BashAnalysis",
    "Invocation",
    "analyze",
    "candidate_cwds",
    "committed_reads",
    "copied_paths",
    "copy_reads",
    "edits_are_stable",
    "fast_path_applies",
    "is_read_only_command",
    "path_word",
    "paths_of",
    "read_only_reads",
    "reads_of",
    "removal_targets",
    "resolve_operand",
    "tree_paths",
]

"""Whether one simple command is in the known-safe subset, and which of its operands are files it reads.

A command is read-only only when its name and every option match a shape in `bash_shapes` (an allowlist,
options included) and every word is a literal the analyser fully understands. Anything else — an unknown
command, an unknown option, a word with an expansion — is not read-only and falls to the rules and the
mode. Recursive readers are marked so the gate can check everything below the directories they read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from yoke.permissions.bash_git import git_read_only
from yoke.permissions.bash_git_history import git_prints_content
from yoke.permissions.bash_shapes import (
    ENVIRONMENT_PRINTERS,
    FIND_GLOBAL,
    FIND_PATH_VALUED,
    FIND_PREDICATES,
    FIND_VALUED,
    SHAPES,
    Shape,
)
from yoke.permissions.bash_words import Word

_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_FIND_CHANGES = _FIND_EXEC | {"-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
ACCEPT_EDITS_COMMANDS = frozenset({"mkdir", "touch", "mv", "cp"})
REMOVE_COMMANDS = frozenset({"rm", "rmdir"})
# `set` may only switch on error handling; -x (runs PS4), -k, -a, +B and the rest change what later runs.
_SET_SAFE = re.compile(r"^[-+][eu]+$")
_SET_NAMES = frozenset({"pipefail", "errexit", "nounset"})
_TEST_UNSAFE = frozenset({"-v", "-R"})  # they evaluate a variable name, array subscripts included
# Test hook: names the analyser deliberately mislabels as read-only (reading no file), so a test can show
# that the kernel confinement of the fast path holds where the analysis is wrong. Empty outside tests.
MISLABELLED_READ_ONLY: frozenset[str] = frozenset()
_NOT_TEXT = Shape()


@dataclass(slots=True)
class ReadOnlyCheck:
    read_only: bool
    reads: list[Word] = field(default_factory=list)  # operands that are read and must be checked as paths
    reason: str = ""
    recursive: bool = False  # reads whole directory trees below its operands
    follows_links: bool = False  # and follows the symlinks it meets there
    names_only: bool = False  # the trees' names are listed, not their contents: their folders are read
    git_content: bool = False  # git printing committed content beyond its operands (`git_prints_content`)
    git: bool = False  # runs git, whose repository configuration must be checked too


def not_read_only(reason: str) -> ReadOnlyCheck:
    return ReadOnlyCheck(False, reason=reason)


def read_only_check(words: list[Word]) -> ReadOnlyCheck:
    """Whether a (fully unwrapped) command is in the known-safe subset, and which operands it reads."""
    if not words:
        return ReadOnlyCheck(True)
    head = words[0]
    name = head.text
    if name in MISLABELLED_READ_ONLY:
        return ReadOnlyCheck(True)
    text_only = head.static and SHAPES.get(name, _NOT_TEXT).text_only
    if not all(
        (w.static or (text_only and w.derived and i > 0)) and not w.brace for i, w in enumerate(words)
    ):
        return not_read_only("a word with an expansion")  # derived text only where text is all it is
    if head.glob or head.tilde or "/" in name or not name.isascii():
        return not_read_only("not a built-in read-only command")
    args = words[1:]
    if any(a.glob and a.text.startswith("-") for a in args):
        return not_read_only(f"`{name}`: an option built by pathname expansion")
    if name in ENVIRONMENT_PRINTERS and not (name == "set" and args):
        return not_read_only(f"`{name}` prints or changes the environment")
    special = _SPECIAL.get(name)
    if special is not None:
        return special(args)
    shape = SHAPES.get(name)
    if shape is None:
        return not_read_only(f"`{name}` is not a built-in read-only command")
    return check_shape(name, shape, args)


def check_shape(name: str, shape: Shape, args: list[Word]) -> ReadOnlyCheck:
    if shape.text_only:
        return ReadOnlyCheck(True)
    check = ReadOnlyCheck(True)
    operands: list[Word] = []
    i = 0
    done = False
    while i < len(args):
        text = args[i].text
        if done or text == "-" or not text.startswith("-"):
            operands.append(args[i])
            i += 1
            continue
        if text == "--":
            done = True
            i += 1
            continue
        step = _long(shape, args, i, check) if text.startswith("--") else _short(shape, args, i, check)
        if step is None:
            return not_read_only(f"`{name} {text}` is not a known read-only form")
        i += step
    if shape.operands == "none" and operands:
        return not_read_only(f"`{name}` with an operand changes something")
    if shape.max_operands is not None and len(operands) > shape.max_operands:
        return not_read_only(f"`{name}` with {len(operands)} operands writes a file")
    if name == "date" and any(not op.text.startswith("+") for op in operands):
        return not_read_only("`date` with an operand sets the clock")
    check.recursive = check.recursive or shape.recursive_always
    check.names_only = shape.names_only
    if shape.operands == "paths":
        check.reads.extend(operands)
        # `@FILE` is a response file to many programs (binutils' strings, …): FILE is read too
        check.reads.extend(Word(a.text[1:]) for a in args if a.text.startswith("@") and len(a.text) > 1)
        if name in _PATTERN_FIRST and check.recursive:
            given = any(a.text.startswith(("-e", "-f", "--regexp", "--file")) for a in args)
            if len(operands) <= (0 if given else 1):
                check.reads.append(Word("."))  # a recursive search without a path searches here
        elif check.recursive and not operands:
            check.reads.append(Word("."))  # `ls -R`, `du -a`, `tree` without a path walk this folder
    return check


_PATTERN_FIRST = frozenset({"grep", "egrep", "fgrep", "rg"})


def _long(shape: Shape, args: list[Word], i: int, check: ReadOnlyCheck) -> int | None:
    key, eq, value = args[i].text.partition("=")
    if not eq and key in shape.long_flags:
        _mark(shape, key, check)
        return 1
    if key in shape.long_valued or key in shape.long_path_valued:
        if not eq:
            if i + 1 >= len(args):
                return None
            value = args[i + 1].text
            _maybe_operand(shape, args[i + 1], check)
        if key in shape.long_path_valued:
            check.reads.append(Word(value, tilde=value.startswith("~")))
        if key == "--directories" and value == "recurse":
            check.recursive = True
        return 1 if eq else 2
    return None


def _short(shape: Shape, args: list[Word], i: int, check: ReadOnlyCheck) -> int | None:
    letters = args[i].text[1:]
    if shape.numeric and letters.isdigit():
        return 1
    for j, letter in enumerate(letters):
        if letter in shape.flags:
            _mark(shape, "-" + letter, check)
            continue
        if letter in shape.valued or letter in shape.path_valued:
            rest = letters[j + 1 :]
            if not rest and i + 1 >= len(args):
                return None
            value = rest or args[i + 1].text
            if not rest:
                _maybe_operand(shape, args[i + 1], check)
            if letter in shape.path_valued:
                check.reads.append(Word(value, tilde=value.startswith("~")))
            if letter == "d" and value == "recurse" and shape.recursive:
                check.recursive = True
            return 1 if rest else 2
        return None
    return 1


def _maybe_operand(shape: Shape, word: Word, check: ReadOnlyCheck) -> None:
    """A value given as the next word is also judged as a file the command reads: where the value is
    optional (`od -w`, `tail --follow`, `git diff -B`) the program takes that word as an operand."""
    if shape.operands == "paths":
        check.reads.append(word)


def _mark(shape: Shape, option: str, check: ReadOnlyCheck) -> None:
    short = option[1:] if len(option) == 2 else ""
    if (short and short in shape.recursive) or option in shape.recursive_long:
        check.recursive = True
    if (short and short in shape.follows_links) or option in shape.follows_long:
        check.follows_links = True


# ---- commands with their own grammar --------------------------------------------------------------------


def _cd(args: list[Word]) -> ReadOnlyCheck:
    if len(args) != 1 or args[0].text.startswith("-"):
        return not_read_only("`cd` without a single directory")
    return ReadOnlyCheck(True, reads=list(args))


def _set(args: list[Word]) -> ReadOnlyCheck:
    i = 0
    while i < len(args):
        text = args[i].text
        if text in ("-o", "+o") and i + 1 < len(args) and args[i + 1].text in _SET_NAMES:
            i += 2
        elif _SET_SAFE.match(text):
            i += 1
        elif re.fullmatch(r"[-+][eu]*o", text) and i + 1 < len(args) and args[i + 1].text in _SET_NAMES:
            i += 2  # -euo pipefail
        else:
            return not_read_only(f"`set {text}` changes how later commands run")
    return ReadOnlyCheck(True)


def _command(args: list[Word]) -> ReadOnlyCheck:
    # Reached only when nothing is wrapped: `command -v x` looks a name up.
    ok = bool(args) and args[0].text in ("-v", "-V")
    return ReadOnlyCheck(ok, reason="" if ok else "`command` with arguments")


def _test(args: list[Word]) -> ReadOnlyCheck:
    if any(a.text in _TEST_UNSAFE for a in args):
        return not_read_only("`test -v` evaluates a variable name")
    return ReadOnlyCheck(True)


def _printf(args: list[Word]) -> ReadOnlyCheck:
    if args and args[0].text.startswith("-") and args[0].text != "--":
        return not_read_only("`printf -v` sets a variable")
    return ReadOnlyCheck(True)


def _find(args: list[Word]) -> ReadOnlyCheck:
    reads: list[Word] = []
    i = 0
    while i < len(args) and args[i].text in FIND_GLOBAL:
        i += 1
    while i < len(args) and not args[i].text.startswith("-") and args[i].text not in ("(", "!"):
        reads.append(args[i])  # the starting points
        i += 1
    while i < len(args):
        text = args[i].text
        if text in _FIND_CHANGES:
            return not_read_only(f"`find {text}` changes files or runs programs")
        if text not in FIND_PREDICATES and text not in FIND_PATH_VALUED:
            return not_read_only(f"`find {text}` is not a known read-only predicate")
        if text in FIND_VALUED or text in FIND_PATH_VALUED:
            if i + 1 >= len(args):
                return not_read_only(f"`find {text}` without its value")
            if text in FIND_PATH_VALUED:
                reads.append(args[i + 1])
            i += 2
        else:
            i += 1
    return ReadOnlyCheck(True, reads=reads or [Word(".")])


def _jq(args: list[Word]) -> ReadOnlyCheck:
    check = check_shape("jq", SHAPES["jq"], args)
    if not check.read_only:
        return check
    filters = [w for w in args if not w.text.startswith("-")][:1]
    if not filters and not any(a.text in ("-n", "--null-input") for a in args):
        return check
    # Any word could be the program where the analyser's idea of which options take values is wrong
    # (`jq --indent 2 -n env`): check them all.
    if any(
        re.search(r"\$ENV|\benv\b|\binput_filename\b|\bimport\b|\binclude\b|\$__loc__|\bmodulemeta\b", w.text)
        for w in args
    ):
        return not_read_only("a jq program that reads the environment or modules")
    if filters:
        check.reads = [w for w in check.reads if w is not filters[0]]
    return check


def _git(args: list[Word]) -> ReadOnlyCheck:
    texts = [a.text for a in args]
    ok, reason, reads = git_read_only(texts)
    check = ReadOnlyCheck(ok, reads=[Word(r) for r in reads], reason=reason, git=ok)
    check.git_content = ok and git_prints_content(texts)
    return check


_SPECIAL = {
    "cd": _cd,
    "set": _set,
    "command": _command,
    "test": _test,
    "[": _test,
    "printf": _printf,
    "find": _find,
    "jq": _jq,
    "git": _git,
}


def find_exec_commands(words: list[Word]) -> list[list[Word]]:
    """The commands `find … -exec CMD {} ;` would run (checked against deny and ask rules)."""
    if not words or words[0].text != "find":
        return []
    out: list[list[Word]] = []
    i = 1
    while i < len(words):
        if words[i].text in _FIND_EXEC:
            j = i + 1
            while j < len(words) and words[j].text not in (";", "+"):
                j += 1
            if j > i + 1:
                out.append(words[i + 1 : j])
            i = j
        i += 1
    return out


def finds_changes(words: list[Word]) -> bool:
    return bool(words) and words[0].text == "find" and any(w.text in _FIND_CHANGES for w in words)


def forbidden_long_option(text: str, forbidden: tuple[str, ...]) -> bool:
    """GNU getopt and git accept any unambiguous prefix of a long option (`--outp` is `--output`)."""
    key = text.split("=", 1)[0]
    return len(key) > 2 and any(option.startswith(key) for option in forbidden)

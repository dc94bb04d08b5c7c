"""The built-in read-only command set (Claude Code's idea: commands that never need a prompt), and which
of their operands are files they read. Forms that write or run programs (`sort -o`, `find -exec`,
`git diff --output`, `rg --pre`, `date 0101`, …) are excluded option by option.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from yoke.permissions.bash_words import Word


@dataclass(slots=True, frozen=True)
class ReadOnlySpec:
    paths: bool = True  # operands are files or directories that get read
    forbidden_long: tuple[str, ...] = ()  # long options that write or execute (also as --opt=value)
    forbidden_short: str = ""  # short option letters that write or execute
    max_operands: int | None = None
    no_operands: bool = False  # any operand would change something (`hostname NAME`)


_PATHS = ReadOnlySpec()
_NO_PATHS = ReadOnlySpec(paths=False)
READ_ONLY_COMMANDS: dict[str, ReadOnlySpec] = {
    **dict.fromkeys(
        [
            "ls",
            "cat",
            "head",
            "tail",
            "wc",
            "stat",
            "nl",
            "od",
            "hexdump",
            "strings",
            "tac",
            "rev",
            "cut",
            "fold",
            "column",
            "cmp",
            "comm",
            "diff",
            "md5sum",
            "sha1sum",
            "sha224sum",
            "sha256sum",
            "sha384sum",
            "sha512sum",
            "b2sum",
            "cksum",
            "realpath",
            "readlink",
            "du",
            "df",
            "jq",
        ],
        _PATHS,
    ),
    **dict.fromkeys(
        [
            "echo",
            "printf",
            "pwd",
            "true",
            "false",
            "test",
            "[",
            "sleep",
            "seq",
            "whoami",
            "id",
            "uname",
            "nproc",
            "arch",
            "tty",
            "groups",
            "locale",
            "which",
            "type",
            "basename",
            "dirname",
            "expr",
        ],
        _NO_PATHS,
    ),
    "file": ReadOnlySpec(forbidden_long=("--compile",), forbidden_short="C"),
    "grep": ReadOnlySpec(forbidden_long=("--dereference-recursive",), forbidden_short="R"),
    "egrep": ReadOnlySpec(forbidden_long=("--dereference-recursive",), forbidden_short="R"),
    "fgrep": ReadOnlySpec(forbidden_long=("--dereference-recursive",), forbidden_short="R"),
    "rg": ReadOnlySpec(forbidden_long=("--pre", "--hostname-bin", "--follow"), forbidden_short="L"),
    "tree": ReadOnlySpec(forbidden_long=("--output",), forbidden_short="oR"),
    "sort": ReadOnlySpec(
        forbidden_long=("--output", "--compress-program", "--temporary-directory"), forbidden_short="oT"
    ),
    "uniq": ReadOnlySpec(max_operands=1),
    "xxd": ReadOnlySpec(max_operands=1),
    "date": ReadOnlySpec(paths=False, forbidden_long=("--set", "--file"), forbidden_short="sf"),
    "hostname": ReadOnlySpec(
        paths=False, forbidden_long=("--file", "--boot"), forbidden_short="bF", no_operands=True
    ),
}
_FIND_FORBIDDEN = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
)
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
ACCEPT_EDITS_COMMANDS = frozenset({"mkdir", "touch", "mv", "cp"})
REMOVE_COMMANDS = frozenset({"rm", "rmdir"})
_SET_OPTIONS = re.compile(r"^[-+][euxvnfBCHPT]+$")
_SET_NAMES = frozenset({"pipefail", "errexit", "nounset", "xtrace", "verbose", "noclobber", "noglob"})


@dataclass(slots=True)
class ReadOnlyCheck:
    read_only: bool
    reads: list[Word] = field(default_factory=list)  # operands that are read and must be checked as paths
    reason: str = ""


def read_only_check(words: list[Word]) -> ReadOnlyCheck:
    """Whether a (fully unwrapped) command is in the built-in read-only set, and which operands it reads."""
    if not words:
        return ReadOnlyCheck(True)
    head = words[0]
    name = head.text
    if not head.static or "/" in name or not name.isascii():
        return ReadOnlyCheck(False, reason="not a built-in read-only command")
    args = words[1:]
    if name == "git":
        return git_read_only(args)
    if name == "find":
        return _find_read_only(args)
    if name == "cd":
        if len(args) != 1 or args[0].text == "-":
            return ReadOnlyCheck(False, reason="`cd` without a single directory")
        return ReadOnlyCheck(True, reads=list(args))
    if name == "set":
        ok = all(_SET_OPTIONS.match(a.text) or a.text in _SET_NAMES or a.text in ("-o", "+o") for a in args)
        return ReadOnlyCheck(
            ok and all(a.static for a in args), reason="`set` with options the analyser does not know"
        )
    if name == "command":
        # Reached only when nothing is wrapped: `command -v x` looks a name up.
        ok = bool(args) and args[0].text in ("-v", "-V")
        return ReadOnlyCheck(ok, reason="" if ok else "`command` with arguments")
    spec = READ_ONLY_COMMANDS.get(name)
    if spec is None:
        return ReadOnlyCheck(False, reason=f"`{name}` is not a built-in read-only command")
    return _check_spec(name, spec, args)


def _check_spec(name: str, spec: ReadOnlySpec, args: list[Word]) -> ReadOnlyCheck:
    operands: list[Word] = []
    reads: list[Word] = []
    options_done = False
    for arg in args:
        text = arg.text
        if not options_done and text == "--":
            options_done = True
            continue
        if not options_done and text.startswith("-") and arg.glob:
            return ReadOnlyCheck(False, reason=f"`{name} {text}`: an option built by pathname expansion")
        if not options_done and text.startswith("-") and text != "-" and arg.static:
            problem = _option_problem(text, spec)
            if problem:
                return ReadOnlyCheck(False, reason=f"`{name} {text}` {problem}")
            if spec.paths and text.startswith("--") and "=" in text:
                value = text.split("=", 1)[1]
                if _looks_like_path(value):
                    reads.append(Word(value, glob=arg.glob, brace=arg.brace, tilde=value.startswith("~")))
            continue
        operands.append(arg)
    if spec.no_operands and operands:
        return ReadOnlyCheck(False, reason=f"`{name}` with an operand changes something")
    if spec.max_operands is not None and len(operands) > spec.max_operands:
        return ReadOnlyCheck(False, reason=f"`{name}` with {len(operands)} operands writes a file")
    if name == "date" and any(not op.text.startswith("+") for op in operands):
        return ReadOnlyCheck(False, reason="`date` with an operand sets the clock")
    if spec.paths:
        reads.extend(operands)
    elif any(op.procsub for op in operands):
        pass
    return ReadOnlyCheck(True, reads=reads)


def _option_problem(text: str, spec: ReadOnlySpec) -> str:
    if text.startswith("--"):
        if forbidden_long_option(text, spec.forbidden_long):
            return "writes files or runs programs"
        return ""
    letters = text[1:]
    if any(ch in spec.forbidden_short for ch in letters):
        return "writes files or runs programs"
    if spec.paths and ("/" in letters or "~" in letters):
        return "names a path the analyser does not check"
    return ""


def forbidden_long_option(text: str, forbidden: tuple[str, ...]) -> bool:
    """GNU getopt and git accept any unambiguous prefix of a long option (`--outp` is `--output`), so a
    prefix of a forbidden option is forbidden too."""
    key = text.split("=", 1)[0]
    return len(key) > 2 and any(option.startswith(key) for option in forbidden)


def _looks_like_path(value: str) -> bool:
    return "/" in value or value.startswith(("~", "."))


def _find_read_only(args: list[Word]) -> ReadOnlyCheck:
    reads: list[Word] = []
    for arg in args:
        if arg.text in _FIND_FORBIDDEN:
            return ReadOnlyCheck(False, reason=f"`find {arg.text}` changes files or runs programs")
        if arg.text.startswith("-") and arg.static:
            continue
        reads.append(arg)
    return ReadOnlyCheck(True, reads=reads)


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
    return bool(words) and words[0].text == "find" and any(w.text in _FIND_FORBIDDEN for w in words)


# ---- git ------------------------------------------------------------------------------------------------

_GIT_FORBIDDEN = (
    "--output",
    "--ext-diff",
    "--open-files-in-pager",
    "--exec",
    "--upload-pack",
    "--receive-pack",
)
_GIT_GLOBAL_FLAGS = frozenset({"--no-pager", "-P", "--no-optional-locks", "--no-replace-objects", "--bare"})
_GIT_READ_ONLY = frozenset(
    [
        "status",
        "diff",
        "log",
        "show",
        "blame",
        "shortlog",
        "describe",
        "rev-parse",
        "ls-files",
        "ls-tree",
        "cat-file",
        "rev-list",
        "merge-base",
        "name-rev",
        "count-objects",
        "grep",
        "whatchanged",
        "version",
        "diff-tree",
        "diff-files",
        "diff-index",
        "for-each-ref",
        "show-ref",
        "check-ignore",
        "var",
    ]
)
_GIT_LIST_FLAGS = {
    "branch": {
        "-a",
        "-r",
        "-v",
        "-vv",
        "--all",
        "--remotes",
        "--verbose",
        "--show-current",
        "--no-color",
        "--color",
    },
    "tag": {"-n", "--no-color", "--color"},
}
_GIT_LIST_SELECTORS = (
    "--list",
    "-l",
    "--contains",
    "--merged",
    "--no-merged",
    "--points-at",
    "--sort",
    "--format",
)


def git_read_only(args: list[Word]) -> ReadOnlyCheck:
    i = 0
    while i < len(args) and args[i].text.startswith("-"):
        if args[i].text not in _GIT_GLOBAL_FLAGS:
            return ReadOnlyCheck(False, reason=f"`git {args[i].text}` is not a read-only git form")
        i += 1
    if i >= len(args):
        return ReadOnlyCheck(False, reason="`git` without a subcommand")
    sub = args[i].text
    rest = args[i + 1 :]
    for arg in rest:
        pager = sub == "grep" and arg.text.startswith("-O")
        forbidden = arg.text.startswith("--") and forbidden_long_option(arg.text, _GIT_FORBIDDEN)
        if forbidden or pager or not arg.static:
            return ReadOnlyCheck(False, reason=f"`git {sub} {arg.text}` is not read-only")
    if sub in _GIT_READ_ONLY:
        return ReadOnlyCheck(True, reads=[a for a in rest if not a.text.startswith("-")])
    if sub in ("branch", "tag"):
        return _git_list_form(sub, rest)
    first = rest[0].text if rest else ""
    if sub == "remote":
        ok = all(a.text in ("-v", "--verbose") for a in rest) or first in ("show", "get-url")
    elif sub == "config":
        getters = {"--get", "--get-all", "--get-regexp", "--list", "-l", "--show-origin", "--show-scope"}
        setters = {"--unset", "--unset-all", "--add", "--replace-all", "--edit", "-e", "--rename-section"}
        ok = any(a.text in getters for a in rest) and not any(a.text in setters for a in rest)
    elif sub == "stash":
        ok = first in ("list", "show")
    elif sub == "worktree":
        ok = first == "list"
    elif sub == "reflog":
        ok = not rest or first == "show" or first.startswith("-")
    elif sub == "submodule":
        ok = first in ("", "status")
    elif sub == "notes":
        ok = first in ("list", "show")
    else:
        return ReadOnlyCheck(False, reason=f"`git {sub}` is not a read-only git form")
    reads = [a for a in rest if not a.text.startswith("-")]
    return ReadOnlyCheck(ok, reads, "" if ok else f"`git {sub} {first}`".rstrip() + " changes the repository")


def _git_list_form(sub: str, rest: list[Word]) -> ReadOnlyCheck:
    allowed = _GIT_LIST_FLAGS[sub]
    selector = any(a.text.split("=", 1)[0] in _GIT_LIST_SELECTORS for a in rest)
    for arg in rest:
        text = arg.text
        key = text.split("=", 1)[0]
        if text.startswith("-"):
            if key not in allowed and key not in _GIT_LIST_SELECTORS and not re.fullmatch(r"-n\d*", text):
                return ReadOnlyCheck(False, reason=f"`git {sub} {text}` changes the repository")
        elif not selector:
            return ReadOnlyCheck(False, reason=f"`git {sub} NAME` creates a {sub}")
    return ReadOnlyCheck(True)

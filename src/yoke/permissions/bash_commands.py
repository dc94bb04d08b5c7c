"""What individual commands mean for permissions: wrappers to look through, the built-in read-only set, the
file commands `acceptEdits` approves, and environment variables that are safe to set.

Wrappers come in two kinds. Transparent ones (`timeout`, `nice`, `nohup`, `time`, `stdbuf`, `command`,
`builtin`, `exec`, `env` with safe variables, bare `xargs`) change nothing about what runs, so allow rules
are matched against the wrapped command. Executing ones (`sudo`, `watch`, `setsid`, `flock`, `xargs` with
flags, `find -exec`, …) run their arguments in a way prefix rules cannot vouch for: their inner command is
still checked against deny and ask rules, but no allow rule or read-only shortcut approves them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from yoke.permissions.bash_parse import Word

_SAFE_ENV = frozenset(
    {
        "LANG",
        "LANGUAGE",
        "TZ",
        "NO_COLOR",
        "FORCE_COLOR",
        "CLICOLOR",
        "CLICOLOR_FORCE",
        "TERM",
        "CI",
        "DEBUG",
        "NODE_ENV",
        "RUST_BACKTRACE",
        "RUST_LOG",
        "PYTHONUNBUFFERED",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONIOENCODING",
        "COLUMNS",
        "LINES",
        "GOOS",
        "GOARCH",
        "CGO_ENABLED",
    }
)
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def safe_variable(name: str) -> bool:
    """Setting this variable cannot change which program runs or where data goes. Lowercase names are shell
    locals (except the proxy variables); uppercase ones must be on a short list (PATH, LD_PRELOAD, IFS, HOME,
    CDPATH, BASH_ENV, GIT_* and friends are not)."""
    if name in _SAFE_ENV or name.startswith("LC_"):
        return True
    return name == name.lower() and not name.endswith("_proxy") and name not in ("cdpath",)


@dataclass(slots=True)
class Unwrapped:
    """A command seen through its wrappers."""

    layers: list[list[Word]]  # outermost first; the last is the innermost command
    assignments: list[tuple[str, Word]] = field(default_factory=list)  # from `env A=1` / `sudo A=1`
    transparent: bool = True  # only transparent wrappers were removed
    scripts: list[Word] = field(default_factory=list)  # shell code run by `bash -c`, `eval`, `trap`, `su -c`
    problem: str = ""  # set when a wrapper's arguments cannot be followed
    appended_args: bool = False  # xargs adds arguments the analyser cannot see


def unwrap(words: list[Word]) -> Unwrapped:
    result = Unwrapped([words])
    current = words
    for _ in range(8):
        if not current or not current[0].static:
            break
        step = _unwrap_once(current, result)
        if step is None:
            break
        current = step
        result.layers.append(current)
    return result


def _unwrap_once(words: list[Word], result: Unwrapped) -> list[Word] | None:
    name = words[0].text
    args = words[1:]
    if name in ("time", "nohup", "builtin", "noglob"):
        return args or None
    if name == "command":
        if any(a.text in ("-v", "-V") for a in args[:1]):
            return None
        return _skip_flags(args, flags={"-p"}) or None
    if name == "exec":
        return _skip_options(args, with_value={"-a"}, flags={"-c", "-l"}, result=result)
    if name == "nice":
        rest = _skip_options(args, with_value={"-n"}, flags=set(), result=result, numeric_short=True)
        return rest
    if name == "timeout":
        rest = _skip_options(
            args, with_value={"-s", "-k"}, flags={"-v", "--preserve-status", "--foreground"}, result=result
        )
        return rest[1:] if rest and len(rest) > 1 else None
    if name == "stdbuf":
        return _skip_options(args, with_value={"-i", "-o", "-e"}, flags=set(), result=result)
    if name == "env":
        return _unwrap_env(args, result)
    if name == "xargs":
        return _unwrap_xargs(args, result)
    if name in ("sudo", "doas"):
        result.transparent = False
        rest = _skip_options(
            args,
            with_value={"-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t", "-T", "-R"},
            flags=set(),
            result=result,
            any_flag=True,
        )
        return _take_assignments(rest, result) if rest else None
    if name in ("watch", "setsid", "ionice", "chrt", "taskset", "unbuffer", "coproc", "caffeinate"):
        result.transparent = False
        rest = _skip_options(args, with_value={"-n", "-c", "-p"}, flags=set(), result=result, any_flag=True)
        if name in ("chrt", "taskset") and rest:
            rest = rest[1:]  # the priority / CPU mask
        return rest or None
    if name == "flock":
        result.transparent = False
        if any(a.text in ("-c", "--command") for a in args):
            index = next(i for i, a in enumerate(args) if a.text in ("-c", "--command"))
            if index + 1 < len(args):
                result.scripts.append(args[index + 1])
            return None
        rest = _skip_options(args, with_value={"-w", "-E"}, flags=set(), result=result, any_flag=True)
        return rest[1:] if rest and len(rest) > 1 else None
    if name in SHELLS or name in ("eval", "trap", "su"):
        _collect_script(name, args, result)
        return None
    return None


def _collect_script(name: str, args: list[Word], result: Unwrapped) -> None:
    if name == "eval":
        if args:
            result.scripts.append(Word(" ".join(a.text for a in args), static=all(a.static for a in args)))
        return
    if name == "trap":
        if args and not args[0].text.startswith("-"):
            result.scripts.append(args[0])
        return
    for i, arg in enumerate(args):
        text = arg.text
        if text == "--" or not text.startswith("-"):
            break
        letters = text[1:] if not text.startswith("--") else ""
        if text == "--command" or (letters and "c" in letters and letters.isalpha()):
            if i + 1 < len(args):
                result.scripts.append(args[i + 1])
            else:
                result.problem = f"`{name} -c` without a command"
            return


def _unwrap_env(args: list[Word], result: Unwrapped) -> list[Word] | None:
    rest: list[Word] = []
    i = 0
    while i < len(args):
        text = args[i].text
        if text in ("-i", "--ignore-environment", "-0", "--null", "-"):
            i += 1
        elif text in ("-u", "--unset"):
            i += 2
        elif text.startswith("--unset="):
            i += 1
        elif text.startswith("-"):
            result.problem = f"`env {text}` is not followed by the analyser"
            return None
        else:
            rest = args[i:]
            break
    return _take_assignments(rest, result) or None


def _take_assignments(words: list[Word], result: Unwrapped) -> list[Word]:
    i = 0
    while i < len(words) and _ASSIGNMENT.match(words[i].text):
        name, _, value = words[i].text.partition("=")
        result.assignments.append((name, Word(value, static=words[i].static)))
        i += 1
    return words[i:]


_XARGS_VALUE_FLAGS = frozenset({"-n", "-P", "-L", "-d", "-I", "-E", "-s", "-a", "--max-args", "--max-procs"})
_XARGS_FLAGS = frozenset({"-0", "-r", "-t", "-x", "--null", "--no-run-if-empty", "--verbose", "--exit"})


def _unwrap_xargs(args: list[Word], result: Unwrapped) -> list[Word] | None:
    i = 0
    while i < len(args) and args[i].text.startswith("-") and args[i].text != "--":
        text = args[i].text
        if text in _XARGS_VALUE_FLAGS:
            i += 2
        elif text in _XARGS_FLAGS or re.match(r"^-[nPLdIEsa].+", text) or "=" in text:
            i += 1
        else:
            result.problem = f"`xargs {text}` is not followed by the analyser"
            return None
        result.transparent = False  # Claude Code: only bare xargs is looked through by allow rules
    if i < len(args) and args[i].text == "--":
        i += 1
    inner = args[i:] or [Word("echo")]
    result.appended_args = True
    return [*inner, Word("…", static=False)]


def _skip_flags(args: list[Word], flags: set[str]) -> list[Word]:
    i = 0
    while i < len(args) and args[i].text in flags:
        i += 1
    return args[i:]


def _skip_options(
    args: list[Word],
    *,
    with_value: set[str],
    flags: set[str],
    result: Unwrapped,
    any_flag: bool = False,
    numeric_short: bool = False,
) -> list[Word] | None:
    """Drop a wrapper's own options; unknown options end the walk with a problem unless `any_flag`."""
    i = 0
    while i < len(args):
        text = args[i].text
        if text == "--":
            return args[i + 1 :] or None
        if not text.startswith("-") or text == "-":
            return args[i:]
        if text in with_value:
            i += 2
        elif text in flags or (text.startswith("--") and "=" in text):
            i += 1
        elif numeric_short and re.fullmatch(r"-\d+", text):
            i += 1
        elif any(text.startswith(v) and len(text) > len(v) for v in with_value if len(v) == 2):
            i += 1  # -n5, -sKILL
        elif any_flag:
            i += 1
        else:
            result.problem = f"the wrapper option {text!r} is not followed by the analyser"
            return None
    return None


# ---- the built-in read-only set ------------------------------------------------------------------------


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
            "printenv",
            "which",
            "type",
            "basename",
            "dirname",
            "expr",
            "ps",
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
    "hostname": ReadOnlySpec(paths=False, forbidden_long=("--file", "--boot"), forbidden_short="bF", no_operands=True),
}
_FIND_FORBIDDEN = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"})
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
        return ReadOnlyCheck(ok and all(a.static for a in args), reason="`set` with options the analyser does not know")
    if name == "env" or name == "command":
        # Reached only when nothing is wrapped: `env` prints the environment, `command -v x` looks a name up.
        ok = not args or (name == "command" and args[0].text in ("-v", "-V"))
        return ReadOnlyCheck(ok, reason="" if ok else f"`{name}` with arguments")
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
        key = text.split("=", 1)[0]
        if key in spec.forbidden_long:
            return "writes files or runs programs"
        return ""
    letters = text[1:]
    if any(ch in spec.forbidden_short for ch in letters):
        return "writes files or runs programs"
    if spec.paths and ("/" in letters or "~" in letters):
        return "names a path the analyser does not check"
    return ""


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

_GIT_FORBIDDEN = ("--output", "--ext-diff", "--open-files-in-pager", "--exec", "--upload-pack", "--receive-pack")
_GIT_GLOBAL_FLAGS = frozenset({"--no-pager", "-P", "--no-optional-locks", "--no-replace-objects", "--bare"})
_GIT_READ_ONLY = frozenset(
    {
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
    }
)
_GIT_LIST_FLAGS = {
    "branch": {"-a", "-r", "-v", "-vv", "--all", "--remotes", "--verbose", "--show-current", "--no-color", "--color"},
    "tag": {"-n", "--no-color", "--color"},
}
_GIT_LIST_SELECTORS = ("--list", "-l", "--contains", "--merged", "--no-merged", "--points-at", "--sort", "--format")


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
        key = arg.text.split("=", 1)[0]
        pager = sub == "grep" and arg.text.startswith("-O")
        if key in _GIT_FORBIDDEN or pager or not arg.static:
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
    return ReadOnlyCheck(ok, reason="" if ok else f"`git {sub} {first}`".rstrip() + " changes the repository")


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

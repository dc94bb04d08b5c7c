"""Wrappers a command may hide behind, and environment variables that are safe to set in front of one.

Wrappers come in two kinds. Transparent ones (`timeout`, `nice`, `nohup`, `time`, `stdbuf`, `command`,
`builtin`, `exec`, `env` with safe variables, bare `xargs`) change nothing about what runs, so allow rules
are matched against the wrapped command. Executing ones (`sudo`, `watch`, `setsid`, `flock`, `xargs` with
flags, `find -exec`, …) run their arguments in a way prefix rules cannot vouch for: their inner command is
still checked against deny and ask rules, but no allow rule or read-only shortcut approves them. Shells
with `-c`, `eval` and `trap` carry code, which is parsed like the command line itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from yoke.permissions.bash_words import Word

_SAFE_ENV = frozenset(
    [
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
    ]
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
            return  # a script file: just a command, approved (or not) by rules like any other
        if text == "-s":
            break
        letters = text[1:] if not text.startswith("--") else ""
        if text == "--command" or (letters and "c" in letters and letters.isalpha()):
            if i + 1 < len(args):
                result.scripts.append(args[i + 1])
            else:
                result.problem = f"`{name} -c` without a command"
            return
    result.problem = f"`{name}` reading its commands from standard input"


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
# Flags that only batch or separate the appended arguments: allow rules still see the command they run.
_XARGS_PLAIN = re.compile(
    r"^(-0|-r|-t|-x|--null|--no-run-if-empty|--verbose|--exit|-[nPLs]\d*|--max-args(=\d+)?"
    r"|--max-procs(=\d+)?)$"
)
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
        if not _XARGS_PLAIN.match(text):
            result.transparent = False  # -I, -a, -E…: the arguments are not simply appended
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
        elif (
            text in flags
            or (text.startswith("--") and "=" in text)
            or numeric_short
            and re.fullmatch(r"-\d+", text)
        ):
            i += 1
        elif any(text.startswith(v) and len(text) > len(v) for v in with_value if len(v) == 2):
            i += 1  # -n5, -sKILL
        elif any_flag:
            i += 1
        else:
            result.problem = f"the wrapper option {text!r} is not followed by the analyser"
            return None
    return None

"""A deny rule names a capability, not a spelling: `Bash(rm:*)` denies deleting files, `Bash(git push:*)`
pushing, `Read(./.env)` reading that file. Deny rules themselves match what they name (`matching.py`); this
stage asks about every command of a line the analyser cannot show lacks the capability, whatever would
approve it afterwards (an allow rule, a hook, auto mode, bypassPermissions): `unlink f`, `shred -u f`,
`git clean -fd`, `find . -delete` under `Bash(rm:*)`; `paste .env`, `iconv .env`, `dd if=.env`, a program
given a folder holding `.env`, inline code naming it, a word known only at run time, under `Read(./.env)`.

What is shown to lack a capability: a command the read-only analysis proves read-only (its reads are judged
by the deny rules themselves), and commands whose every word is known and none of which has it. A program's
own behaviour (a script on disk) is not analysed; the kernel holds Read deny rules for confined commands.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from yoke.permissions.rules import PermissionRule

if TYPE_CHECKING:
    from yoke.permissions.bash_analysis import BashAnalysis, Invocation
    from yoke.permissions.bash_words import Word

# Deny rules on these commands name deletion: any command that can delete (or destroy a file's content by
# replacing it) has the capability.
DELETION_COMMANDS = frozenset({"rm", "rmdir", "unlink", "shred"})
_DELETERS = frozenset(
    {"rm", "rmdir", "unlink", "shred", "srm", "wipe", "trash", "trash-put", "truncate", "mv"}
)
# Programs that fetch or send over the network: a deny rule on one of them names the capability of all.
FETCHERS = frozenset(
    {
        "curl",
        "wget",
        "http",
        "https",
        "xh",
        "httpie",
        "aria2c",
        "nc",
        "ncat",
        "netcat",
        "socat",
        "telnet",
        "lynx",
    }
)
# Programs that run code given on the command line: the code may do anything.
_INLINE_CODE = {
    "python": ("-c",), "python3": ("-c",), "python2": ("-c",), "pypy": ("-c",), "pypy3": ("-c",),
    "node": ("-e", "--eval", "-p", "--print"), "nodejs": ("-e", "--eval", "-p", "--print"),
    "deno": ("eval",), "bun": ("-e", "--eval"), "perl": ("-e", "-E"), "ruby": ("-e",), "php": ("-r",),
    "lua": ("-e",), "Rscript": ("-e",), "julia": ("-e", "-E"), "osascript": ("-e",), "tclsh": (),
    "awk": (), "gawk": (), "mawk": (), "nawk": (),
}  # fmt: skip
_AWK = frozenset({"awk", "gawk", "mawk", "nawk"})
# Commands that read no file's content through their operands (whatever the deny rules on reading).
_NO_CONTENT_READ = frozenset(
    {"mkdir", "touch", "rm", "rmdir", "unlink", "cd", "echo", "printf", "true", "false"}
)
_TOKENS = re.compile(r"[^\s'\"(),;:=`<>|&{}\[\]+]+")


def capability_question(
    analysis: BashAnalysis,
    deny: list[PermissionRule],
    read_denied: Callable[[str], bool] | None,
    cwds: list[str] | None,
    home: Path,
) -> str:
    """Why this Bash line must ask although no deny rule matched it ("" when it need not)."""
    named = _denied_commands(deny)
    deletion = bool(named & DELETION_COMMANDS)
    push = any(_push_rule(r) for r in deny)
    fetching = named & FETCHERS
    if not named and read_denied is None:
        return ""
    if not analysis.analysable:
        return "This command cannot be analysed, so it cannot be shown to stay clear of the deny rules."
    for inv in analysis.invocations:
        if not inv.words or inv.read_only.read_only:
            continue
        name = os.path.basename(inv.words[0].text)
        texts = [w.text for w in inv.words]
        if deletion and _deletes(name, texts):
            return f"`{name}` can delete files, which a deny rule forbids ({_rule_names(named)})."
        if push and name == "git" and {"push", "send-pack", "http-push"} & set(texts[1:]):
            return "This git command can push, which a deny rule forbids."
        if fetching and name in FETCHERS:
            return f"`{name}` reaches the network as {', '.join(sorted(fetching))} does, which a deny rule forbids."
        code = _inline_code(name, inv.words)
        mentioned = any(_mentions(code, n) for n in named) if code is not None else False
        if code is not None and (read_denied is not None or mentioned or fetching):
            return f"`{name}` runs code given on the command line, which may do what a deny rule forbids."
        if read_denied is not None and name not in _NO_CONTENT_READ:
            why = _reads_denied(inv, read_denied, cwds, home)
            if why:
                return why
    return ""


def _denied_commands(deny: list[PermissionRule]) -> set[str]:
    """The command names Bash deny rules start with (`Bash(rm:*)`, `Bash(rm -rf *)` name `rm`)."""
    out: set[str] = set()
    for rule in deny:
        if rule.tool != "Bash" or rule.whole_tool or not rule.specifier:
            continue
        first = rule.specifier.strip().split(" ", 1)[0].split(":", 1)[0]
        if first and "*" not in first:
            out.add(os.path.basename(first))
    return out


def _push_rule(rule: PermissionRule) -> bool:
    spec = " ".join((rule.specifier or "").split())
    return rule.tool == "Bash" and spec.startswith(("git push", "git:push"))


def _rule_names(names: set[str]) -> str:
    return ", ".join(f"Bash({n}:*)" for n in sorted(names & DELETION_COMMANDS))


def _deletes(name: str, texts: list[str]) -> bool:
    """Whether this command can delete a file (or replace one), by its name and options."""
    args = texts[1:]
    if name in _DELETERS:
        return True
    if name == "find":
        return any(a == "-delete" or a.startswith(("-exec", "-ok")) for a in args)
    if name == "git":
        return any(a in ("clean", "rm") for a in args)
    if name == "rsync":
        return any(a.startswith("--delete") or a in ("--remove-source-files", "--del") for a in args)
    if name in ("tar", "bsdtar"):
        return "--remove-files" in args
    if name == "zip":
        return any(
            a in ("-m", "--move") or (re.fullmatch(r"-[a-zA-Z]*m[a-zA-Z]*", a) is not None) for a in args
        )
    if name == "gio":
        return bool(args) and args[0] in ("remove", "trash", "move")
    if name == "dd":
        return any(a.startswith("of=") for a in args)
    return False


def _inline_code(name: str, words: list[Word]) -> str | None:
    """The code a program is given on its command line, or None when it is given none."""
    base = re.sub(r"[0-9.]+$", "", name) if name.startswith("python") else name
    flags = _INLINE_CODE.get(name, _INLINE_CODE.get(base))
    if flags is None:
        return None
    args = words[1:]
    if name in _AWK:  # the program is the first operand unless given with -f
        operands = [w for w in args if not w.text.startswith("-")]
        return None if any(w.text.startswith("-f") for w in args) or not operands else operands[0].text
    for i, word in enumerate(args):
        text = word.text
        for flag in flags:
            if text == flag and i + 1 < len(args):
                return args[i + 1].text
            if flag.startswith("-") and not flag.startswith("--") and text.startswith(flag) and len(text) > 2:
                return text[len(flag) :]  # glued: -c'code'
    return None


def _mentions(code: str, name: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", code) is not None


def _reads_denied(
    inv: Invocation, read_denied: Callable[[str], bool], cwds: list[str] | None, home: Path
) -> str:
    """Why a command not shown read-only may read what a Read deny rule names: a word (or a piece of one:
    `if=.env`, `--file=.env`, inline code) that leads there, a folder that holds it, a word known only at
    run time."""
    from yoke.permissions.bash_paths import paths_of
    from yoke.permissions.bash_words import Word
    from yoke.permissions.matching import FILE_READERS

    name = os.path.basename(inv.words[0].text)
    for word in inv.words[1:]:
        if not word.static and name in FILE_READERS:
            continue  # a known reader's operands are judged by the deny rules themselves (fail closed)
        if not word.static:
            return (
                f"`{name}` is given a word known only when it runs, which may name a file a deny rule hides."
            )
        for token in dict.fromkeys([word.text, *_TOKENS.findall(word.text)]):
            found = paths_of([Word(token)], cwds, home) if token and not token.startswith("-") else []
            for path in found or []:
                if read_denied(path.logical) or read_denied(path.real):
                    return f"`{name}` may read {path.logical}, which a Read deny rule covers."
                if os.path.isdir(path.real) and _holds_denied(path.real, read_denied, home):
                    return (
                        f"`{name}` is given {path.logical}, a folder holding files a Read deny rule covers."
                    )
    return ""


def _holds_denied(folder: str, read_denied: Callable[[str], bool], home: Path) -> bool:
    from yoke.sandbox.confine import denied_in
    from yoke.sandbox.settings import SandboxSettings

    hidden, _ = denied_in([Path(folder)], home, SandboxSettings(read_denied=read_denied), secrets=False)
    return bool(hidden)

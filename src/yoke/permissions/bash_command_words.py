"""The words of one bash command as the gate reads them: the texts rules are matched against (each wrapper
layer, `/bin/rm` as `rm`, every spelling a deny rule must catch), its operands, the paths mkdir/touch/mv/cp
would write, and `git -C DIR`'s directories. Used by `bash_analysis.py`."""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable

from yoke.permissions.bash_parse import SimpleCommand
from yoke.permissions.bash_words import Word

_FORMAT_CHARS = re.compile(r"[\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")


def git_chdir(words: list[Word]) -> tuple[list[Word], list[Word] | None]:
    """`git -C DIR … sub …`: the directories and the command without them (for allow and deny rules)."""
    if not words or words[0].text != "git":
        return [], None
    dirs: list[Word] = []
    rest: list[Word] = [words[0]]
    i = 1
    while i < len(words) and words[i].text.startswith("-"):
        if words[i].text == "-C" and i + 1 < len(words):
            dirs.append(words[i + 1])
            i += 2
            continue
        if words[i].text in ("-c", "--exec-path", "--git-dir", "--work-tree", "--namespace"):
            return [], None  # configuration or repository injection: never looked through
        rest.append(words[i])
        i += 1
    if not dirs:
        return [], None
    return dirs, rest + words[i:]


def words_text(words: list[Word]) -> str:
    return " ".join(w.text for w in words)


def assignments_text(assignments: list[tuple[str, Word]]) -> str:
    return " ".join(f"{name}={value.text}" for name, value in assignments)


def layer_texts(cmd: SimpleCommand, layers: list[list[Word]]) -> list[str]:
    texts = []
    prefix = assignments_text(cmd.assignments)
    if prefix:
        texts.append(f"{prefix} {words_text(cmd.words)}")
    for layer in layers:
        if not layer:
            continue
        texts.append(words_text(layer))
        head = layer[0].text
        if "/" in head:  # /bin/rm is rm for deny rules
            texts.append(" ".join([os.path.basename(head), *(w.text for w in layer[1:])]))
    return texts


def deny_forms(texts: Iterable[str]) -> list[str]:
    """Deny and ask rules are tried on every spelling: as written, NFKC-folded, invisible characters removed."""
    out: list[str] = []
    for text in texts:
        for form in (text, unicodedata.normalize("NFKC", _FORMAT_CHARS.sub("", text))):
            form = " ".join(form.split())
            if form and form not in out:
                out.append(form)
    return out


def operand_words(args: list[Word]) -> list[Word]:
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


_FS_EDIT_FLAGS = {
    "mkdir": "pv",
    "touch": "acm",
    "mv": "finvuT",
    "cp": "rRapfinvuLPHT",
}


def fs_edit_operands(name: str, args: list[Word]) -> list[Word] | None:
    """Every path mkdir/touch/mv/cp would write, glued and long target options included; None when an
    option is not one of the few plain ones (then acceptEdits does not apply)."""
    out: list[Word] = []
    i = 0
    done = False
    while i < len(args):
        arg = args[i]
        text = arg.text
        if done or not text.startswith("-") or text == "-" or not arg.static:
            out.append(arg)
        elif text == "--":
            done = True
        elif text.startswith("--target-directory="):
            out.append(Word(text.split("=", 1)[1], tilde=text.split("=", 1)[1].startswith("~")))
        elif name in ("mv", "cp") and text.startswith("-t"):
            if len(text) > 2:
                out.append(Word(text[2:], tilde=text[2:].startswith("~")))
            elif i + 1 < len(args):
                out.append(args[i + 1])
                i += 1
            else:
                return None
        elif text.startswith("--") or any(ch not in _FS_EDIT_FLAGS[name] for ch in text[1:]):
            return None
        i += 1
    return out

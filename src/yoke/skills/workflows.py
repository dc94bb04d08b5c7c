"""Claude Code workflow scripts a plugin brings (`workflows/*.js`), listed as Claude Code 2.1.330 lists them.

A workflow is a JavaScript file whose first statement is `export const meta = {...}`, a pure literal with
the workflow's `name`, a one-line `description`, optionally `whenToUse` and `phases`. Claude Code lists
each as the skill and command `plugin:name` (description, then ` - ` and `whenToUse`) and skips a file
whose meta is missing, late or not a literal. Running one needs Claude Code's workflow runtime, which Yoke
does not have: invoking it says so in one line (`render_body`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from yoke.fsutil import read_regular_text
from yoke.regex import lazy_compile
from yoke.skills.model import PluginInfo, Skill

MAX_BYTES = 512 * 1024
_LEAD = lazy_compile(r"(?:\s+|//[^\n]*\n?|/\*.*?\*/)*", re.S)  # blanks and comments before it
_HEAD = lazy_compile(r"export\s+const\s+meta\s*=\s*")
_TOKEN = lazy_compile(
    r"""\s*(?:(?P<comment>//[^\n]*|/\*.*?\*/)|(?P<punct>[{}\[\]:,])|(?P<str>'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\$]|\\.)*`)"""
    r"""|(?P<num>-?\d+(?:\.\d+)?)|(?P<word>[A-Za-z_$][\w$]*))""",
    re.S,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "b": "\b", "f": "\f", "v": "\v"}


class _NotLiteral(ValueError):
    pass


def workflow_meta(text: str) -> dict[str, Any] | None:
    """The `meta` object of a workflow script, or None when the script does not start with a literal one
    holding a text `name` and `description`."""
    text = text.replace("\r\n", "\n")
    start = _LEAD.match(text)
    head = _HEAD.match(text, start.end() if start else 0)
    if head is None:
        return None
    try:
        meta, _ = _value(text, head.end())
    except _NotLiteral:
        return None
    if not isinstance(meta, dict):
        return None
    name, description = meta.get("name"), meta.get("description")
    if not isinstance(name, str) or not name.strip() or not isinstance(description, str):
        return None
    return meta


def workflow_skills(plugin: Any, warnings: list[str]) -> list[Skill]:
    """A plugin's workflows as catalog entries named `plugin:name`."""
    info = PluginInfo(plugin.name, plugin.root, plugin.data_dir)
    found = []
    for path in plugin.workflow_files():
        try:
            if path.stat().st_size > MAX_BYTES:
                continue
            meta = workflow_meta(read_regular_text(path))
        except (OSError, UnicodeDecodeError):
            continue
        if meta is None:
            continue  # Claude Code skips it with a debug line only
        when = meta.get("whenToUse")
        description = meta["description"].strip()
        if isinstance(when, str) and when.strip():
            description = f"{description} - {when.strip()}"
        skill = Skill(
            name=f"{plugin.name}:{meta['name'].strip()}",
            path=Path(path),
            kind="workflow",
            source="plugin",
            body="",
            description=description,
            label=f"plugin:{plugin.name}",
            plugin=info,
        )
        found.append(skill)
    return found


def _value(text: str, pos: int) -> tuple[Any, int]:
    token, kind, pos = _next(text, pos)
    if kind == "str":
        return _unquote(token), pos
    if kind == "num":
        return (float(token) if "." in token else int(token)), pos
    if kind == "word":
        if token in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[token], pos
        raise _NotLiteral(token)  # a variable or a call: not a pure literal
    if token == "[":
        items: list[Any] = []
        while True:
            token, kind, after = _next(text, pos)
            if token == "]":
                return items, after
            item, pos = _value(text, pos)
            items.append(item)
            token, kind, pos = _next(text, pos)
            if token == "]":
                return items, pos
            if token != ",":
                raise _NotLiteral(token)
    if token == "{":
        fields: dict[str, Any] = {}
        while True:
            token, kind, pos = _next(text, pos)
            if token == "}":
                return fields, pos
            if kind not in ("word", "str", "num"):
                raise _NotLiteral(token)
            key = _unquote(token) if kind == "str" else token
            colon, _, pos = _next(text, pos)
            if colon != ":":
                raise _NotLiteral(colon)
            fields[key], pos = _value(text, pos)
            token, kind, pos = _next(text, pos)
            if token == "}":
                return fields, pos
            if token != ",":
                raise _NotLiteral(token)
    raise _NotLiteral(token)


def _next(text: str, pos: int) -> tuple[str, str, int]:
    while True:
        match = _TOKEN.match(text, pos)
        if match is None:
            raise _NotLiteral(text[pos : pos + 20])
        pos = match.end()
        if match.lastgroup and match.lastgroup != "comment":
            return match.group(match.lastgroup), match.lastgroup, pos


def _unquote(token: str) -> str:
    body, out, i = token[1:-1], [], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            i += 1
            out.append(_ESCAPES.get(body[i], body[i]))
        else:
            out.append(ch)
        i += 1
    return "".join(out)

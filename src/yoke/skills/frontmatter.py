"""YAML frontmatter of skills, commands, agents and output styles, read as Claude Code 2.1.330 reads it.

Claude Code never refuses a file over its frontmatter: the block runs from a `---` first line to the next
`---`; YAML (1.2: only true/false are booleans, no dates) reads it; when that fails, each flat `key: value`
line whose value holds a character YAML treats specially is quoted and YAML tries again; when that fails
too, the file loads with no frontmatter at all. What a key's value must be is each reader's business
(`skills/model.py`, `agents/definitions.py`): a value of the wrong type is taken as text or ignored.

Most frontmatter is flat (`key: value`, `key: [a, b]`, `- item` lists); that is read by a small parser so a
session with many skills does not pay for importing a YAML library. Anything else (nested mappings such as
`hooks`, block scalars, anchors) goes to PyYAML, which is also the judge of what is malformed. What PyYAML
made of a frontmatter is kept in a small content-addressed cache (`~/.yoke/cache/frontmatter.json`, keyed
by the text's hash), so later sessions skip the import and the parse; a changed file is a new key.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from yoke.fsutil import read_regular, read_regular_text
from yoke.jsonsafe import loads as safe_json
from yoke.regex import lazy_compile

# Claude Code's block: `---` (then only blanks) on the first line, up to the next `---` wherever it is
_BLOCK = lazy_compile(r"---\s*\n([\s\S]*?)---\s*\n?")
# its retry: `key: value` lines (no indentation, no list items) whose value YAML would misread
_RETRY_LINE = lazy_compile(r"([a-zA-Z_-]+):\s+(\S[^\r\n\u2028\u2029]*)\Z")
_RETRY_SPECIAL = lazy_compile(r"[{}\[\]*&#!|>%@`]|: ")
_LEADING_TABS = lazy_compile(r"^\t+", re.M)
_CACHE_VERSION = b"cc-2.1.330/2\0"  # what a cached parse means changed with the lenient reading

_KEY = lazy_compile(r"^([A-Za-z_][A-Za-z0-9_.-]*)\s*:(?:\s+(.*)|)$")
_ITEM = lazy_compile(r"^\s+-\s+(.*)$|^-\s+(.*)$")
_PLAIN_UNSAFE = lazy_compile(r"^[&*!|>%@`{]|: | #|^\[|^-\s|^\?\s")
# YAML 1.2 core schema numbers (what Claude Code's parser makes of `0x1F`, `012`, `1e3`, `.inf`)
_INT = lazy_compile(r"^[-+]?[0-9]+$")
_INT_OCT = lazy_compile(r"^0o[0-7]+$")
_INT_HEX = lazy_compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = lazy_compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_FLOAT_SPECIAL = lazy_compile(r"^(?:[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")


def read_markdown(path: Path) -> str:
    """A Markdown file's text with its line endings as written (Claude Code reads `\r\n` frontmatter as
    it is: its quoting retry skips lines that end in `\r`). Raises OSError, UnicodeDecodeError."""
    return read_regular(path).decode("utf-8")


def split_frontmatter(text: str) -> tuple[str | None, str]:
    """(the frontmatter text or None, the body with `\n` line ends). A file that opens `---` and has no
    other `---` has no frontmatter: all of it is the body."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if text.find("---", 3) < 0:
        return None, text.replace("\r\n", "\n")
    block = _BLOCK.match(text)
    if block is None:
        return None, text.replace("\r\n", "\n")
    return block.group(1), text[block.end() :].replace("\r\n", "\n")


def parse_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """(fields, body). Text without frontmatter, or whose frontmatter YAML cannot read even after Claude
    Code's quoting retry, gives ({}, body). Never raises."""
    head, body = split_frontmatter(text)
    if head is None or not head.strip():
        return {}, body
    fields = _parse_flat(head)
    if fields is None:
        fields = _parse_yaml(head)
    return fields, body


def _parse_flat(head: str) -> dict[str, Any] | None:
    """The flat subset, or None when the text needs a real YAML parser."""
    fields: dict[str, Any] = {}
    key: str | None = None
    for raw in head.splitlines():
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        item = _ITEM.match(line)
        if item:
            if key is None or not isinstance(fields.get(key), list):
                return None
            value = _scalar(item.group(1) if item.group(1) is not None else item.group(2))
            if value is _COMPLEX:
                return None
            fields[key].append(value)
            continue
        if line[0].isspace():
            return None  # continuation lines, nested mappings
        pair = _KEY.match(line)
        if not pair:
            return None
        key, value_text = pair.group(1), (pair.group(2) or "").strip()
        if key in fields:
            return None  # let YAML decide what a duplicate key means
        if not value_text:
            fields[key] = []  # a list follows, or the value is empty (null)
            continue
        if value_text.startswith("[") and value_text.endswith("]"):
            inner = value_text[1:-1]
            if any(c in inner for c in "[]{}\"'"):
                return None
            fields[key] = [_plain(v.strip()) for v in inner.split(",") if v.strip()]
            continue
        value = _scalar(value_text)
        if value is _COMPLEX:
            return None
        fields[key] = value
    # `key:` with nothing after it and no items is YAML null
    return {k: (None if v == [] and _bare_key(head, k) else v) for k, v in fields.items()}


def _bare_key(head: str, key: str) -> bool:
    lines = head.splitlines()
    for i, line in enumerate(lines):
        if re.match(rf"^{re.escape(key)}\s*:\s*$", line):
            following = [n for n in lines[i + 1 :] if n.strip()]
            return not following or not _ITEM.match(following[0])
    return False


_COMPLEX = object()


def _scalar(text: str) -> Any:
    text = text.strip()
    if not text:
        return None
    if text[0] in "\"'":
        quote = text[0]
        if len(text) < 2 or text[-1] != quote or quote in text[1:-1] or "\\" in text:
            return _COMPLEX
        return text[1:-1]
    if _PLAIN_UNSAFE.search(text):
        return _COMPLEX
    return _plain(text)


def _plain(text: str) -> Any:
    if text in ("true", "True", "TRUE"):
        return True
    if text in ("false", "False", "FALSE"):
        return False
    if text in ("null", "Null", "NULL", "~"):
        return None
    number = _core_number(text)
    if number is not None:
        return number
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def _core_number(text: str) -> int | float | None:
    """A YAML 1.2 core-schema number, or None when the text is not one."""
    if _INT.match(text):
        return int(text, 10)
    if _INT_OCT.match(text):
        return int(text[2:], 8)
    if _INT_HEX.match(text):
        return int(text[2:], 16)
    if _FLOAT.match(text):
        return float(text)
    if _FLOAT_SPECIAL.match(text):
        return float(text.lower().replace(".", ""))
    return None


class _YamlCache:
    """sha256(frontmatter text) -> the mapping PyYAML made of it; only JSON-exact values are kept."""

    MAX_ENTRIES = 1000

    def __init__(self) -> None:
        self.path: Path | None = None
        self.entries: dict[str, Any] | None = None
        self.dirty = False

    def use(self, path: Path | None) -> None:
        if path != self.path:
            self.path, self.entries, self.dirty = path, None, False

    def _load(self) -> dict[str, Any]:
        if self.entries is None:
            self.entries = {}
            if self.path is not None:
                try:
                    data = safe_json(read_regular_text(self.path))
                    if isinstance(data, dict):
                        self.entries = data
                except (OSError, ValueError):
                    pass  # a missing or damaged cache is only slower
        return self.entries

    def get(self, key: str) -> dict[str, Any] | None:
        if self.path is None:
            return None
        value = self._load().get(key)
        return value if isinstance(value, dict) else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        if self.path is None:
            return
        try:
            if safe_json(json.dumps(value)) != value:
                return  # dates and other non-JSON values: parse again next time
        except (TypeError, ValueError):
            return
        entries = self._load()
        entries[key] = value
        while len(entries) > self.MAX_ENTRIES:
            entries.pop(next(iter(entries)))
        self.dirty = True

    def flush(self) -> None:
        if not self.dirty or self.path is None or self.entries is None:
            return
        from yoke.fsutil import replace_file

        try:
            replace_file(self.path, json.dumps(self.entries).encode("utf-8"))
        except OSError:
            pass
        self.dirty = False


yaml_cache = _YamlCache()


def _parse_yaml(head: str) -> dict[str, Any]:
    import hashlib  # here: only YAML that needs the full parser gets this far

    key = hashlib.sha256(_CACHE_VERSION + head.encode("utf-8")).hexdigest()
    cached = yaml_cache.get(key)
    if cached is not None:
        return cached
    parsed = _parse_yaml_now(head)
    yaml_cache.put(key, parsed)
    return parsed


def _parse_yaml_now(head: str) -> dict[str, Any]:
    """YAML, then Claude Code's retry with problem values quoted; {} when neither reads as a mapping."""
    try:
        data = _load(head)
    except ValueError:
        try:
            data = _load(_quote_problem_values(head))
        except ValueError:
            return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items()}


def _quote_problem_values(head: str) -> str:
    """Quote each flat `key: value` whose value YAML misreads (`: `, `[`, `#`, `|`...), as Claude Code
    does before its second try; a `[a, b]` value that is a list already stays one. Leading tabs become
    two spaces each."""
    out = []
    for line in head.split("\n"):
        pair = _RETRY_LINE.match(line)
        if pair:
            key, value = pair.group(1), pair.group(2)
            if len(value) >= 1 and value[0] == value[-1] and value[0] in "\"'":
                out.append(line)
                continue
            if value.startswith("[") and value.endswith("]") and _is_list(value):
                out.append(line)
                continue
            if _RETRY_SPECIAL.search(value):
                escaped = value.replace("\\", "\\\\").replace('"', '\\"')
                out.append(f'{key}: "{escaped}"')
                continue
        out.append(line)
    return _LEADING_TABS.sub(lambda m: "  " * len(m.group()), "\n".join(out))


def _is_list(text: str) -> bool:
    try:
        return isinstance(_load(text), list)
    except ValueError:
        return False


def _load(text: str) -> Any:
    """YAML 1.2's core schema, as Claude Code's parser reads it; ValueError when it cannot."""
    import yaml

    try:
        return yaml.load(text, Loader=_loader())  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        raise ValueError(str(exc).splitlines()[0] if str(exc) else "invalid YAML") from None


_LOADER: Any = None


def _untagged(loader: Any, _suffix: str, node: Any) -> Any:
    import yaml

    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_scalar(node)


def _loader() -> Any:
    """PyYAML's safe loader with YAML 1.2's booleans (not yes/no/on/off) and no timestamps."""
    global _LOADER
    if _LOADER is None:
        import yaml

        base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        dropped = {"tag:yaml.org,2002:" + t for t in ("bool", "timestamp", "int", "float")}
        resolvers = {
            first: [(tag, rx) for tag, rx in pairs if tag not in dropped]
            for first, pairs in base.yaml_implicit_resolvers.items()
        }
        loader: Any = type("CoreSchemaLoader", (base,), {"yaml_implicit_resolvers": resolvers})
        loader.add_implicit_resolver(
            "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
        )
        number = re.compile(
            r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
            r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
        )
        loader.add_implicit_resolver("tag:yaml.org,2002:int", number, list("-+0123456789."))
        loader.add_constructor(
            "tag:yaml.org,2002:int", lambda ld, node: _core_number(ld.construct_scalar(node))
        )
        # an unknown local tag (`description: !important note`) is dropped, the value read as written
        loader.add_multi_constructor("!", _untagged)
        _LOADER = loader
    return _LOADER

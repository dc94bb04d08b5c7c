"""YAML frontmatter of skills, commands and output styles.

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

from yoke.jsonsafe import loads as safe_json
from yoke.regex import lazy_compile


class FrontmatterError(ValueError):
    """The frontmatter cannot be read; the message says where and why, in one line."""


_KEY = lazy_compile(r"^([A-Za-z_][A-Za-z0-9_.-]*)\s*:(?:\s+(.*)|)$")
_ITEM = lazy_compile(r"^\s+-\s+(.*)$|^-\s+(.*)$")
_PLAIN_UNSAFE = lazy_compile(r"^[&*!|>%@`{]|: | #|^\[|^-\s|^\?\s")
_INT = lazy_compile(r"^[-+]?\d+$")


def split_frontmatter(text: str) -> tuple[str | None, str]:
    """(the frontmatter text or None, the body). A `---` line opens it only on the first line."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not (text.startswith("---\n") or text.startswith("---\r\n") or text.rstrip("\r\n") == "---"):
        return None, text
    lines = text.splitlines(keepends=True)
    for end in range(1, len(lines)):
        if lines[end].rstrip("\r\n").rstrip() == "---":
            return "".join(lines[1:end]), "".join(lines[end + 1 :])
    raise FrontmatterError("the frontmatter opened with --- on the first line is never closed with ---")


def parse_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """(fields, body). Text without frontmatter gives ({}, text). Raises FrontmatterError."""
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
    lowered = text.lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    if lowered in ("null", "~"):
        return None
    if _INT.match(text):
        return int(text)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


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
                    data = safe_json(self.path.read_text(encoding="utf-8"))
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

    key = hashlib.sha256(head.encode("utf-8")).hexdigest()
    cached = yaml_cache.get(key)
    if cached is not None:
        return cached
    parsed = _parse_yaml_now(head)
    yaml_cache.put(key, parsed)
    return parsed


def _parse_yaml_now(head: str) -> dict[str, Any]:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(head, Loader=loader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (frontmatter line {mark.line + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FrontmatterError(f"invalid YAML frontmatter{where}: {problem}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontmatterError("the frontmatter must be a mapping of `key: value` lines")
    return {str(k): v for k, v in data.items()}

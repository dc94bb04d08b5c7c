"""The bits of Markdown memory files that matter: frontmatter, HTML comments, and `@path` imports outside
code (fenced blocks and inline code spans never import)."""

from __future__ import annotations

import re

from yoke.regex import lazy_compile

_FENCE = lazy_compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = lazy_compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_HTML_COMMENT = lazy_compile(r"<!--.*?-->", re.DOTALL)
# `@` at the start or after whitespace, then a path (backslash-escaped spaces allowed)
_IMPORT = lazy_compile(r"(?:^|(?<=\s))@((?:[^\s\\]|\\ )+)")


def parse_frontmatter(text: str) -> tuple[dict[str, object], str]:
    """Split a leading `---` block into a small dict (scalars, `[a, b]` lists and `- item` lists) and the
    body. Text without frontmatter comes back whole."""
    if not text.startswith("---"):
        return {}, text
    lines = text.splitlines(keepends=True)
    if lines[0].strip() != "---":
        return {}, text
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            break
    else:
        return {}, text
    meta: dict[str, object] = {}
    key: str | None = None
    for raw in lines[1:end]:
        line = raw.rstrip()
        item = re.match(r"^\s*-\s+(.*)$", line)
        if item and key is not None:
            existing = meta.get(key)
            values = existing if isinstance(existing, list) else []
            values.append(_unquote(item.group(1)))
            meta[key] = values
            continue
        pair = re.match(r"^([A-Za-z0-9_-]+)\s*:\s*(.*)$", line)
        if not pair:
            continue
        key, value = pair.group(1), pair.group(2).strip()
        if value.startswith("[") and value.endswith("]"):
            meta[key] = [_unquote(v) for v in value[1:-1].split(",") if v.strip()]
        elif value:
            meta[key] = _unquote(value)
        else:
            meta[key] = []
    return meta, "".join(lines[end + 1 :])


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _prose_segments(text: str) -> list[tuple[bool, str]]:
    """Split text into (is_code, chunk) by fenced code blocks."""
    segments: list[tuple[bool, str]] = []
    fence: str | None = None
    current: list[str] = []
    for line in text.splitlines(keepends=True):
        match = _FENCE.match(line)
        if fence is None and match:
            segments.append((False, "".join(current)))
            current, fence = [line], match.group(1)
        elif (
            fence is not None
            and match
            and match.group(1)[0] == fence[0]
            and len(match.group(1)) >= len(fence)
        ):
            current.append(line)
            segments.append((True, "".join(current)))
            current, fence = [], None
        else:
            current.append(line)
    segments.append((fence is not None, "".join(current)))
    return segments


def strip_html_comments(text: str) -> str:
    """Remove `<!-- ... -->` comments outside fenced code blocks."""
    return "".join(
        chunk if is_code else _HTML_COMMENT.sub("", chunk) for is_code, chunk in _prose_segments(text)
    )


def find_imports(text: str) -> list[str]:
    """The `@path` references in prose, in order, without duplicates."""
    found: list[str] = []
    for is_code, chunk in _prose_segments(text):
        if is_code:
            continue
        prose = _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), chunk)
        for match in _IMPORT.finditer(prose):
            ref = match.group(1)
            if ref not in found:
                found.append(ref)
    return found

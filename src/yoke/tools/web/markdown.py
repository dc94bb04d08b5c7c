"""HTML to Markdown with the standard library's parser: enough structure for a model to read a page.

Headings, paragraphs, links, emphasis, code, lists, block quotes, images and simple tables are kept; scripts,
styles and other non-content elements are dropped; whitespace is collapsed as a browser would.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin

SKIPPED = frozenset(
    {"script", "style", "noscript", "template", "svg", "head", "iframe", "object", "canvas", "select"}
)
VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
BLOCKS = frozenset(
    {
        "p", "div", "section", "article", "header", "footer", "main", "nav", "aside", "figure", "figcaption",
        "form", "fieldset", "details", "summary", "dl", "dt", "dd", "address", "table", "ul", "ol", "body",
    }
)  # fmt: skip
INLINE_MARKS = {"strong": "**", "b": "**", "em": "*", "i": "*", "del": "~~", "s": "~~"}


def html_to_markdown(html: str, base_url: str = "") -> str:
    builder = _MarkdownBuilder(base_url)
    builder.feed(html)
    builder.close()
    return builder.markdown()


class _MarkdownBuilder(HTMLParser):
    def __init__(self, base_url: str):
        super().__init__(convert_charrefs=True)
        self.base_url = base_url
        self.out: list[str] = []
        self.skip_depth = 0
        self.pre_depth = 0
        self.lists: list[list[int | str]] = []  # [kind, next number] per open list
        self.links: list[tuple[int, str]] = []  # (output index of "[", href)
        self.quotes: list[int] = []  # output index where each open block quote starts
        self.row_cells = 0
        self.row_is_header = False
        self.rows_seen = 0

    # --- output helpers -------------------------------------------------------------------------------

    def _tail(self) -> str:
        for piece in reversed(self.out):
            if piece:
                return piece[-1]
        return "\n"

    def _write(self, text: str) -> None:
        self.out.append(text)

    def _block(self) -> None:
        """End the current paragraph: the next text starts after a blank line (a line break in lists)."""
        if not self.lists:
            self._write("\n\n")
        elif self._tail() != " ":  # right after a list marker nothing is needed
            self._newline()

    def _newline(self) -> None:
        if self._tail() != "\n":
            self._write("\n")

    # --- parser callbacks ---------------------------------------------------------------------------------

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skip_depth:
            if tag in SKIPPED:
                self.skip_depth += 1
            return
        if tag in SKIPPED:
            self.skip_depth = 1
            return
        attr = {k: v or "" for k, v in attrs}
        if re.fullmatch(r"h[1-6]", tag):
            self._block()
            self._write("#" * int(tag[1]) + " ")
        elif tag in BLOCKS:
            self._block()
            if tag in ("ul", "ol"):
                self.lists.append([tag, 1])
            elif tag == "table":
                self.rows_seen = 0
        elif tag == "li":
            self._start_list_item()
        elif tag == "br":
            self._write("\n")
        elif tag == "hr":
            self._block()
            self._write("---")
            self._block()
        elif tag == "pre":
            self._block()
            self._write("```\n")
            self.pre_depth += 1
        elif tag == "code" and not self.pre_depth:
            self._write("`")
        elif tag in INLINE_MARKS:
            self._write(INLINE_MARKS[tag])
        elif tag == "a":
            self.links.append((len(self.out), attr.get("href", "")))
            self._write("[")
        elif tag == "img":
            self._image(attr)
        elif tag == "blockquote":
            self._block()
            self.quotes.append(len(self.out))
        elif tag == "tr":
            self._start_row()
        elif tag in ("td", "th"):
            self.row_is_header = self.row_is_header or tag == "th"
            self.row_cells += 1
            self._write("| ")

    def handle_endtag(self, tag: str) -> None:
        if self.skip_depth:
            if tag in SKIPPED:
                self.skip_depth -= 1
            return
        if re.fullmatch(r"h[1-6]", tag) or tag in BLOCKS:
            if tag in ("ul", "ol") and self.lists:
                self.lists.pop()
                if not self.lists:
                    self._write("\n\n")
            self._block()
        elif tag == "pre" and self.pre_depth:
            self.pre_depth -= 1
            self._newline()
            self._write("```")
            self._block()
        elif tag == "code" and not self.pre_depth:
            self._write("`")
        elif tag in INLINE_MARKS:
            self._write(INLINE_MARKS[tag])
        elif tag == "a" and self.links:
            self._end_link()
        elif tag == "blockquote" and self.quotes:
            self._end_quote()
        elif tag in ("td", "th"):
            self._write(" ")
        elif tag == "tr":
            self._end_row()

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_data(self, data: str) -> None:
        if self.skip_depth:
            return
        if self.pre_depth:
            self._write(data)
            return
        text = re.sub(r"\s+", " ", data)
        if self._tail() in ("\n", " "):
            text = text.lstrip(" ")
        if text:
            self._write(text)

    # --- structures ---------------------------------------------------------------------------------------

    def _start_list_item(self) -> None:
        self._newline()
        depth = max(len(self.lists), 1)
        marker = "- "
        if self.lists and self.lists[-1][0] == "ol":
            number = int(self.lists[-1][1])
            marker = f"{number}. "
            self.lists[-1][1] = number + 1
        self._write("  " * (depth - 1) + marker)

    def _end_link(self) -> None:
        start, href = self.links.pop()
        text = "".join(self.out[start + 1 :]).strip()
        del self.out[start:]
        if href.startswith(("javascript:", "#")) or not href:
            self._write(text)
        elif text:
            self._write(f"[{text}]({urljoin(self.base_url, href)})")

    def _image(self, attr: dict[str, str]) -> None:
        src = attr.get("src", "")
        if src and not src.startswith("data:"):
            self._write(f"![{attr.get('alt', '').strip()}]({urljoin(self.base_url, src)})")

    def _end_quote(self) -> None:
        start = self.quotes.pop()
        body = _tidy("".join(self.out[start:]))
        del self.out[start:]
        self._write("\n".join(f"> {line}" if line else ">" for line in body.split("\n")))
        self._block()

    def _start_row(self) -> None:
        self._newline()
        self.row_cells = 0
        self.row_is_header = False

    def _end_row(self) -> None:
        if self.row_cells:
            self._write("|")
            self.rows_seen += 1
            if self.row_is_header and self.rows_seen == 1:
                self._write("\n" + "|---" * self.row_cells + "|")
        self._write("\n")

    def markdown(self) -> str:
        return _tidy("".join(self.out))


def _tidy(text: str) -> str:
    """Trailing spaces off each line, no more than one blank line in a row, no blank start or end."""
    lines = [line.rstrip() for line in text.split("\n")]
    text = "\n".join(lines)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip("\n")

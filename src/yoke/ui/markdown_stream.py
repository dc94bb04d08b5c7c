"""Splitting a streamed Markdown answer into finished blocks and a live tail.

A block is finished once a blank line follows it outside a code fence, or its closing fence arrives. The
UI prints finished blocks once into the terminal's scrollback and redraws only the tail, so the work per
streamed token depends on the size of the current block, never on the length of the conversation.
"""

from __future__ import annotations

FENCES = ("```", "~~~")
MAX_TAIL = 3000  # a block longer than this is cut (a long code block or paragraph), so redraws stay cheap


class MarkdownStream:
    def __init__(self) -> None:
        self.text = ""  # the unfinished tail
        self._scanned = 0  # where the first unscanned line of `text` starts
        self._fence: str | None = None  # the open fence marker, when inside a code block
        self._opener = ""  # the line that opened the current code block (```python)

    def feed(self, chunk: str) -> str:
        """Add streamed text; returns the Markdown of blocks it finished ("" for none)."""
        self.text += chunk
        boundary = 0
        while True:
            end = self.text.find("\n", self._scanned)
            if end < 0:
                break
            line = self.text[self._scanned : end].strip()
            self._scanned = end + 1
            if self._fence is not None:
                if line.startswith(self._fence) and not line.strip("`~"):
                    self._fence = None
                    boundary = self._scanned
            elif line.startswith(FENCES):
                self._fence = line[:3]
                self._opener = line
            elif not line:
                boundary = self._scanned
        done = ""
        if boundary:
            done, self.text = self.text[:boundary], self.text[boundary:]
            self._scanned -= boundary
        if len(self.text) > MAX_TAIL:
            done += self._cut_long_block()
        return done

    def _cut_long_block(self) -> str:
        """Finish the first part of an over-long block: code up to its last full line (the fence closed
        there and reopened), prose up to its last line break or sentence end."""
        if self._fence is not None:
            cut = self.text.rfind("\n", 0, self._scanned) + 1
            first_line_end = self.text.find("\n") + 1
            if cut <= first_line_end:
                return ""
            done = self.text[:cut] + self._fence + "\n"
            reopened = self._opener + "\n"
            self.text = reopened + self.text[cut:]
            self._scanned = len(reopened) + (self._scanned - cut)
            return done
        cut = self.text.rfind("\n", 0, self._scanned) + 1
        if cut < len(self.text) // 2:
            cut = max(self.text.rfind(". "), self.text.rfind("? "), self.text.rfind("! ")) + 2
        if cut < len(self.text) // 2:
            cut = self.text.rfind(" ") + 1  # no sentence end: a word boundary still keeps the tail bounded
        if cut < len(self.text) // 2:
            return ""  # one enormous word: keep streaming into the live part
        done = self.text[:cut].rstrip() + "\n\n"
        self.text = self.text[cut:].lstrip(" ")
        self._scanned = max(0, self.text.rfind("\n") + 1) if "\n" in self.text else 0
        return done

    def finish(self) -> str:
        """The rest, at the end of the message."""
        rest, self.text, self._scanned, self._fence, self._opener = self.text, "", 0, None, ""
        return rest

    @property
    def in_code(self) -> bool:
        return self._fence is not None

"""Splitting a streamed Markdown answer into finished blocks and a live tail.

A block is finished once a blank line follows it outside a code fence, or its closing fence arrives. The
UI prints finished blocks once into the terminal's scrollback and redraws only the tail, so the work per
streamed token depends on the size of the current block, never on the length of the conversation.
"""

from __future__ import annotations

FENCES = ("```", "~~~")


class MarkdownStream:
    def __init__(self) -> None:
        self.text = ""  # the unfinished tail
        self._scanned = 0  # where the first unscanned line of `text` starts
        self._fence: str | None = None  # the open fence marker, when inside a code block

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
            elif not line:
                boundary = self._scanned
        if not boundary:
            return ""
        done, self.text = self.text[:boundary], self.text[boundary:]
        self._scanned -= boundary
        return done

    def finish(self) -> str:
        """The rest, at the end of the message."""
        rest, self.text, self._scanned, self._fence = self.text, "", 0, None
        return rest

    @property
    def in_code(self) -> bool:
        return self._fence is not None

"""Word statistics for plain text."""

import re
from collections import Counter

_WORD = re.compile(r"[A-Za-z']+")


def words(text: str) -> list[str]:
    """The words of `text`, lower-cased, punctuation dropped."""
    return [w.lower() for w in _WORD.findall(text)]


def word_count(text: str) -> int:
    """How many words `text` holds."""
    return len(text.split(" "))


def word_frequencies(text: str) -> dict[str, int]:
    """Each word of `text` with the number of times it occurs."""
    return dict(Counter(words(text)))


def average_word_length(text: str) -> float:
    """The mean length of the words in `text` (0.0 for no words)."""
    found = words(text)
    if not found:
        return 0.0
    return sum(len(w) for w in found) / len(found)

"""textstats: small statistics about a piece of text."""

from textstats.core import average_word_length, word_count, word_frequencies

__all__ = ["average_word_length", "word_count", "word_frequencies"]

"""Splitting a streamed answer into finished blocks (printed once) and the live tail (redrawn)."""

from __future__ import annotations

import random

from yoke.ui.markdown_stream import MarkdownStream

ANSWER = (
    "Intro paragraph with **bold**.\n\n"
    "```python\ndef f():\n\n    return 1\n```\n"
    "- item one\n- item two\n\n"
    "Closing words."
)


def test_blocks_finish_at_blank_lines_and_closing_fences():
    stream = MarkdownStream()
    done = [stream.feed(ch) for ch in ANSWER]
    finished = [d for d in done if d]
    assert finished[0] == "Intro paragraph with **bold**.\n\n"
    assert finished[1] == "```python\ndef f():\n\n    return 1\n```\n"  # the blank line inside stays inside
    assert finished[2] == "- item one\n- item two\n\n"
    assert stream.text == "Closing words."
    assert stream.finish() == "Closing words." and stream.text == ""


def test_any_chunking_gives_the_same_text_back():
    rng = random.Random(3)
    for _ in range(50):
        stream = MarkdownStream()
        out, i = [], 0
        while i < len(ANSWER):
            step = rng.randint(1, 12)
            out.append(stream.feed(ANSWER[i : i + step]))
            i += step
        out.append(stream.finish())
        assert "".join(out) == ANSWER


def test_open_fence_is_known_while_streaming():
    stream = MarkdownStream()
    stream.feed("```sh\nls\n")
    assert stream.in_code and stream.text.startswith("```sh")
    stream.feed("```\n")
    assert not stream.in_code and stream.text == ""


def test_the_tail_stays_small_however_long_the_answer():
    stream = MarkdownStream()
    longest = 0
    for n in range(2000):
        stream.feed(f"word{n} ")
        if n % 30 == 29:
            stream.feed("\n\n")
        longest = max(longest, len(stream.text))
    assert longest < 400


def test_a_long_code_block_is_cut_into_closed_pieces():
    from yoke.ui.markdown_stream import MAX_TAIL

    stream = MarkdownStream()
    done = [stream.feed("```python\n")]
    for i in range(600):
        done.append(stream.feed(f"value_{i} = {i}\n"))
        assert len(stream.text) <= MAX_TAIL + 40
    pieces = [d for d in done if d]
    assert pieces and all(p.startswith("```python\n") and p.endswith("```\n") for p in pieces)
    body = "".join(p[len("```python\n") : -len("```\n")] for p in pieces) + stream.text[len("```python\n") :]
    assert body == "".join(f"value_{i} = {i}\n" for i in range(600))


def test_a_long_paragraph_is_cut_at_sentence_ends():
    from yoke.ui.markdown_stream import MAX_TAIL

    stream = MarkdownStream()
    out = []
    for i in range(2000):
        out.append(stream.feed(f"Sentence {i} is here. "))
        assert len(stream.text) <= MAX_TAIL + 40
    out.append(stream.finish())
    joined = "".join(out)
    assert all(f"Sentence {i} is here." in joined for i in range(2000))


def test_a_paragraph_without_sentence_ends_is_cut_at_words():
    from yoke.ui.markdown_stream import MAX_TAIL

    stream = MarkdownStream()
    out = []
    for i in range(3000):
        out.append(stream.feed(f"word{i} "))
        assert len(stream.text) <= MAX_TAIL + 40
    out.append(stream.finish())
    assert "".join(out).split() == [f"word{i}" for i in range(3000)]

"""Price lookup by model family, cost arithmetic, and context windows."""

from __future__ import annotations

import pytest

from yoke.providers.base import Usage
from yoke.providers.pricing import context_window, cost_usd, known_model, normalize_model, price_of


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"),
        ("anthropic.claude-3-5-haiku-20241022-v1:0", "claude-3-5-haiku"),
        ("claude-opus-4-1@20250805", "claude-opus-4-1"),
        ("anthropic/claude-sonnet-4", "claude-sonnet-4"),
        ("claude-sonnet-4-5[1m]", "claude-sonnet-4-5"),
        ("openai/gpt-4o-2024-08-06", "gpt-4o"),
        ("GPT-4.1-mini", "gpt-4.1-mini"),
    ],
)
def test_normalize_strips_prefixes_and_dates(model, family):
    assert normalize_model(model) == family


def test_longest_family_wins():
    assert price_of("gpt-4o-mini") == price_of("gpt-4o-mini-2024-07-18")
    assert price_of("gpt-4o-mini").input == 0.15 and price_of("gpt-4o").input == 2.50
    assert price_of("gpt-4.1-nano").output == 0.40 and price_of("gpt-4.1").output == 8.0
    assert price_of("claude-opus-4-5").input == 5.0 and price_of("claude-opus-4-1").input == 15.0
    assert price_of("gpt-5-codex") == price_of("gpt-5")


def test_an_unknown_version_is_not_priced_as_its_older_sibling():
    assert not known_model("claude-opus-4-9")
    assert not known_model("gpt-4.5-preview")
    assert not known_model("llama3.1:8b")
    assert cost_usd("llama3.1:8b", Usage(input_tokens=10**6)) == 0.0


def test_cost_counts_every_token_kind():
    usage = Usage(
        input_tokens=1_000_000,
        output_tokens=100_000,
        cache_creation_input_tokens=200_000,
        cache_read_input_tokens=2_000_000,
    )
    # sonnet: 3 in, 15 out, 3.75 cache write, 0.30 cache read per million
    assert cost_usd("claude-sonnet-4-5", usage) == pytest.approx(3.0 + 1.5 + 0.75 + 0.6)
    assert cost_usd("claude-haiku-4-5", Usage(output_tokens=1_000_000)) == pytest.approx(5.0)
    assert known_model("claude-3-7-sonnet-20250219") and known_model("o4-mini")


def test_context_windows():
    assert context_window("claude-sonnet-4-5") == 200_000
    assert context_window("claude-anything-new") == 200_000
    assert context_window("gpt-4.1-mini") == 1_047_576
    assert context_window("gpt-4o") == 128_000
    assert context_window("qwen2.5-coder") == 128_000

"""models.json's facts of issue 48, as a user meets them: retired Claude 4 models named as retired with their
replacements, the Gemini `haiku` alias on a GA Flash model, OpenAI's default on a current, priced family, and
`yoke doctor`'s warning a month before a configured model retires."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest

from yoke.providers import pricing
from yoke.providers.select import resolve_provider
from yoke.session.doctor import INFO, PROBLEM, WARN, retirement_check

DATA = json.loads((Path(pricing.__file__).with_name("models.json")).read_text())


@pytest.mark.parametrize(
    ("model", "date", "replacement"),
    [
        ("claude-sonnet-4-20250514", "2026-06-15", "claude-sonnet-4-6"),
        ("claude-sonnet-4-0", "2026-06-15", "claude-sonnet-4-6"),
        ("claude-opus-4-20250514", "2026-06-15", "claude-opus-4-8"),
        ("claude-opus-4-1-20250805", "2026-08-05", "claude-opus-4-8"),
        ("gpt-5.1-codex", "2026-07-23", "gpt-5.4"),
    ],
)
def test_retired_models_are_marked_with_their_replacement(model, date, replacement):
    assert pricing.retirement(model) == ("retired", date, replacement)
    assert pricing.known_model(model)  # still priced, for old transcripts


@pytest.mark.parametrize("model", ["gemini-3.8-flash", "gemini-3.7-flash", "gemini-3.6-flash", "gemini-3.5-flash-lite",
                                   "gpt-5.5"])  # fmt: skip
def test_new_models_are_priced_and_sourced(model):
    assert pricing.known_model(model) and pricing.retirement(model) is None
    entry = pricing.model_entry(model)
    sources = entry["source"] if isinstance(entry["source"], list) else [entry["source"]]
    assert all(DATA["sources"][s]["checked"] and DATA["sources"][s]["url"] for s in sources)


def test_the_gemini_haiku_alias_is_a_ga_flash_model():
    haiku = DATA["providers"]["gemini"]["aliases"]["haiku"]
    assert haiku == "gemini-3.8-flash" and "preview" not in haiku and pricing.known_model(haiku)


def test_openais_default_is_a_current_priced_family():
    for provider in ("openai", "openai-responses"):
        default = DATA["providers"][provider]["default"]
        assert default == "gpt-5.5" and pricing.known_model(default) and pricing.retirement(default) is None
    assert resolve_provider(None, None, {}, {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}).model == "gpt-5.5"


def test_gpt_5_5_long_prompts_are_priced_at_the_higher_tier():
    from yoke.providers.base import Usage

    short = pricing.cost_usd("gpt-5.5", Usage(100_000, 1_000, 0, 0))
    long = pricing.cost_usd("gpt-5.5", Usage(300_000, 1_000, 0, 0))
    assert short == pytest.approx((100_000 * 5 + 1_000 * 30) / 1e6)
    assert long == pytest.approx((300_000 * 10 + 1_000 * 45) / 1e6)


TODAY = datetime.date(2026, 11, 28)


@pytest.mark.parametrize(
    ("word", "date", "status", "words"),
    [
        ("retires", "2026-12-01", WARN, "retires it on 2026-12-01, in 3 days; use new-model"),
        ("retires", "2026-12-28", WARN, "in 30 days; use new-model"),
        ("retires", "2027-04-01", INFO, "retires it on 2027-04-01; new-model replaces it"),
        ("retires", "2026-11-28", PROBLEM, "retired it on 2026-11-28; use new-model"),
        ("retired", "2026-06-15", PROBLEM, "retired it on 2026-06-15; use new-model"),
    ],
)
def test_doctor_warns_within_30_days_naming_the_replacement(word, date, status, words):
    got_status, text = retirement_check(word, date, "new-model", today=TODAY)
    assert got_status == status and words in text


def test_sonnet_4_5_retires_on_anthropics_platforms_not_on_bedrocks():
    """Anthropic's page dates Sonnet 4.5's retirement for the platforms it runs; Bedrock keeps its own dates
    (none found), so Bedrock's `sonnet`, Sonnet 4.5 as 2.1.330 sends it, is not flagged there."""
    assert pricing.retirement("claude-sonnet-4-5-20250929", "anthropic") == (
        "retires",
        "2026-11-30",
        "claude-sonnet-5-5",
    )
    bedrock_sonnet = DATA["providers"]["bedrock"]["aliases"]["sonnet"]
    assert "sonnet-4-5" in bedrock_sonnet and pricing.retirement(bedrock_sonnet, "bedrock") is None

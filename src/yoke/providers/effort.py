"""Reasoning effort: which level a session asks for, and what each wire sends for it.

Claude Code's levels are low, medium, high, xhigh and max. The level comes from, first to last:
`CLAUDE_CODE_EFFORT_LEVEL`, `--effort`, the `effortLevel` setting (and per sub-agent, its `effort`).
A model takes only the levels models.json lists for it (`"effort": [...]`); a level the model lacks becomes
the highest level it has below the one asked for (xhigh on Opus 4.6 is sent as high), or its lowest level
when it has none below. A model without a list (Haiku 4.5, Sonnet 4.5, unknown or local models) gets no
effort field at all: the API would refuse the request.

Models marked `"thinking": "adaptive"` take no thinking budget (the API answers 400 to one): a session that
asks for thinking (`--max-thinking-tokens`) gets adaptive thinking there, its depth set by the effort.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

LEVELS = ("low", "medium", "high", "xhigh", "max")
ENV_VAR = "CLAUDE_CODE_EFFORT_LEVEL"
UNSET_WORDS = ("auto", "unset", "default")  # "use the model's own default": send nothing


class EffortError(ValueError):
    """A level that is not one of LEVELS; the message says where it came from and what is allowed."""


def check_level(value: Any, where: str) -> str | None:
    """The level `value` names (None for unset/auto), or EffortError naming `where` it was written."""
    if value is None:
        return None
    text = str(value).strip().lower() if isinstance(value, str) else None
    if text in UNSET_WORDS or text == "":
        return None
    if text not in LEVELS:
        raise EffortError(f"{where} must be one of {', '.join(LEVELS)} (got {value!r})")
    return text


def resolve_effort(flag: str | None, env: Mapping[str, str], setting: Any) -> str | None:
    """The session's effort level, Claude Code's order: the environment variable, then --effort, then the
    `effortLevel` setting. None: send nothing (the model's default)."""
    if env.get(ENV_VAR, "").strip():
        return check_level(env[ENV_VAR], ENV_VAR)
    if flag:
        return check_level(flag, "--effort")
    return check_level(setting, "the effortLevel setting")


@cache
def _effort_table() -> dict[str, tuple[str, ...]]:
    from yoke.providers.pricing import model_data

    return {
        name: tuple(entry["effort"]) for name, entry in model_data()["models"].items() if entry.get("effort")
    }


@cache
def _adaptive_models() -> frozenset[str]:
    from yoke.providers.pricing import model_data

    return frozenset(n for n, e in model_data()["models"].items() if e.get("thinking") == "adaptive")


def adaptive_thinking_only(model: str) -> bool:
    """Whether the model takes only adaptive thinking (no `budget_tokens`)."""
    from yoke.providers.pricing import _lookup

    return _lookup(model, _adaptive_models()) is not None


def model_levels(model: str) -> tuple[str, ...]:
    """The effort levels `model` accepts, in LEVELS order; () when it takes no effort parameter."""
    from yoke.providers.pricing import _lookup

    table = _effort_table()
    key = _lookup(model, table)
    return table[key] if key else ()


def fit_level(level: str, levels: tuple[str, ...]) -> str | None:
    """The level to send when `level` is asked of a model that takes `levels` (see the module docstring)."""
    if not levels or level not in LEVELS:
        return None
    if level in levels:
        return level
    rank = LEVELS.index(level)
    below = [lv for lv in levels if LEVELS.index(lv) < rank]
    return below[-1] if below else levels[0]


def effort_for(model: str, level: str | None) -> str | None:
    """What `model` is sent for `level`: a level it accepts, or None (send no effort field)."""
    if not level:
        return None
    return fit_level(level, model_levels(model))

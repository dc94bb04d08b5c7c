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


def session_effort(flag: str | None, env: Mapping[str, str], setting: Any, model: str) -> str | None:
    """`resolve_effort`, and when no level is asked anywhere, Claude Code 2.1.330's default for the model
    (`auto` asked explicitly still means the model's own default: nothing sent)."""
    level = resolve_effort(flag, env, setting)
    return level if effort_asked(flag, env, setting) else default_level(model)


def effort_asked(flag: str | None, env: Mapping[str, str], setting: Any) -> bool:
    """Whether a level (or `auto`) was asked anywhere; if not, the level follows the model, also after a
    switch (as 2.1.330 recomputes it after /model and set_model)."""
    return bool(env.get(ENV_VAR, "").strip() or flag or setting is not None)


def default_thinking(model: str) -> str | None:
    """What 2.1.330 turns on when no thinking is asked (models.json `default_thinking`): `adaptive`,
    `budget` (an enabled budget), or None (nothing)."""
    from yoke.providers.pricing import model_entry

    return model_entry(model).get("default_thinking")


def thinking_budget_for(model: str, asked: int | None, max_tokens: int) -> int | None:
    """The main loop's thinking budget, as 2.1.330 decides it: adaptive models think whatever was asked;
    budget models take `asked` (0: off), else max_tokens - 1; other models only what was asked."""
    mode = default_thinking(model)
    if mode == "adaptive":
        return max_tokens - 1
    if mode == "budget" and asked is None:
        return max_tokens - 1
    return asked


def thinking_body(
    model: str, budget: int | None, max_tokens: int, display: str = "updates"
) -> dict[str, Any] | None:
    """The Messages API `thinking` field for a request with `budget` (None: not asked, nothing sent);
    `display` as 2.1.330 sends it: `omitted` for a sub-agent whose thinking nobody is shown."""
    if budget is None:
        return None
    mode = default_thinking(model)
    if budget <= 0:
        return {"type": "disabled"} if mode == "budget" else None
    if mode == "adaptive" or adaptive_thinking_only(model):
        return {"type": "adaptive", "display": display}
    return {"type": "enabled", "budget_tokens": min(budget, max_tokens - 1), "display": display}


def adaptive_thinking_only(model: str) -> bool:
    """Whether the model takes only adaptive thinking (no `budget_tokens`)."""
    from yoke.providers.pricing import model_entry

    return model_entry(model).get("thinking") == "adaptive"


def thinking_by_level(model: str) -> bool:
    """Whether the model takes a thinking level (Gemini 3's `thinkingLevel`) instead of a token budget."""
    from yoke.providers.pricing import model_entry

    return model_entry(model).get("thinking") == "level"


def model_levels(model: str) -> tuple[str, ...]:
    """The effort levels `model` accepts, in LEVELS order; () when it takes no effort parameter."""
    from yoke.providers.pricing import model_entry

    return tuple(model_entry(model).get("effort") or ())


def default_level(model: str) -> str | None:
    """The level sent when none is asked: Claude Code 2.1.330's default for the model (models.json
    `default_effort`), None for models it has none for."""
    from yoke.providers.pricing import model_entry

    return model_entry(model).get("default_effort")


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

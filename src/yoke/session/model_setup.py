"""Assembly, stage two: the model. The provider (with recording, replay and the fallback model), the
reasoning effort, prices and the cost ledger, the loop's settings, and the conversation it continues (a new,
resumed, continued or forked transcript: `session/resume.py`); and `switch_model_in_place`, what
`set_model` does to a built session."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from yoke.loop.turn import LoopSettings
from yoke.providers.base import Provider, ProviderError
from yoke.session.engine import Session, SessionError
from yoke.session.options import SessionOptions
from yoke.session.resume import Loaded, load_session, resumed_messages
from yoke.session.stages import Environment, Inherited, ModelSetup


def model_stage(environment: Environment, inherited: Inherited | None = None) -> ModelSetup:
    """The model and the conversation it continues. A sub-agent shares its parent's provider and cost
    ledger (one budget), takes its own model, effort and turn limit, and starts a fresh sidechain
    transcript beside the parent's."""
    if inherited is not None:
        return _child_model_setup(inherited)
    options, merged, env, warnings = (
        environment.options,
        environment.merged,
        environment.env,
        environment.warnings,
    )
    provider, provider_name, model = make_session_provider(options, merged, env)
    effort = session_effort_level(options, merged, env, model)
    prices = session_prices(options, merged, model, warnings)
    loaded = load_session(options, environment.cwd, environment.home)
    if loaded.conversation is not None:
        warnings.extend(loaded.conversation.repairs)  # a history that needed repair says so
    telemetry = _telemetry(environment, loaded, model)
    if telemetry is not None and getattr(provider, "transport", None) is not None:
        # the provider this stage is making sends through telemetry's wrapper (as `--record`'s, above it)
        provider.transport = telemetry.transport(provider.transport)
    return ModelSetup(
        provider=with_fallback_model(provider, provider_name, model, options, merged, env, loaded),
        provider_name=provider_name,
        model=model,
        settings=loop_settings_for(options, model, env, effort, effort_was_asked(options, merged, env)),
        ledger=session_ledger(prices, loaded),
        loaded=loaded,
        messages=resumed_messages(loaded.conversation, model, env, warnings),
        telemetry=telemetry,
    )


def _telemetry(environment: Environment, loaded: Loaded, model: str) -> Any:
    """OpenTelemetry export (docs/observability.md), decided here so the stages build it in: None when off
    (then this costs one check)."""
    from yoke.telemetry import enabled

    if not enabled(environment.env):
        return None
    from yoke.telemetry.attach import session_telemetry

    return session_telemetry(
        environment.env,
        environment.merged,
        str(environment.cwd),
        loaded.session_id,
        model,
        environment.warnings,
        resumed=loaded.conversation is not None,
    )


def _child_model_setup(inherited: Inherited) -> ModelSetup:
    from yoke.session.records import RecordChain
    from yoke.session.transcript import Transcript

    parent, options = inherited.parent, inherited.options
    up = parent.agent  # live: `set_model` may have changed the parent's provider and model since
    settings = up.settings.replace(
        model=_child_model(options.model, parent.provider_name, parent.env) or up.settings.model,
        max_turns=options.max_turns,
        effort=options.effort or up.settings.effort,
    )
    path = parent.session_dir / "subagents" / f"agent-{inherited.agent_id}.jsonl"
    chain = RecordChain(
        session_id=parent.id, cwd=str(parent.cwd), entrypoint=up.recorder.chain.entrypoint, is_sidechain=True
    )
    transcript = Transcript(path, enabled=up.recorder.transcript.enabled)
    return ModelSetup(
        provider=up.provider,
        provider_name=parent.provider_name,
        model=settings.model,
        settings=settings,
        ledger=up.ledger,  # one budget for the parent and its agents
        loaded=Loaded(parent.id, transcript, chain, None),
        messages=[],
        telemetry=None,  # the parent's observers and listeners see the sub-agent's events
    )


def _child_model(model: str | None, provider: str, env: Mapping[str, str]) -> str | None:
    """A definition's `model: haiku` goes through the aliases the main model's `--model haiku` goes through."""
    if not model:
        return None
    from yoke.providers.select import resolve_model_alias

    try:
        return resolve_model_alias(provider, model, dict(env))
    except KeyError:  # a provider without an alias table (a test double): the name as written
        return model


def make_session_provider(
    options: SessionOptions, merged: dict[str, Any], env: Mapping[str, str]
) -> tuple[Any, str, str]:
    from yoke.providers.select import make_provider, resolve_provider

    flag_provider = options.provider
    if options.replay:
        if flag_provider not in (None, "replay"):
            raise SessionError(
                "--replay plays a cassette back; it cannot be combined with --provider", usage=True
            )
        flag_provider = "replay"
    try:
        config = resolve_provider(flag_provider, options.model, merged, env)
        if config.provider == "replay":
            path = options.replay or env.get("YOKE_REPLAY")
            if not path:
                raise SessionError(
                    "the replay provider needs a cassette: --replay FILE (or YOKE_REPLAY)", usage=True
                )
            from yoke.providers.replay import ReplayProvider

            replay = ReplayProvider(Path(path))
            provider: Provider = replay
            model = options.model or replay.model or config.model
        else:
            provider = make_provider(config)
            model = config.model
        if options.record:
            from yoke.providers.record import record_provider

            record_provider(provider, Path(options.record), model)
        if options.request_gate is not None:
            from yoke.providers.gated import gate_provider

            gate_provider(provider, options.request_gate)
    except ProviderError as exc:
        raise SessionError(str(exc), usage=exc.kind == "config") from None
    headers = getattr(provider, "extra_headers", None)
    if options.betas and isinstance(
        headers, dict
    ):  # --betas: Anthropic's beta header, as Claude Code sends it
        headers["anthropic-beta"] = ",".join(filter(None, [headers.get("anthropic-beta"), *options.betas]))
    return provider, config.provider, model


def with_fallback_model(
    provider: Any,
    name: str,
    model: str,
    options: SessionOptions,
    merged: dict,
    env: Mapping[str, str],
    loaded: Any,
) -> Any:
    """--fallback-model (or the fallbackModel setting): switch models on repeated overload; a resumed
    session that had switched goes on with the fallback."""
    from yoke.providers.fallback import with_fallback

    setting = merged.get("fallbackModel")
    fallback = options.fallback_model or (setting if isinstance(setting, str) else None)
    resumed = getattr(loaded.conversation, "fallback", None) if loaded.conversation is not None else None
    try:
        return with_fallback(provider, name, model, fallback, dict(env), resumed=resumed)
    except ProviderError as exc:
        raise SessionError(str(exc), usage=True) from None


def session_effort_level(
    options: SessionOptions, merged: Mapping[str, Any], env: Mapping[str, str], model: str
) -> str | None:
    """The reasoning effort level: CLAUDE_CODE_EFFORT_LEVEL, --effort, the effortLevel setting, else the
    model's default as Claude Code sends it."""
    from yoke.providers.effort import EffortError, session_effort

    try:
        return session_effort(options.effort, env, merged.get("effortLevel"), model)
    except EffortError as exc:
        raise SessionError(str(exc)) from None


def effort_was_asked(options: SessionOptions, merged: Mapping[str, Any], env: Mapping[str, str]) -> bool:
    from yoke.providers.effort import effort_asked

    return effort_asked(options.effort, env, merged.get("effortLevel"))


def session_prices(options: SessionOptions, merged: dict[str, Any], model: str, warnings: list[str]) -> dict:
    """Prices given in settings; with --max-budget-usd, a model whose price nobody knows cannot start: its
    spending could not be measured, so the budget would never stop it."""
    from yoke.loop.accounting import CostLedger, prices_from_settings

    prices = prices_from_settings(merged.get("modelPrices"), warnings)
    if options.max_budget_usd is not None and not CostLedger(prices=prices).knows(model):
        raise SessionError(
            f"--max-budget-usd: no price is known for model {model}, so its spending cannot be measured; "
            f'give it in settings: "modelPrices": {{"{model}": {{"input": 1.0, "output": 2.0}}}} '
            "(USD per million tokens)"
        )
    return prices


def session_ledger(prices: dict, loaded: Loaded) -> Any:
    """One cost ledger for the session and its sub-agents: the prices settings give, and what a resumed
    session had spent."""
    from yoke.loop.accounting import CostLedger

    ledger = CostLedger(prices)
    if loaded.conversation is not None and loaded.conversation.model_usage:
        ledger.restore(loaded.conversation.model_usage)
    return ledger


def loop_settings_for(
    options: SessionOptions, model: str, env: Mapping[str, str], effort: str | None, effort_asked: bool = True
) -> LoopSettings:
    from yoke.providers.effort import thinking_budget_for

    max_tokens = options.max_output_tokens or _max_output(env, model)
    return LoopSettings(
        model=model,
        max_turns=options.max_turns,
        max_budget_usd=options.max_budget_usd,
        max_tokens=max_tokens,
        thinking_budget=thinking_budget_for(model, options.max_thinking_tokens, max_tokens),
        effort=effort,
        include_partial=options.include_partial_messages,
        asked={
            "effort": effort_asked,
            "thinking": options.max_thinking_tokens,
            "max_tokens": bool(options.max_output_tokens or _output_env(env)),
            "show_subagent_thinking": options.show_subagent_thinking,
        },
    )


def _output_env(env: Mapping[str, str]) -> str:
    return env.get("YOKE_MAX_OUTPUT_TOKENS") or env.get("CLAUDE_CODE_MAX_OUTPUT_TOKENS") or ""


def follow_model(settings: LoopSettings, model: str, context_window: int) -> None:
    """After a switch, what nobody asked for takes the new model's defaults, as 2.1.330 recomputes them:
    effort, max_tokens and thinking (tests/cli/test_headless_vs_cc.py, set_model scenarios)."""
    from yoke.providers.effort import default_level, thinking_budget_for
    from yoke.providers.pricing import max_output

    asked = settings.asked
    if asked.get("max_tokens"):
        settings.max_tokens = min(settings.max_tokens, max(1024, context_window // 4))
    else:  # the model's own limit when known, else what its context window leaves room for
        settings.max_tokens = max_output(model) or min(32000, max(1024, context_window // 4))
    if not asked.get("effort", True):
        settings.effort = default_level(model)
    settings.thinking_budget = thinking_budget_for(model, asked.get("thinking"), settings.max_tokens)


def _max_output(env: Mapping[str, str], model: str) -> int:
    """max_tokens: YOKE_MAX_OUTPUT_TOKENS or CLAUDE_CODE_MAX_OUTPUT_TOKENS, else the model's default as Claude
    Code 2.1.330 sends it (models.json `max_output`), else 32,000."""
    from yoke.providers.pricing import max_output

    for name in ("YOKE_MAX_OUTPUT_TOKENS", "CLAUDE_CODE_MAX_OUTPUT_TOKENS"):
        if env.get(name):
            return _int_env(env, name, 32000)
    return max_output(model) or 32000


def _int_env(env: Mapping[str, str], name: str, default: int) -> int:
    try:
        return int(env.get(name, default))
    except ValueError:
        raise SessionError(f"{name} must be a whole number (got {env.get(name)!r})") from None


def switch_model_in_place(session: Session, spec: str) -> None:
    """`set_model`: the next request goes to `spec` (an alias, a model id, or `provider:model`), with the
    output budget and compaction thresholds of its context window. Across vendors the history is converted
    (what the other side cannot read is dropped) and a notice says so. Raises ValueError, one line."""
    from yoke.providers.base import ProviderError
    from yoke.providers.switch import plan_model_switch

    agent = session.agent
    env = agent.executor.ctx.env or os.environ
    try:
        plan = plan_model_switch(
            spec,
            current_provider=session.provider_name,
            current_model=agent.settings.model,
            messages=agent.messages,
            env=env,
        )
    except ProviderError as exc:
        raise ValueError(str(exc)) from None
    if plan.provider is not None:
        agent.provider = plan.provider
        session.resources.add(plan.provider, "provider")  # the old one closes with the session too
        session.provider_name = plan.provider_name
    if plan.messages is not agent.messages:
        agent.messages[:] = plan.messages
    agent.settings.model = plan.model
    follow_model(agent.settings, plan.model, plan.context_window)
    keeper = agent.keeper
    if keeper is not None and hasattr(keeper, "retarget"):
        keeper.retarget(plan.model)
    if plan.notice:
        agent.notices.append(plan.notice)

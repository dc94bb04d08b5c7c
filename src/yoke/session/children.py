"""Child sessions (sub-agents): a fresh history and transcript, their own tools, model and permission mode,
sharing the parent's provider, budget (one cost ledger), interrupt and listeners. A child's transcript sits
beside the parent's, as Claude Code keeps them: `<session>/subagents/agent-<id>.jsonl`."""

from __future__ import annotations

import asyncio
import copy
import os
from typing import TYPE_CHECKING, Any

from yoke import events as ev
from yoke.loop.executor import ToolExecutor
from yoke.loop.turn import Agent
from yoke.messages import text_block
from yoke.session.resources import ResourceStack
from yoke.tools.base import SessionState
from yoke.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from yoke.session.engine import ChildOptions, Session


def build_child(parent: Session, options: ChildOptions, parent_tool_use_id: str, agent_id: str) -> Session:
    from yoke.session.engine import Session
    from yoke.session.recorder import Recorder
    from yoke.session.records import RecordChain
    from yoke.session.transcript import Transcript

    up = parent.agent
    resources = ResourceStack()
    registry = _child_registry(up.executor.registry, options)
    gate = parent.gate
    if options.permission_mode and options.permission_mode != gate.mode:
        gate = copy.copy(gate)  # shares the rules and the session's answers; only the mode differs
        gate.set_mode(options.permission_mode)
    path = parent.session_dir / "subagents" / f"agent-{agent_id}.jsonl"
    transcript = resources.add(Transcript(path, enabled=up.recorder.transcript.enabled), "transcript")
    chain = RecordChain(
        session_id=parent.id, cwd=str(parent.cwd), entrypoint=up.recorder.chain.entrypoint, is_sidechain=True
    )
    recorder = Recorder(transcript, chain)
    state = SessionState(
        session_id=parent.id, session_dir=parent.session_dir, services=parent.services.for_child()
    )
    # A sub-agent's calls are not tool calls of the front-end's, so none can show a front-end terminal.
    ctx = up.executor.ctx.replace(session=state, cancel=asyncio.Event(), terminal=None)
    if options.cwd is not None:
        ctx = ctx.replace(cwd=options.cwd, working_dirs=[options.cwd, *ctx.working_dirs])
    lifecycle = up.lifecycle.derive(agent_id=agent_id, agent_type=options.agent_type)
    executor = ToolExecutor(registry, gate, ctx, lifecycle, up.executor.observers)
    system = [text_block(options.system_prompt)] if options.system_prompt else list(up.system)
    agent = Agent(
        provider=up.provider,
        executor=executor,
        settings=up.settings.replace(
            model=_child_model(options.model, parent.provider_name, ctx.env) or up.settings.model,
            max_turns=options.max_turns,
            effort=options.effort or up.settings.effort,
        ),
        recorder=recorder,
        system=system,
        ledger=up.ledger,  # one budget for the parent and its agents
        agent_id=agent_id,
        parent_tool_use_id=parent_tool_use_id,
        observers=up.observers,  # the same list: telemetry sees a sub-agent's own events too
    )
    started = ev.SessionStarted(
        parent.id, agent.settings.model, str(parent.cwd), registry.names(), gate.mode, ""
    )
    ev.from_agent(started, agent_id, parent_tool_use_id)
    return Session(
        agent,
        started,
        resources=resources,
        gate=gate,
        provider_name=parent.provider_name,
        session_dir=parent.session_dir,
        parent=parent,
    )


def _child_model(model: str | None, provider: str, env: Any) -> str | None:
    """A definition's `model: haiku` goes through the aliases the main model's `--model haiku` goes through."""
    if not model:
        return None
    from yoke.providers.select import resolve_model_alias

    try:
        return resolve_model_alias(provider, model, dict(env or os.environ))
    except KeyError:  # a provider without an alias table (a test double): the name as written
        return model


def _child_registry(tools: ToolRegistry, options: ChildOptions) -> ToolRegistry:
    wanted = None if options.tools is None else set(options.tools)
    denied = set(options.disallowed_tools)
    keep = []
    for tool in [*tools, *options.withheld_tools]:
        names = {tool.name, *tool.aliases}
        if wanted is not None and not names & wanted:
            continue
        if names & denied:
            continue
        keep.append(tool)
    return ToolRegistry(keep)

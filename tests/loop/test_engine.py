"""The engine's invariants, each reproducing a defect found in review: interrupts end a query within a
second from any point (compaction included), every path answers every tool call, each call has its own
context, an approved plan leaves plan mode."""

from __future__ import annotations

import asyncio
import random
import time

from tests.loop.test_turn import (
    Reshaped,
    ScriptProvider,
    WaitInput,
    assert_history_valid,
    collect,
    make_agent,
    tool_use,
)

from yoke import events as ev
from yoke.loop.lifecycle import LifecycleOutcome
from yoke.seams import Answer
from yoke.testing.gates import SimpleGate
from yoke.tools.base import Tool, ToolResult


class SlowKeeper:
    """A compactor whose summary request takes a while (it is a model call); never finishes on its own
    when `hang` is set."""

    def __init__(self, delay: float = 0.0, hang: bool = False):
        self.delay = delay
        self.hang = hang
        self.calls = 0

    async def prepare(self, messages, usage):
        self.calls += 1
        await asyncio.sleep(3600 if self.hang else self.delay)
        summary = [{"role": "user", "content": [{"type": "text", "text": "summary"}]}]
        keep = messages[-1:] if messages and messages[-1]["role"] == "user" else []
        boundary = {"type": "system", "subtype": "compact_boundary", "compactMetadata": {"trigger": "auto"}}
        return Reshaped(
            summary + keep if len(messages) > 2 else messages, [boundary] if len(messages) > 2 else []
        )

    async def on_prompt_too_long(self, messages):
        return None

    async def compact(self, messages, instructions=None):
        await asyncio.sleep(3600 if self.hang else self.delay)
        return Reshaped(messages, [])


async def _interrupt_after(agent, seconds: float) -> float:
    await asyncio.sleep(seconds)
    agent.interrupt()
    return time.monotonic()


async def test_interrupt_while_compaction_summarizes(tmp_path):
    agent = make_agent(tmp_path, [{"content": [{"type": "text", "text": "never"}]}], [])
    agent.keeper = SlowKeeper(hang=True)
    timer = asyncio.create_task(_interrupt_after(agent, 0.1))
    events = await asyncio.wait_for(collect(agent), 5)
    fired = await timer
    assert time.monotonic() - fired < 1.0
    assert isinstance(events[-1], ev.Result) and events[-1].reason == "interrupted"
    assert agent.provider.requests == []


async def test_interrupt_before_the_work_starts(tmp_path):
    """An interrupt that lands before the query's task has run a single step still ends it."""
    agent = make_agent(tmp_path, [{"content": [{"type": "text", "text": "x", "hang": True}]}], [])
    events = []
    async for event in agent.query("go"):
        events.append(event)
        agent.interrupt()
    assert events[-1].reason == "interrupted"


async def test_interrupt_while_a_listener_runs(tmp_path):
    class SlowHook:
        def wants(self, event):
            return event == "UserPromptSubmit"

        async def announce(self, event, payload):
            await asyncio.sleep(3600)

    agent = make_agent(tmp_path, [{"content": [{"type": "text", "text": "x"}]}], [])
    agent.lifecycle.add(SlowHook())
    asyncio.create_task(_interrupt_after(agent, 0.05))
    events = await asyncio.wait_for(collect(agent), 2)
    assert events[-1].reason == "interrupted"


class Nap(Tool):
    name = "Nap"
    description = "test"
    input_model = WaitInput
    read_only = True
    concurrency_safe = True

    async def run(self, input, ctx):
        await asyncio.sleep(float(input.key))
        return ToolResult(f"slept {input.key}")


def _session_script(rng: random.Random, turns: int) -> list[dict]:
    script = []
    for i in range(turns):
        naps = [
            tool_use(f"t{i}_{j}", "Nap", key=f"{rng.uniform(0, 0.05):.3f}") for j in range(rng.randint(1, 3))
        ]
        script.append({"content": [{"type": "text", "text": f"step {i}"}, *naps]})
    script.append({"content": [{"type": "text", "text": "done"}]})
    return script


async def test_interrupt_at_fifty_random_moments_of_a_compacting_session(tmp_path):
    """Streams, tools, compaction summaries and listeners all take time; an interrupt anywhere ends the
    query within a second and leaves a history every provider accepts."""
    rng = random.Random(8)
    for attempt in range(50):
        agent = make_agent(tmp_path / str(attempt), _session_script(rng, 4), [Nap()])
        agent.provider = DelayedProvider(agent.provider.turns, rng)
        agent.keeper = SlowKeeper(delay=rng.uniform(0, 0.04))
        timer = asyncio.create_task(_interrupt_after(agent, rng.uniform(0, 0.3)))
        events = await asyncio.wait_for(collect(agent), 5)
        fired = await timer
        ended = time.monotonic()
        result = events[-1]
        assert isinstance(result, ev.Result)
        assert sum(isinstance(e, ev.Result) for e in events) == 1
        if result.reason == "interrupted":
            assert ended - fired < 1.0
        assert_history_valid(agent.messages)
        # the history can be continued: a next query starts cleanly after the interrupt
        agent.provider = ScriptProvider([{"content": [{"type": "text", "text": "again"}]}])
        assert (await asyncio.wait_for(collect(agent, "next"), 5))[-1].reason == "completed"
        assert_history_valid(agent.messages)


class DelayedProvider(ScriptProvider):
    """Streams with small random pauses between events (so interrupts land mid-stream too)."""

    def __init__(self, turns, rng):
        super().__init__(turns)
        self.rng = rng

    async def _events(self, turn):
        async for event in super()._events(turn):
            await asyncio.sleep(self.rng.uniform(0, 0.01))
            yield event


class WhoAmI(Tool):
    """Reads its own call id after an await: a shared context would hand it a sibling's."""

    name = "WhoAmI"
    description = "test"
    input_model = WaitInput
    read_only = True
    concurrency_safe = True

    async def run(self, input, ctx):
        await asyncio.sleep(0.02 if input.key == "slow" else 0)
        return ToolResult(ctx.tool_use_id)


async def test_parallel_calls_each_get_their_own_context(tmp_path):
    agent = make_agent(
        tmp_path,
        [
            {"content": [tool_use("first", "WhoAmI", key="slow"), tool_use("second", "WhoAmI", key="fast")]},
            {"content": [{"type": "text", "text": "ok"}]},
        ],
        [WhoAmI()],
    )
    events = await collect(agent)
    results = [e for e in events if isinstance(e, ev.ToolResultEvent)]
    assert {r.tool_use_id: r.block["content"] for r in results} == {"first": "first", "second": "second"}


async def test_a_failing_gate_still_answers_the_call(tmp_path):
    class BrokenGate(SimpleGate):
        async def decide(self, tool, input, ctx, hook=None):
            raise RuntimeError("gate bug")

    agent = make_agent(
        tmp_path,
        [{"content": [tool_use("t1", "Nap", key="0")]}, {"content": [{"type": "text", "text": "ok"}]}],
        [Nap()],
        gate=BrokenGate(),
    )
    events = await collect(agent)
    assert events[-1].reason == "completed"
    result = [e for e in events if isinstance(e, ev.ToolResultEvent)][0]
    assert result.is_error and "gate bug" in result.block["content"]
    assert_history_valid(agent.messages)


async def test_a_failing_listener_or_observer_still_answers_the_call(tmp_path):
    class Broken:
        def wants(self, event):
            return True

        async def announce(self, event, payload):
            raise ValueError("listener bug")

    class BadObserver:
        def before_change(self, tool, input, ctx):
            raise OSError("observer bug")

        def after_success(self, tool, input, ctx):
            return None

    class Writes(Tool):
        name = "Writes"
        description = "test"
        input_model = WaitInput

        async def run(self, input, ctx):
            return ToolResult("written")

    agent = make_agent(
        tmp_path,
        [{"content": [tool_use("t1", "Writes", key="x")]}, {"content": [{"type": "text", "text": "ok"}]}],
        [Writes()],
    )
    agent.lifecycle.add(Broken())
    agent.executor.observers.append(BadObserver())
    events = await collect(agent)
    assert events[-1].reason == "completed"
    assert any(isinstance(e, ev.Notice) and "listener bug" in e.message for e in events)
    result = [e for e in events if isinstance(e, ev.ToolResultEvent)][0]
    assert result.is_error and "observer bug" in result.block["content"]
    assert_history_valid(agent.messages)


async def test_approving_a_plan_leaves_plan_mode(tmp_path):
    from yoke.tools.builtin.plan import ExitPlanModeTool

    class Approves:
        async def ask(self, question):
            return Answer("allow")

        async def approve_plan(self, plan, tool_use_id=""):
            return Answer("allow")

    gate = SimpleGate("plan")
    agent = make_agent(
        tmp_path,
        [
            {"content": [tool_use("p1", "ExitPlanMode", plan="1. do it")]},
            {"content": [{"type": "text", "text": "ok"}]},
        ],
        [ExitPlanModeTool()],
        gate=gate,
    )
    agent.executor.ctx.asker = Approves()
    agent.executor.ctx.set_permission_mode = lambda mode: setattr(gate, "mode", mode)
    await collect(agent)
    assert gate.mode == "default"


async def test_pre_tool_use_listener_rewrites_and_post_tool_use_adds_context(tmp_path):
    class Echo(Tool):
        name = "Echo"
        description = "test"
        input_model = WaitInput

        async def run(self, input, ctx):
            return ToolResult(f"echo {input.key}")

    seen = []

    def pre(payload):
        seen.append(payload)
        return LifecycleOutcome(decision="allow", updated_input={"key": "rewritten"})

    class Listener:
        def wants(self, event):
            return event in ("PreToolUse", "PostToolUse")

        async def announce(self, event, payload):
            if event == "PreToolUse":
                return pre(payload)
            return LifecycleOutcome(additional_context="formatted by hook")

    agent = make_agent(
        tmp_path,
        [{"content": [tool_use("t1", "Echo", key="orig")]}, {"content": [{"type": "text", "text": "ok"}]}],
        [Echo()],
        gate=SimpleGate("default"),
    )
    agent.lifecycle.add(Listener())
    events = await collect(agent)
    result = [e for e in events if isinstance(e, ev.ToolResultEvent)][0]
    assert result.block["content"] == "echo rewritten\n\nformatted by hook"
    assert seen[0]["tool_name"] == "Echo" and seen[0]["tool_input"] == {"key": "orig"}
    assert seen[0]["tool_use_id"] == "t1"


def test_read_only_bash_calls_run_in_parallel(project, base_env):
    """Eight `sleep` calls the analyser proves read-only run together (Claude Code does the same): several
    of them are seen running at the same moment."""
    import subprocess
    import sys

    from tests.cli.test_engine_defects import _pids_running
    from tests.conftest import anthropic_env

    from yoke.permissions.build import build_gate
    from yoke.testing import ScriptedServer
    from yoke.tools.builtin.bash import BashTool

    calls = [tool_use(f"b{i}", "Bash", command="sleep 1.731") for i in range(8)]
    turns = [{"content": calls}, {"content": [{"type": "text", "text": "slept"}]}]
    with ScriptedServer(turns) as srv:
        proc = subprocess.Popen(
            [sys.executable, "-m", "yoke", "-p", "nap", "--allowedTools", "Bash(sleep:*)"],
            cwd=project,
            env=dict(base_env, **anthropic_env(srv)),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        most = 0
        while proc.poll() is None:
            most = max(most, len(_pids_running("sleep 1.731")))
            time.sleep(0.05)
        out, err = proc.communicate()
    assert proc.returncode == 0, err
    assert most >= 2, most
    gate = build_gate(
        None,
        cwd=project,
        mode="default",
        allowed_tools=[],
        disallowed_tools=[],
        add_dirs=[],
        interactive=False,
    )
    bash = BashTool()
    assert gate.runs_alongside(bash, {"command": "ls; cat README"})
    assert not gate.runs_alongside(bash, {"command": "cd /tmp"})
    assert not gate.runs_alongside(bash, {"command": "rm -f x"})
    assert not gate.runs_alongside(bash, {"command": "echo $(touch x)"})

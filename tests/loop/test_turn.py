"""The turn engine with an in-process provider and tools: batching, ordering, interruption, recoveries."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from pydantic import BaseModel

from yoke import events as ev
from yoke.loop.executor import ToolExecutor
from yoke.loop.lifecycle import LifecycleOutcome
from yoke.loop.turn import Agent, LoopSettings
from yoke.permissions.gate import Decision
from yoke.providers import base as pb
from yoke.seams import Answer
from yoke.session.recorder import Recorder
from yoke.session.records import RecordChain
from yoke.session.transcript import Transcript, load_records
from yoke.testing.gates import SimpleGate
from yoke.tools.base import SessionState, Tool, ToolContext, ToolResult
from yoke.tools.registry import ToolRegistry


class ScriptProvider:
    """Streams scripted assistant messages as provider events; records each request."""

    name = "script"

    def __init__(self, turns: list[dict], model: str = "test-model"):
        self.model = model
        self.turns = list(turns)
        self.requests: list[pb.ModelRequest] = []

    def stream(self, request: pb.ModelRequest):
        self.requests.append(request)
        turn = self.turns.pop(0)
        return self._events(turn)

    async def _events(self, turn: dict):
        if turn.get("error"):
            raise turn["error"]
        yield pb.MessageStart("msg_1", "test-model", pb.Usage(10))
        blocks, errors = [], {}
        for i, block in enumerate(turn["content"]):
            if block.get("hang"):
                await asyncio.sleep(3600)
            yield pb.BlockStart(i, block)
            if block["type"] == "tool_use" and "raw" in block:
                errors[block["id"]] = "Expecting ',' delimiter"
                block = {k: v for k, v in block.items() if k != "raw"} | {"input": {}}
            blocks.append(block)
            yield pb.BlockStop(i, block, errors.get(block.get("id")))
        stop = turn.get("stop_reason") or (
            "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        )
        usage = pb.Usage(10, turn.get("output_tokens", 5))
        yield pb.MessageDelta(stop, usage)
        yield pb.MessageStop(
            "msg_1", self.model, {"role": "assistant", "content": blocks}, stop, usage, errors
        )

    async def aclose(self):
        pass


class WaitInput(BaseModel):
    key: str


class RendezvousTool(Tool):
    """Concurrency-safe: each call waits until `expected` calls have started (deadlocks if run one by one)."""

    name = "Rendezvous"
    description = "test"
    input_model = WaitInput
    read_only = True
    concurrency_safe = True

    def __init__(self, expected: int):
        self.expected = expected
        self.started: list[str] = []
        self.all_started = asyncio.Event()

    async def run(self, input, ctx):
        self.started.append(input.key)
        if len(self.started) >= self.expected:
            self.all_started.set()
        await asyncio.wait_for(self.all_started.wait(), 5)
        await asyncio.sleep(0.01 if input.key == "a" else 0)  # finish out of order
        return ToolResult(f"done {input.key}")


class SleepTool(Tool):
    name = "Sleep"
    description = "test"
    input_model = WaitInput
    read_only = True

    def __init__(self):
        self.started = asyncio.Event()

    async def run(self, input, ctx):
        self.started.set()
        await asyncio.sleep(3600)
        return ToolResult("never")


def make_agent(tmp_path: Path, turns: list[dict], tools: list[Tool], gate=None, **settings) -> Agent:
    session = SessionState("sid", tmp_path / "session")
    ctx = ToolContext(cwd=tmp_path, session=session, working_dirs=[tmp_path])
    executor = ToolExecutor(ToolRegistry(tools), gate or SimpleGate("bypassPermissions"), ctx)
    transcript = Transcript(tmp_path / "t.jsonl")
    return Agent(
        provider=ScriptProvider(turns),
        executor=executor,
        settings=LoopSettings(model="test-model", **settings),
        recorder=Recorder(transcript, RecordChain(session_id="sid", cwd=str(tmp_path))),
    )


async def collect(agent: Agent, prompt: str = "go") -> list[ev.Event]:
    return [e async for e in agent.query(prompt)]


def assert_history_valid(messages: list[dict]) -> None:
    """Every tool_use is answered by a tool_result in the very next (user) message."""
    assert messages[0]["role"] == "user"
    for i, m in enumerate(messages):
        if m["role"] == "assistant":
            uses = [b["id"] for b in m["content"] if b["type"] == "tool_use"]
            if uses:
                answered = [
                    b["tool_use_id"] for b in messages[i + 1]["content"] if b["type"] == "tool_result"
                ]
                assert sorted(answered) == sorted(uses)


class Reshaped:
    def __init__(self, messages, boundaries):
        self.messages = messages
        self.boundaries = boundaries


def tool_use(id_: str, name: str, **input) -> dict:
    return {"type": "tool_use", "id": id_, "name": name, "input": input}


async def test_parallel_batch_results_in_requested_order(tmp_path):
    tool = RendezvousTool(expected=3)
    agent = make_agent(
        tmp_path,
        [
            {
                "content": [
                    tool_use("t1", "Rendezvous", key="a"),
                    tool_use("t2", "Rendezvous", key="b"),
                    tool_use("t3", "Rendezvous", key="c"),
                ]
            },
            {"content": [{"type": "text", "text": "ok"}]},
        ],
        [tool],
    )
    events = await collect(agent)
    result = events[-1]
    assert isinstance(result, ev.Result) and result.reason == "completed"
    results = [e for e in events if isinstance(e, ev.ToolResultsMessage)][0]
    assert [b["tool_use_id"] for b in results.message["content"]] == ["t1", "t2", "t3"]
    assert [b["content"] for b in results.message["content"]] == ["done a", "done b", "done c"]


async def test_unsafe_calls_split_batches(tmp_path):
    # Rendezvous(expected=2) x2, then Sleep-free unsafe tool between would deadlock if batched wrongly
    tool = RendezvousTool(expected=2)
    executor_calls = []

    class Unsafe(Tool):
        name = "Unsafe"
        description = "test"
        input_model = WaitInput

        async def run(self, input, ctx):
            executor_calls.append(list(tool.started))
            return ToolResult("u")

    agent = make_agent(
        tmp_path,
        [
            {
                "content": [
                    tool_use("t1", "Rendezvous", key="a"),
                    tool_use("t2", "Rendezvous", key="b"),
                    tool_use("t3", "Unsafe", key="x"),
                ]
            },
            {"content": [{"type": "text", "text": "ok"}]},
        ],
        [tool, Unsafe()],
    )
    events = await collect(agent)
    assert events[-1].reason == "completed"
    assert executor_calls == [["a", "b"]]  # the unsafe call ran after the safe batch finished


async def test_malformed_tool_json_reaches_model_as_error(tmp_path):
    agent = make_agent(
        tmp_path,
        [
            {"content": [{"type": "tool_use", "id": "bad", "name": "Sleep", "input": {}, "raw": '{"key": '}]},
            {"content": [{"type": "text", "text": "sorry"}]},
        ],
        [SleepTool()],
    )
    events = await collect(agent)
    assert events[-1].reason == "completed"
    second = agent.provider.requests[1].messages[-1]["content"][0]
    assert second["is_error"] is True and "not valid JSON" in second["content"]


async def test_interrupt_during_tool_answers_dangling_calls(tmp_path):
    sleeper = SleepTool()
    agent = make_agent(
        tmp_path,
        [
            {"content": [tool_use("t1", "Sleep", key="a"), tool_use("t2", "Sleep", key="b")]},
        ],
        [sleeper],
    )

    async def interrupt_soon():
        await sleeper.started.wait()
        agent.interrupt()

    task = asyncio.create_task(interrupt_soon())
    events = await collect(agent)
    await task
    assert events[-1].reason == "interrupted"
    assert_history_valid(agent.messages)
    last = agent.messages[-1]["content"]
    assert [b["tool_use_id"] for b in last] == ["t1", "t2"] and all(b["is_error"] for b in last)
    # the transcript holds the same answered history
    records = [r for r in load_records(tmp_path / "t.jsonl") if r["type"] == "user"]
    assert records[-1]["message"]["content"][0]["tool_use_id"] == "t1"


async def test_interrupt_during_stream(tmp_path):
    agent = make_agent(tmp_path, [{"content": [{"type": "text", "text": "x", "hang": True}]}], [])

    async def interrupt_soon():
        await asyncio.sleep(0.05)
        agent.interrupt()

    task = asyncio.create_task(interrupt_soon())
    events = await collect(agent)
    await task
    assert events[-1].reason == "interrupted" and events[-1].is_error


async def test_max_tokens_recovers_three_times_then_stops(tmp_path):
    cut = {"content": [{"type": "text", "text": "partial"}], "stop_reason": "max_tokens"}
    agent = make_agent(tmp_path, [cut, cut, cut, cut], [])
    events = await collect(agent)
    assert events[-1].reason == "max_tokens"
    assert len(agent.provider.requests) == 4
    assert "cut off" in agent.provider.requests[1].messages[-1]["content"]


async def test_max_tokens_recovery_can_complete(tmp_path):
    cut = {"content": [{"type": "text", "text": "partial"}], "stop_reason": "max_tokens"}
    agent = make_agent(tmp_path, [cut, {"content": [{"type": "text", "text": "rest"}]}], [])
    events = await collect(agent)
    assert events[-1].reason == "completed" and events[-1].text == "rest"


async def test_max_turns(tmp_path):
    agent = make_agent(
        tmp_path, [{"content": [tool_use("t1", "Rendezvous", key="a")]}], [RendezvousTool(1)], max_turns=1
    )
    events = await collect(agent)
    assert events[-1].reason == "max_turns" and events[-1].num_turns == 2  # as Claude Code: limit + 1
    assert_history_valid(agent.messages)


async def test_repeat_guard_stops_identical_calls(tmp_path):
    same = {"content": [tool_use("t", "Rendezvous", key="same")]}
    turns = [dict(same, content=[tool_use(f"t{i}", "Rendezvous", key="same")]) for i in range(6)]
    agent = make_agent(tmp_path, turns, [RendezvousTool(1)], repeat_limit=5)
    events = await collect(agent)
    assert events[-1].reason == "loop_detected"
    assert "5 times" in events[-1].text
    assert_history_valid(agent.messages)


async def test_model_error_and_prompt_too_long(tmp_path):
    agent = make_agent(tmp_path, [{"content": [], "error": pb.ProviderError("server", "boom", 500)}], [])
    result = (await collect(agent))[-1]
    assert result.reason == "model_error" and result.api_error_status == 500 and "boom" in result.text
    agent = make_agent(
        tmp_path, [{"content": [], "error": pb.ProviderError("prompt_too_long", "too long", 400)}], []
    )
    assert (await collect(agent))[-1].reason == "prompt_too_long"


async def test_prompt_too_long_triggers_one_reactive_compaction(tmp_path):
    agent = make_agent(
        tmp_path,
        [
            {"content": [], "error": pb.ProviderError("prompt_too_long", "too long", 400)},
            {"content": [{"type": "text", "text": "fine now"}]},
        ],
        [],
    )
    calls = []

    class Keeper:
        async def prepare(self, messages, usage):
            return Reshaped(messages, [])

        async def on_prompt_too_long(self, messages):
            calls.append(len(messages))
            return Reshaped(messages, [])

    agent.keeper = Keeper()
    result = (await collect(agent))[-1]
    assert result.reason == "completed" and calls == [1]


async def test_budget_exceeded(tmp_path):
    agent = make_agent(
        tmp_path,
        [
            {"content": [tool_use("t1", "Rendezvous", key="a")], "output_tokens": 1_000_000},
            {"content": [{"type": "text", "text": "never"}]},
        ],
        [RendezvousTool(1)],
        max_budget_usd=0.01,
    )
    agent.provider.model = "claude-sonnet-4-5"  # a priced model: a million output tokens cost dollars
    events = await collect(agent)
    assert events[-1].reason == "budget_exceeded"
    assert events[-1].total_cost_usd > 0.01
    assert len(agent.provider.requests) == 1
    assert_history_valid(agent.messages)


class DenyAndStop:
    async def ask(self, question):
        return Answer("deny", "no", interrupt=True)


async def test_tool_denied_stop(tmp_path):
    agent = make_agent(
        tmp_path, [{"content": [tool_use("t1", "Sleep", key="a")]}], [SleepTool()], gate=SimpleGate("default")
    )
    agent.executor.ctx.asker = DenyAndStop()

    class NeedsAsk(SimpleGate):
        async def decide(self, tool, input, ctx, hook=None):
            return Decision("ask", "needs approval")

    agent.executor.gate = NeedsAsk()
    events = await collect(agent)
    assert events[-1].reason == "tool_denied_stop"
    assert events[-1].permission_denials[0]["tool_use_id"] == "t1"
    assert_history_valid(agent.messages)


async def test_headless_denial_listed(tmp_path):
    agent = make_agent(
        tmp_path,
        [
            {"content": [tool_use("t1", "Unsafe", key="a")]},
            {"content": [{"type": "text", "text": "ok"}]},
        ],
        [],
        gate=SimpleGate("default"),
    )

    class Unsafe(Tool):
        name = "Unsafe"
        description = "t"
        input_model = WaitInput

        async def run(self, input, ctx):
            return ToolResult("ran")

    agent.executor.registry.register(Unsafe())
    events = await collect(agent)
    assert events[-1].reason == "completed"
    assert events[-1].permission_denials == [
        {"tool_name": "Unsafe", "tool_use_id": "t1", "tool_input": {"key": "a"}}
    ]
    decisions = [r for r in load_records(tmp_path / "t.jsonl") if r.get("subtype") == "permission_decision"]
    assert decisions and decisions[0]["behavior"] == "deny"


async def test_input_preview_when_json_parses(tmp_path):
    from yoke.loop.translate import EventTranslator

    p = EventTranslator()
    p.translate(pb.BlockStart(0, {"type": "tool_use", "id": "t", "name": "Read", "input": {}}))
    assert p.translate(pb.ToolInputDelta(0, '{"file_path": "/a')) == []
    out = p.translate(pb.ToolInputDelta(0, '"}'))
    assert out == [ev.ToolCallInputPreview("t", "Read", {"file_path": "/a"})]


def test_events_are_json_safe():
    # results carry plain data front-ends serialize
    json.dumps(pb.Usage(1, 2).as_dict())


class Answers:
    """A lifecycle listener answering chosen events (the way hook runners plug in)."""

    def __init__(self, **answers):
        self.answers = answers
        self.fired: list[tuple[str, dict]] = []

    def wants(self, event):
        return True

    async def announce(self, event, payload):
        self.fired.append((event, payload))
        answer = self.answers.get(event)
        if callable(answer):
            return answer(payload)
        return answer or LifecycleOutcome()


async def test_hook_stopped_on_prompt(tmp_path):
    agent = make_agent(tmp_path, [{"content": [{"type": "text", "text": "never"}]}], [])
    agent.lifecycle.add(Answers(UserPromptSubmit=LifecycleOutcome(block=True, reason="policy says no")))
    result = (await collect(agent))[-1]
    assert result.reason == "hook_stopped" and result.text == "policy says no"
    assert agent.provider.requests == []


async def test_stop_hook_can_keep_the_model_going_or_stop(tmp_path):
    agent = make_agent(
        tmp_path,
        [{"content": [{"type": "text", "text": "first"}]}, {"content": [{"type": "text", "text": "second"}]}],
        [],
    )
    blocks = iter([LifecycleOutcome(block=True, reason="run the tests too")])
    listener = Answers(Stop=lambda payload: next(blocks, LifecycleOutcome()))
    agent.lifecycle.add(listener)
    result = (await collect(agent))[-1]
    assert result.reason == "completed" and result.text == "second"
    assert "run the tests too" in agent.provider.requests[1].messages[-1]["content"]
    stops = [payload for event, payload in listener.fired if event == "Stop"]
    assert [p["stop_hook_active"] for p in stops] == [False, True]
    assert stops[0]["last_assistant_message"] == "first"
    agent = make_agent(tmp_path, [{"content": [{"type": "text", "text": "x"}]}], [])
    agent.lifecycle.add(Answers(Stop=LifecycleOutcome(stop=True, stop_reason="enough")))
    assert (await collect(agent))[-1].reason == "hook_stopped"


async def test_stop_hook_blocks_give_way_after_eight(tmp_path):
    turns = [{"content": [{"type": "text", "text": f"answer {i}"}]} for i in range(10)]
    agent = make_agent(tmp_path, turns, [])
    agent.lifecycle.add(Answers(Stop=LifecycleOutcome(block=True, reason="again")))
    result = (await collect(agent))[-1]
    assert result.reason == "completed" and result.text == "answer 8"  # 8 blocks honoured, the 9th not


async def test_interrupt_during_stream_is_recorded_for_the_model(tmp_path):
    agent = make_agent(tmp_path, [{"content": [{"type": "text", "text": "x", "hang": True}]}], [])

    async def interrupt_soon():
        await asyncio.sleep(0.05)
        agent.interrupt()

    task = asyncio.create_task(interrupt_soon())
    await collect(agent)
    await task
    assert agent.messages[-1] == {"role": "user", "content": "[Request interrupted by user]"}


class FloodTool(Tool):
    name = "Flood"
    description = "test"
    input_model = WaitInput
    read_only = True
    max_result_chars = 1_000

    async def run(self, input, ctx):
        return ToolResult("".join(f"line {i}\n" for i in range(5_000)))


async def test_oversized_result_is_saved_whole_and_previewed(tmp_path):
    agent = make_agent(
        tmp_path,
        [
            {"content": [tool_use("t1", "Flood", key="x")]},
            {"content": [{"type": "text", "text": "ok"}]},
        ],
        [FloodTool()],
    )
    await collect(agent)
    sent = agent.provider.requests[1].messages[-1]["content"][0]["content"]
    saved = tmp_path / "session" / "tool-results" / "t1.txt"
    assert saved.read_text() == "".join(f"line {i}\n" for i in range(5_000))
    assert str(saved) in sent and len(sent) < 3_000 and sent.startswith("line 0\n")

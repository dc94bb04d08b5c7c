"""Switching models mid-session: history conversion between providers, and the overload fallback.

Driven at the loop level with real providers against one scripted server that speaks every wire and
refuses what the real APIs refuse (a thinking signature replayed to another model, a tool call without a
result, another provider's signature fields).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from yoke import events as ev
from yoke.loop.executor import ToolExecutor
from yoke.loop.turn import Agent, LoopSettings
from yoke.providers.anthropic import AnthropicProvider
from yoke.providers.base import ModelFallback, ModelRequest, RetryNotice
from yoke.providers.fallback import FallbackProvider
from yoke.providers.gemini import SKIP_SIGNATURE, GeminiProvider
from yoke.providers.history import FALLBACK_RESULT, answer_dangling, convert_history, switch_provider
from yoke.providers.retry import RetryPolicy
from yoke.session.recorder import Recorder
from yoke.session.records import RecordChain
from yoke.session.transcript import Transcript
from yoke.testing import ScriptedServer
from yoke.testing.gates import SimpleGate
from yoke.tools.base import SessionState, Tool, ToolContext, ToolResult
from yoke.tools.registry import ToolRegistry

POLICY = RetryPolicy(max_retries=2, base_delay=0.001)


class EchoInput(BaseModel):
    text: str


class Echo(Tool):
    name = "Echo"
    description = "Echo text back"
    input_model = EchoInput
    read_only = True

    async def run(self, input, ctx):
        return ToolResult(f"echo: {input.text}")


def make_agent(tmp_path: Path, provider, model: str) -> Agent:
    ctx = ToolContext(cwd=tmp_path, session=SessionState("sid", tmp_path / "s"), working_dirs=[tmp_path])
    executor = ToolExecutor(ToolRegistry([Echo()]), SimpleGate("bypassPermissions"), ctx)
    recorder = Recorder(Transcript(tmp_path / "t.jsonl"), RecordChain(session_id="sid", cwd=str(tmp_path)))
    return Agent(provider=provider, executor=executor, settings=LoopSettings(model=model), recorder=recorder)


async def run(agent: Agent, prompt: str) -> list:
    return [e async for e in agent.query(prompt)]


def echo(id_: str | None, text: str) -> dict:
    block = {"type": "tool_use", "name": "Echo", "input": {"text": text}}
    return {**block, "id": id_} if id_ else block


def result_of(events: list) -> ev.Result:
    return next(e for e in events if isinstance(e, ev.Result))


async def test_anthropic_to_gemini_and_back(tmp_path):
    turns = [
        {
            "content": [
                {"type": "thinking", "thinking": "Echo first.", "signature": "sig-claude-1"},
                echo("toolu_1", "one"),
            ]
        },
        {"content": "first done"},
        {
            "content": [
                {"type": "thinking", "thinking": "Gemini echoes.", "signature": "sig-gemini-1"},
                echo(None, "two"),
            ]
        },
        {"content": "second done"},
        {
            "content": [
                {"type": "thinking", "thinking": "Back again.", "signature": "sig-claude-2"},
                {"type": "text", "text": "third done"},
            ]
        },
    ]
    with ScriptedServer(turns) as srv:
        claude = AnthropicProvider(api_key="k", base_url=srv.url, retry=POLICY)
        gemini = GeminiProvider(api_key="g", base_url=srv.gemini_url, retry=POLICY)
        agent = make_agent(tmp_path, claude, "claude-sonnet-4-6")
        assert result_of(await run(agent, "echo one")).text == "first done"

        to_gemini = switch_provider(
            agent.messages,
            from_model="claude-sonnet-4-6",
            to_model="gemini-2.5-pro",
            from_provider="anthropic",
            to_provider="gemini",
        )
        assert to_gemini.dropped == {"thinking": 1}
        assert to_gemini.notice == (
            "Switched model from claude-sonnet-4-6 to gemini-2.5-pro (anthropic → gemini); dropped 1 thinking block."
        )
        agent.messages[:] = to_gemini.messages
        agent.provider, agent.settings.model = gemini, "gemini-2.5-pro"
        assert result_of(await run(agent, "echo two")).text == "second done"
        gemini_first = srv.requests[2].body["contents"]
        assert all("thought" not in p for c in gemini_first for p in c["parts"]), (
            "Claude's thinking is not sent"
        )
        assert gemini_first[1]["parts"][0]["thoughtSignature"] == SKIP_SIGNATURE

        back = switch_provider(
            agent.messages,
            from_model="gemini-2.5-pro",
            to_model="claude-sonnet-4-6",
            from_provider="gemini",
            to_provider="anthropic",
        )
        assert back.dropped == {"thinking": 1, "signature": 1}
        agent.messages[:] = back.messages
        agent.provider, agent.settings.model = claude, "claude-sonnet-4-6"
        final = await run(agent, "and now?")
        last = srv.requests[-1].body
        await claude.aclose()
        await gemini.aclose()
    assert result_of(final).text == "third done" and not result_of(final).is_error
    blocks = [b for m in last["messages"] if isinstance(m["content"], list) for b in m["content"]]
    assert not [b for b in blocks if b["type"] == "thinking"]
    assert all("signature" not in b for b in blocks if b["type"] == "tool_use")
    assert [b["input"]["text"] for b in blocks if b["type"] == "tool_use"] == ["one", "two"]


def test_conversion_keeps_each_providers_own_material_and_drops_the_rest():
    history = [
        {"role": "user", "content": "x"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "a", "signature": "anthropic-sig"},
                {"type": "thinking", "thinking": "g", "signature": "gemini:gsig"},
                {
                    "type": "thinking",
                    "thinking": "r",
                    "signature": 'openai-responses:{"encrypted_content":"e"}',
                },
                {"type": "thinking", "thinking": "chat reasoning", "signature": ""},
                {"type": "tool_use", "id": "t1", "name": "Echo", "input": {}, "signature": "gemini:call-sig"},
            ],
        },
    ]

    def kept(target: str) -> list:
        content = convert_history(history, target).messages[1]["content"]
        return [b.get("signature") for b in content]

    assert kept("anthropic") == ["anthropic-sig", None]
    assert kept("bedrock") == ["anthropic-sig", None]
    assert kept("gemini") == ["gemini:gsig", "gemini:call-sig"]
    assert kept("openai-responses") == ['openai-responses:{"encrypted_content":"e"}', None]
    assert kept("openai") == [None]
    unchanged = [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
    ]
    converted = convert_history(unchanged, "gemini").messages
    assert converted[1] is unchanged[1], "untouched messages are passed through as they are"


def test_dangling_calls_are_answered_where_they_stand():
    history = [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": [echo("a", "1"), echo("b", "2")]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "ok"}]},
        {"role": "assistant", "content": [echo("c", "3")]},
    ]
    repaired, count = answer_dangling(history)
    assert count == 2
    assert [b["tool_use_id"] for b in repaired[2]["content"]] == ["b", "a"]
    assert repaired[4] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "c", "content": FALLBACK_RESULT, "is_error": True}
        ],
    }


async def test_fallback_after_repeated_overload_with_a_dangling_call(tmp_path):
    """A stream that breaks off mid tool call, then 529s on every retry: the fallback model answers a history
    without the main model's signatures and with the dangling call answered."""
    turns = [
        {
            "content": [
                {"type": "thinking", "thinking": "Start.", "signature": "sig-main"},
                {"type": "text", "text": "Hello."},
            ]
        },
        {
            "content": [
                {"type": "thinking", "thinking": "Fallback thinks.", "signature": "sig-fallback"},
                echo("toolu_f", "from fallback"),
            ],
            # the main model: a stream cut mid tool call, then overloaded three times (the retry budget)
            "fault": [{"stream_error_after": 4}, {"status": 529, "times": 3}],
        },
        {"content": "Done on the fallback."},
    ]
    with ScriptedServer(turns) as srv:
        inner = AnthropicProvider(api_key="k", base_url=srv.url, retry=POLICY)
        provider = FallbackProvider(inner, "claude-haiku-4-5")
        # the main model's earlier turn, its thinking signed for it
        first = [
            e
            async for e in provider.stream(
                ModelRequest("claude-sonnet-4-6", [{"role": "user", "content": "hi"}])
            )
        ]
        history = [
            {"role": "user", "content": "hi"},
            first[-1].message,
            {"role": "user", "content": "now echo"},
            {
                "role": "assistant",
                "content": [echo("toolu_dangling", "never ran")],
            },  # e.g. a resumed, cut-off turn
        ]
        events = [e async for e in provider.stream(ModelRequest("claude-sonnet-4-6", history))]
        fallback_request = srv.requests[-1]
        follow_up = [
            *history,
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_dangling", "content": "late"}],
            },
            events[-1].message,
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_f", "content": "echo: from fallback"}
                ],
            },
        ]
        follow = [e async for e in provider.stream(ModelRequest("claude-sonnet-4-6", follow_up))]
        last_request = srv.requests[-1]
        await provider.aclose()
    kinds = [type(e).__name__ for e in events]
    switch = next(e for e in events if isinstance(e, ModelFallback))
    assert switch.message == "Switched to claude-haiku-4-5 due to high demand for claude-sonnet-4-6"
    # what streamed from the main model is dropped before the switch
    assert kinds.index("ModelFallback") > max(
        i for i, e in enumerate(events) if isinstance(e, RetryNotice) and e.discard_partial
    )
    assert events[-1].model == "claude-haiku-4-5" and events[-1].message["content"][1]["id"] == "toolu_f"
    sent = fallback_request.body
    assert sent["model"] == "claude-haiku-4-5"
    assert sent["messages"][1]["content"] == [{"type": "text", "text": "Hello."}], (
        "the main model's thinking is dropped"
    )
    answered = {k: v for k, v in sent["messages"][-1]["content"][0].items() if k != "cache_control"}
    assert answered == {
        "type": "tool_result",
        "tool_use_id": "toolu_dangling",
        "content": FALLBACK_RESULT,
        "is_error": True,
    }
    # later requests stay on the fallback and keep the fallback's own signatures
    assert (
        last_request.body["model"] == "claude-haiku-4-5"
        and follow[-1].message["content"][0]["text"] == "Done on the fallback."
    )
    kept = [
        b
        for m in last_request.body["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == "thinking"
    ]
    assert kept == [{"type": "thinking", "thinking": "Fallback thinks.", "signature": "sig-fallback"}]


async def test_loop_shows_the_switch_and_counts_the_fallback_models_usage(tmp_path):
    turns = [{"content": "from haiku", "fault": {"status": 529, "times": 3}}]
    with ScriptedServer(turns) as srv:
        inner = AnthropicProvider(api_key="k", base_url=srv.url, retry=POLICY)
        agent = make_agent(tmp_path, FallbackProvider(inner, "claude-haiku-4-5"), "claude-sonnet-4-6")
        events = await run(agent, "hi")
        await inner.aclose()
    notice = next(e for e in events if isinstance(e, ev.Notice) and e.kind == "model_fallback")
    assert notice.data == {"from_model": "claude-sonnet-4-6", "to_model": "claude-haiku-4-5"}
    result = result_of(events)
    assert result.text == "from haiku" and list(result.model_usage) == ["claude-haiku-4-5"]


async def test_an_unpriced_model_gets_one_notice(tmp_path):
    with ScriptedServer([{"content": "a"}, {"content": "b"}]) as srv:
        provider = AnthropicProvider(api_key="k", base_url=srv.url, retry=POLICY)
        agent = make_agent(tmp_path, provider, "claude-experimental-9")
        first, second = await run(agent, "one"), await run(agent, "two")
        await provider.aclose()
    warnings = [e.message for e in first + second if isinstance(e, ev.Notice) and e.kind == "warning"]
    assert warnings == [
        "No price is known for model 'claude-experimental-9': its cost is not counted in total_cost_usd "
        "(token counts still are). Add it to yoke/providers/models.json to count it."
    ]


async def test_a_planned_switch_builds_the_new_vendor_and_converts_the_history(tmp_path):
    from yoke.providers.switch import plan_model_switch

    turns = [
        {"content": [{"type": "thinking", "thinking": "Hm.", "signature": "sig-c"}, echo("toolu_1", "one")]},
        {"content": "claude done"},
        {"content": "gemini done"},
    ]
    with ScriptedServer(turns) as srv:
        env = {
            "ANTHROPIC_API_KEY": "k",
            "ANTHROPIC_BASE_URL": srv.url,
            "GEMINI_API_KEY": "g",
            "GEMINI_BASE_URL": srv.gemini_url,
        }
        claude = AnthropicProvider.from_env(env)
        agent = make_agent(tmp_path, claude, "claude-sonnet-4-6")
        await run(agent, "echo one")
        plan = plan_model_switch(
            "opus", current_provider="gemini", current_model="gemini-2.5-pro", messages=[], env=env
        )
        assert (plan.provider_name, plan.model, plan.provider) == ("gemini", "gemini-3.1-pro-preview", None)
        plan = plan_model_switch(
            "gemini-2.5-pro",
            current_provider="anthropic",
            current_model="claude-sonnet-4-6",
            messages=agent.messages,
            env=env,
        )
        assert plan.provider_name == "gemini" and isinstance(plan.provider, GeminiProvider)
        assert plan.context_window == 1_048_576 and "dropped 1 thinking block" in plan.notice
        agent.provider, agent.settings.model, agent.messages[:] = plan.provider, plan.model, plan.messages
        result = result_of(await run(agent, "and?"))
        await claude.aclose()
        await plan.provider.aclose()
    assert result.text == "gemini done"
    explicit = plan_model_switch(
        "anthropic:sonnet", current_provider="gemini", current_model="x", messages=[], env=env
    )
    assert (explicit.provider_name, explicit.model) == ("anthropic", "claude-sonnet-5-5")  # the alias
    on_bedrock = plan_model_switch(
        "claude-opus-4-7", current_provider="bedrock", current_model="x", messages=[], env={}
    )
    assert on_bedrock.provider_name == "bedrock" and on_bedrock.provider is None

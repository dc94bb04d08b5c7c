"""The session's typed seams (issue 30): front-ends read the `Session`, not its parts; the session's
services are a typed record a child shares by name; prompts go through an injected router; Claude Code's
message shapes are built once, in `yoke.wire`, for the CLI and the SDK alike."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from tests.conftest import anthropic_env

import yoke
from yoke import events as ev
from yoke.session import SessionOptions, open_session
from yoke.testing import ScriptedServer
from yoke.tools.base import SessionState
from yoke.tools.services import SessionServices

SRC = Path(yoke.__file__).parent
FRONT_ENDS = ("cli", "ui", "protocols", "sdk", "batch")
# a front-end walking into the session's parts: session.agent..., ui.session.agent..., .executor.ctx
REACH = re.compile(r"session\.agent\b|\.executor\.ctx\b|\.agent\.executor\b")


def _front_end_files() -> list[Path]:
    return [p for d in FRONT_ENDS for p in sorted((SRC / d).rglob("*.py"))]


def test_front_ends_read_the_session_not_its_parts():
    reaches = [
        f"{path.relative_to(SRC)}:{n}: {line.strip()}"
        for path in _front_end_files()
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if REACH.search(line)
    ]
    assert reaches == []


def test_the_sdk_speaks_through_the_wire_module_not_the_cli():
    sdk = "\n".join(p.read_text() for p in sorted((SRC / "sdk").rglob("*.py")))
    assert "yoke.cli" not in sdk
    assert "yoke.wire" in sdk
    assert not any("skills.session import init_fields" in p.read_text() for p in _front_end_files())


def test_no_string_keyed_service_bag():
    state = SessionState("s", Path("/tmp"))
    assert not hasattr(state, "extras")
    assert isinstance(state.services, SessionServices)
    code = "\n".join(p.read_text() for p in sorted(SRC.rglob("*.py")))
    assert "session.extras" not in code and "SessionState.extras" not in code


def test_a_child_shares_the_named_services_only():
    parent = SessionServices(sandbox=object(), read_withheld=lambda p: False, task_list=object())
    parent.todos = [{"content": "x", "status": "pending"}]
    parent.shell = object()
    parent.agents = object()
    child = parent.for_child()
    assert child.sandbox is parent.sandbox and child.task_list is parent.task_list
    assert child.todos == [] and child.shell is None and child.agents is None
    assert child.read_withheld is None  # as before: Grep in a sub-agent filters nothing of its own


def test_init_message_is_built_once_for_cli_and_sdk():
    from yoke.sdk.convert import MessageConverter
    from yoke.wire.stream import StreamLines

    started = ev.SessionStarted("sid", "m", "/w", ["Read"], "default", "anthropic")
    extra = {"skills": ["deploy"], "output_style": "terse"}
    cli = StreamLines(init_extra={"apiKeySource": "ANTHROPIC_API_KEY", **extra}).lines(started)[0]
    sdk = MessageConverter(init_extra=extra).messages(started)[0].data
    assert cli["subtype"] == sdk["subtype"] == "init"
    assert cli.pop("yoke_version") == yoke.__version__ and "yoke_version" not in sdk
    assert cli.pop("apiKeySource") == "ANTHROPIC_API_KEY" and sdk.pop("apiKeySource") == "none"
    cli.pop("uuid"), sdk.pop("uuid")
    assert list(cli) == list(sdk) and cli == sdk
    assert cli["skills"] == ["deploy"] and cli["output_style"] == "terse"


def _env(srv: ScriptedServer, home: Path) -> dict[str, str]:
    return {
        "HOME": str(home),
        "YOKE_HOME": str(home / ".yoke"),
        "PATH": os.environ["PATH"],
        **anthropic_env(srv),
    }


async def test_session_properties_and_an_injected_route(project, home):
    from yoke.skills.builtin_commands import local_result

    turns = [
        {"content": [{"type": "text", "text": "hello"}], "usage": {"input_tokens": 5, "output_tokens": 1}}
    ]
    with ScriptedServer(turns) as srv:
        session = await open_session(SessionOptions(cwd=project, env=_env(srv, home), persist=False))
        try:

            def ping(session, prompt):
                if prompt != "/ping":
                    return None

                async def events():
                    yield local_result(session.agent, "pong", time.monotonic())

                return events()

            session.router.routes.insert(0, ping)
            routed = [e async for e in session.query("/ping")]
            asked = [e async for e in session.query("hi")]
            assert session.env["HOME"] == str(home)
            assert session.services.agents is not None  # the Agent tool's runner, by name
            init = session.init_fields()
            assert "compact" in init["slash_commands"] and "general-purpose" in init["agents"]
            usage = session.model_usage()
        finally:
            await session.close()
    assert routed[-1].text == "pong" and len(srv.requests) == 1  # the route answered without the model
    assert asked[-1].text == "hello"
    assert list(usage) == [session.model] and usage[session.model].output_tokens == 1


async def test_extensions_are_built_into_the_services_and_the_executor(project, home):
    """The skills runtime, the extensions record and the skills' tool observer are handed to the services and
    the executor when they are made; the runtime reaches the tool context it is part of."""
    skill = project / ".claude" / "skills" / "greet"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: greet\ndescription: Say hello.\n---\nSay hello.\n")
    with ScriptedServer([]) as srv:
        session = await open_session(SessionOptions(cwd=project, env=_env(srv, home), persist=False))
        try:
            services, executor = session.services, session.agent.executor
            extensions = services.extensions
            assert extensions is not None and services.skills is extensions.runtime
            assert services.skills.ctx is executor.ctx
            assert extensions.observer in executor.observers
            assert "Skill" in session.tool_names and "greet" in session.init_fields()["skills"]
        finally:
            await session.close()


async def test_telemetry_is_built_in_by_the_stages(project, home):
    """With traces on, the provider sends through telemetry's transport, and its observer is the agent's and
    the lifecycle's from the start (nothing is attached to the built session)."""
    from yoke.telemetry.attach import TracingTransport

    env_extra = {
        "CLAUDE_CODE_ENABLE_TELEMETRY": "1",
        "OTEL_TRACES_EXPORTER": "otlp",
        "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
        "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9",  # nothing listens: the export fails quietly
        "CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS": "200",
    }
    with ScriptedServer([]) as srv:
        env = {**_env(srv, home), **env_extra}
        session = await open_session(SessionOptions(cwd=project, env=env, persist=False))
        try:
            telemetry = session.stages.model.telemetry
            assert telemetry is not None and telemetry.traces
            assert isinstance(session.agent.provider.transport, TracingTransport)
            assert telemetry.observer in session.agent.observers
            assert telemetry.observer in session.agent.lifecycle.listeners()
        finally:
            await session.close()

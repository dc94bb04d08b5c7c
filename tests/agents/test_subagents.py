"""Sub-agents against the scripted server: parallel agents with their own tools, a background agent, agent
files, SendMessage, the depth limit, worktrees, the shared task list, the lifecycle announcements, and the
stream-json lines a program sees."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import anthropic_env

from yoke import events as ev
from yoke.loop.lifecycle import LifecycleOutcome
from yoke.session import SessionOptions, open_session
from yoke.testing import ScriptedServer


def first_prompt(body: dict[str, Any]) -> str:
    content = body["messages"][0]["content"]
    return content if isinstance(content, str) else " ".join(b.get("text", "") for b in content)


def steps(body: dict[str, Any]) -> int:
    """How many answers the model already gave in this conversation."""
    return sum(1 for m in body["messages"] if m["role"] == "assistant")


def text(t: str) -> dict:
    return {"content": [{"type": "text", "text": t}]}


def call(id_: str, tool: str, **input: Any) -> dict:
    return {"type": "tool_use", "id": id_, "name": tool, "input": input}


def tool_names(body: dict[str, Any]) -> set[str]:
    return {t["name"] for t in body.get("tools", [])}


class Router:
    """Answers each conversation (keyed by its first prompt) with its own script, step by step."""

    def __init__(self, scripts: dict[str, list[dict]]):
        self.scripts = scripts
        self.seen: dict[str, list[dict]] = {}

    def __call__(self, body: dict[str, Any]) -> dict:
        prompt = first_prompt(body)
        for key, script in self.scripts.items():
            if key in prompt:
                self.seen.setdefault(key, []).append(body)
                step = steps(body)
                return script[min(step, len(script) - 1)]
        raise AssertionError(f"no script for {prompt[:80]!r}")


async def run_session(project: Path, home: Path, srv: ScriptedServer, prompt: str, **options: Any):
    env = {"HOME": str(home), "YOKE_HOME": str(home / ".yoke"), "CLAUDE_CONFIG_DIR": str(home / ".claude")}
    env.update({"PATH": __import__("os").environ["PATH"], **anthropic_env(srv)})
    session = await open_session(SessionOptions(cwd=project, env=env, **options))
    try:
        events = [e async for e in session.query(prompt)]
    finally:
        await session.close()
    return session, events


async def test_three_parallel_agents_with_their_own_tools(project, home):
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep\nmodel: inherit\n---\nYou review code.\n"
    )
    router = Router(
        {
            "start three": [
                {
                    "content": [
                        call(
                            "a1", "Agent", description="bg", prompt="BACKGROUND job", run_in_background=True
                        ),
                        call(
                            "a2", "Agent", description="review", prompt="REVIEW job", subagent_type="reviewer"
                        ),
                        call(
                            "a3", "Agent", description="look", prompt="EXPLORE job", subagent_type="Explore"
                        ),
                    ]
                },
                text("all three reported"),
            ],
            "BACKGROUND job": [text("background result")],
            "REVIEW job": [text("review result")],
            "EXPLORE job": [
                {"content": [call("w1", "Write", file_path=str(project / "x.txt"), content="no")]},
                text("explore result"),
            ],
        }
    )
    with ScriptedServer(default_turn=router) as srv:
        session, events = await run_session(
            project, home, srv, "start three", permission_mode="bypassPermissions"
        )
    assert events[-1].reason == "completed" and events[-1].text == "all three reported"
    review = router.seen["REVIEW job"][0]
    assert tool_names(review) == {"Read", "Grep"}
    assert review["system"][0]["text"].startswith("You review code.")
    explore = router.seen["EXPLORE job"][0]
    assert "Write" not in tool_names(explore) and "Edit" not in tool_names(explore)
    assert "AskUserQuestion" not in tool_names(explore)
    assert not (project / "x.txt").exists()  # the Explore agent could not write
    results = {r.tool_use_id: r for r in events if isinstance(r, ev.ToolResultEvent) and r.agent_id == "main"}
    assert results["a2"].block["content"] == "review result"
    assert results["a1"].data["status"] == "async_launched"
    nested = [e for e in events if isinstance(e, ev.AssistantMessage) and e.parent_tool_use_id == "a2"]
    assert nested and nested[0].agent_id.startswith("a")
    transcripts = list(session.session_dir.glob("subagents/agent-*.jsonl"))
    assert len(transcripts) == 3
    assert all(json.loads(p.read_text().splitlines()[0])["isSidechain"] for p in transcripts)


async def test_background_agent_notifies_the_parent(project, home):
    router = Router(
        {
            "delegate": [
                {
                    "content": [
                        call("a1", "Agent", description="bg", prompt="SLOW job", run_in_background=True)
                    ]
                },
                {"content": [call("b1", "Bash", command="sleep 0.5")]},
                text("parent done"),
            ],
            "SLOW job": [text("slow answer")],
        }
    )
    with ScriptedServer(default_turn=router) as srv:
        _, events = await run_session(project, home, srv, "delegate", permission_mode="bypassPermissions")
    assert events[-1].text == "parent done"
    last = router.seen["delegate"][-1]["messages"]
    assert any("<task-notification>" in json.dumps(m) and "slow answer" in json.dumps(m) for m in last)


async def test_send_message_resumes_a_finished_agent(project, home):
    router = Router(
        {
            "talk to it": [
                {"content": [call("a1", "Agent", description="x", prompt="HELPER job", name="helper")]},
                {"content": [call("s1", "SendMessage", to="helper", message="and one more thing")]},
                text("done talking"),
            ],
            "HELPER job": [text("first reply"), text("second reply")],
        }
    )
    with ScriptedServer(default_turn=router) as srv:
        _, events = await run_session(project, home, srv, "talk to it", permission_mode="bypassPermissions")
    results = {r.tool_use_id: r.block["content"] for r in events if isinstance(r, ev.ToolResultEvent)}
    assert results["a1"] == "first reply" and results["s1"] == "second reply"
    resumed = router.seen["HELPER job"][-1]["messages"]
    assert "first reply" in json.dumps(resumed) and "and one more thing" in json.dumps(resumed)


async def test_depth_limit_removes_the_agent_tool(project, home):
    router = Router(
        {
            "level zero": [
                {"content": [call("a0", "Agent", description="d", prompt="LEVEL one")]},
                text("top"),
            ],
            "LEVEL one": [
                {"content": [call("a1", "Agent", description="d", prompt="LEVEL two")]},
                text("one"),
            ],
            "LEVEL two": [
                {"content": [call("a2", "Agent", description="d", prompt="LEVEL three")]},
                text("two"),
            ],
            "LEVEL three": [text("three")],
        }
    )
    with ScriptedServer(default_turn=router) as srv:
        _, events = await run_session(project, home, srv, "level zero", permission_mode="bypassPermissions")
    assert events[-1].text == "top"
    assert "Agent" in tool_names(router.seen["LEVEL two"][0])
    assert "Agent" not in tool_names(router.seen["LEVEL three"][0])


async def test_lifecycle_sees_subagent_start_and_stop(project, home):
    seen: list[tuple[str, dict]] = []
    blocked = []

    class Listener:
        def wants(self, event):
            return event in ("SubagentStart", "SubagentStop", "PreToolUse")

        async def announce(self, event, payload):
            seen.append((event, payload))
            if event == "SubagentStop" and not blocked:
                blocked.append(True)
                return LifecycleOutcome(block=True, reason="check the tests too")
            if event == "SubagentStart":
                return LifecycleOutcome(additional_context="be brief")
            return LifecycleOutcome()

    router = Router(
        {
            "watch it": [
                {"content": [call("a1", "Agent", description="d", prompt="WORKER job")]},
                text("ok"),
            ],
            "WORKER job": [
                {"content": [call("r1", "Read", file_path=str(project / "f"))]},
                text("w1"),
                text("w2"),
            ],
        }
    )
    (project / "f").write_text("x")
    with ScriptedServer(default_turn=router) as srv:
        _, events = await run_session(
            project, home, srv, "watch it", permission_mode="bypassPermissions", listeners=[Listener()]
        )
    start = next(p for e, p in seen if e == "SubagentStart")
    assert start["agent_type"] == "general-purpose" and start["agent_id"].startswith("a")
    stops = [p for e, p in seen if e == "SubagentStop"]
    assert [s["stop_hook_active"] for s in stops] == [False, True]
    assert stops[0]["last_assistant_message"] == "w1" and Path(stops[0]["agent_transcript_path"]).exists()
    inner = [p for e, p in seen if e == "PreToolUse" and p["tool_name"] == "Read"][0]
    assert inner["agent_id"] == start["agent_id"] and inner["agent_type"] == "general-purpose"
    assert "be brief" in first_prompt(router.seen["WORKER job"][0])
    result = next(r for r in events if isinstance(r, ev.ToolResultEvent) and r.tool_use_id == "a1")
    assert result.block["content"] == "w2"


async def test_task_list_is_shared_with_agents(project, home):
    router = Router(
        {
            "plan it": [
                {"content": [call("t1", "TaskCreate", subject="write docs", description="the README")]},
                {"content": [call("a1", "Agent", description="d", prompt="DOER job")]},
                {"content": [call("t3", "TaskList")]},
                text("listed"),
            ],
            "DOER job": [
                {"content": [call("t2", "TaskUpdate", taskId="1", status="completed", owner="doer")]},
                text("did it"),
            ],
        }
    )
    with ScriptedServer(default_turn=router) as srv:
        _, events = await run_session(
            project, home, srv, "plan it", permission_mode="bypassPermissions", model="claude-sonnet-4-5"
        )  # a family offered the task list (providers/models.json)
    listing = next(r for r in events if isinstance(r, ev.ToolResultEvent) and r.tool_use_id == "t3")
    assert listing.block["content"] == "#1 [completed] write docs (owner: doer)"


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.mark.parametrize("changes", [True, False])
async def test_worktree_agent_keeps_changes_or_cleans_up(project, home, changes):
    _git(project, "init", "-q", "-b", "main")
    _git(project, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "init")
    worker = [text("nothing to do")]
    if changes:
        worker = [{"content": [call("b1", "Bash", command="echo hi > made.txt")]}, text("made it")]
    router = Router(
        {
            "isolate": [
                {"content": [call("a1", "Agent", description="d", prompt="TREE job", isolation="worktree")]},
                text("ok"),
            ],
            "TREE job": worker,
        }
    )
    with ScriptedServer(default_turn=router) as srv:
        _, events = await run_session(project, home, srv, "isolate", permission_mode="bypassPermissions")
    result = next(r for r in events if isinstance(r, ev.ToolResultEvent) and r.tool_use_id == "a1")
    trees = (
        list((project / ".claude" / "worktrees").glob("*"))
        if (project / ".claude" / "worktrees").exists()
        else []
    )
    if changes:
        assert len(trees) == 1 and (trees[0] / "made.txt").exists()
        assert not (project / "made.txt").exists()
        assert result.data["worktreePath"] == str(trees[0])
        assert "worktree/" in _git(project, "branch", "--list", "worktree/*")
    else:
        assert trees == []
        assert _git(project, "branch", "--list", "worktree/*") == ""


def test_stream_json_marks_subagent_lines(yoke, project):
    router = Router(
        {
            "nest": [
                {"content": [call("toolu_a", "Agent", description="d", prompt="CHILD job")]},
                text("top"),
            ],
            "CHILD job": [text("child says hi")],
        }
    )
    with ScriptedServer(default_turn=router) as srv:
        run = yoke("-p", "nest", "--output-format", "stream-json", "--verbose", env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    lines = run.lines()
    # as 2.1.330: the task's start, its prompt under the call's id, its end; its text only when forwarded
    kinds = [o.get("subtype") or o["type"] for o in lines]
    assert kinds.index("task_started") < kinds.index("task_notification") < len(kinds) - 2
    started = next(o for o in lines if o.get("subtype") == "task_started")
    assert started["tool_use_id"] == "toolu_a" and started["is_backgrounded"] is False
    prompt = [o for o in lines if o["type"] == "user" and o["parent_tool_use_id"] == "toolu_a"]
    assert prompt[0]["message"]["content"][0]["text"] == "CHILD job"
    ended = next(o for o in lines if o.get("subtype") == "task_notification")
    assert ended["status"] == "completed" and ended["summary"] == "child says hi"
    assert Path(ended["output_file"]).read_text() == "child says hi"
    assert not [o for o in lines if o["type"] == "assistant" and o["parent_tool_use_id"] == "toolu_a"]
    assert lines[-1]["type"] == "result" and lines[-1]["result"] == "top"
    assert sum(1 for o in lines if o["type"] == "result") == 1
    with ScriptedServer(default_turn=router) as srv:
        args = ("-p", "nest", "--output-format", "stream-json", "--verbose", "--forward-subagent-text")
        run = yoke(*args, env=anthropic_env(srv))
    child = [o for o in run.lines() if o["type"] == "assistant" and o["parent_tool_use_id"] == "toolu_a"]
    assert child and child[0]["message"]["content"][0]["text"] == "child says hi"


def test_yoke_agents_lists_definitions_and_skips_bad_files(yoke, project):
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "good.md").write_text("---\nname: good-one\ndescription: fine\n---\nbody\n")
    (agents / "bad.md").write_text("---\nname: Bad:Name\n---\nbody\n")
    run = yoke("agents", "--definitions")
    assert run.code == 0
    assert "good-one" in run.stdout and "Explore" in run.stdout
    assert "bad.md" in run.stderr and run.stderr.count("warning") == 1


async def test_interrupting_the_parent_leaves_a_background_agent_running(project, home):
    env = {"HOME": str(home), "YOKE_HOME": str(home / ".yoke"), "PATH": __import__("os").environ["PATH"]}
    router = Router(
        {
            "go": [
                {
                    "content": [
                        call("a1", "Agent", description="d", prompt="LONG job", run_in_background=True)
                    ]
                },
                {"content": [call("b1", "Bash", command="sleep 30")]},
            ],
            "LONG job": [{"content": [call("b2", "Bash", command="sleep 1")]}, text("long done")],
        }
    )
    with ScriptedServer(default_turn=router) as srv:
        env.update(anthropic_env(srv))
        session = await open_session(
            SessionOptions(cwd=project, env=env, permission_mode="bypassPermissions")
        )
        try:
            events = []

            async def interrupt_soon():
                while "LONG job" not in router.seen:
                    await asyncio.sleep(0.02)
                await asyncio.sleep(0.3)
                session.interrupt()

            task = asyncio.create_task(interrupt_soon())
            events = [e async for e in session.query("go")]
            await task
            assert events[-1].reason == "interrupted"
            runner = session.services.agents
            agent = next(iter(runner.agents.values()))
            await asyncio.wait_for(agent.task, 20)
            assert agent.result.text == "long done"
        finally:
            await session.close()


def test_agent_tool_is_listed_with_its_legacy_name(yoke, project):
    with ScriptedServer([text("hi")]) as srv:
        run = yoke("-p", "hi", "--output-format", "stream-json", "--verbose", env=anthropic_env(srv))
        body = srv.requests[0].body
    assert "Agent" in tool_names(body)
    assert run.code == 0


def test_a_plugin_brings_an_agent(yoke, project, tmp_path):
    plugin = tmp_path / "kit"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "kit", "version": "1.0.0"}))
    (plugin / "agents").mkdir()
    (plugin / "agents" / "helper.md").write_text(
        "---\nname: helper\ndescription: Helps\n---\nYou are the kit helper.\n"
    )
    router = Router(
        {
            "use the kit": [
                {
                    "content": [
                        call("a1", "Agent", description="d", prompt="KIT job", subagent_type="kit:helper")
                    ]
                },
                text("kit done"),
            ],
            "KIT job": [text("helped")],
        }
    )
    with ScriptedServer(default_turn=router) as srv:
        run = yoke(
            "-p",
            "use the kit",
            "--plugin-dir",
            str(plugin),
            "--output-format",
            "json",
            env=anthropic_env(srv),
        )
        first = srv.requests[0].body
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["result"] == "kit done"
    assert router.seen["KIT job"][0]["system"][0]["text"].startswith("You are the kit helper.")
    agent_tool = next(t for t in first["tools"] if t["name"] == "Agent")
    assert "kit:helper" in agent_tool["description"]


def test_worktree_flag_runs_the_session_in_a_worktree(yoke, project, tmp_path):
    _git(project, "init", "-q", "-b", "main")
    _git(project, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "init")
    turns = [
        {"content": [call("b1", "Bash", command="pwd > where.txt")]},
        {"content": [{"type": "text", "text": "ok"}]},
    ]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p",
            "where am I",
            "-w",
            "feature",
            "--permission-mode",
            "bypassPermissions",
            env=anthropic_env(srv),
        )
    assert run.code == 0, run.stderr
    tree = project / ".claude" / "worktrees" / "feature"
    assert (tree / "where.txt").read_text().strip() == str(tree)
    assert "worktree/feature" in _git(project, "branch", "--list", "worktree/*")
    plain = tmp_path / "not-a-repo"
    plain.mkdir()
    outside = yoke("-p", "x", "-w", "f", cwd=plain)
    assert outside.code == 1 and "needs a git repository" in outside.stderr


def test_an_agent_definitions_hooks_apply_to_that_agent_only(yoke, project, home):
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "careful.md").write_text(
        "---\nname: careful\ndescription: Careful worker\nhooks:\n  PreToolUse:\n    - matcher: Bash\n"
        "      hooks:\n        - type: command\n          command: \"echo 'no shell for careful' >&2; exit 2\"\n---\n"
        "You are careful.\n"
    )
    router = Router(
        {
            "delegate": [
                {
                    "content": [
                        call("a1", "Agent", description="d", prompt="CAREFUL job", subagent_type="careful")
                    ]
                },
                {"content": [call("b0", "Bash", command="echo parent > parent.txt")]},
                text("all done"),
            ],
            "CAREFUL job": [
                {"content": [call("b1", "Bash", command="echo child > child.txt")]},
                text("refused"),
            ],
        }
    )
    assert yoke("trust").code == 0
    with ScriptedServer(default_turn=router) as srv:
        run = yoke("-p", "delegate", "--permission-mode", "bypassPermissions", env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    assert not (project / "child.txt").exists()  # the agent's own hook blocked its Bash call
    assert (project / "parent.txt").exists()  # the parent is not bound by the agent's hooks
    child_second = router.seen["CAREFUL job"][1]["messages"]
    assert "no shell for careful" in json.dumps(child_second)


def test_coordinator_agent_runs_workers_in_parallel_and_stops_one(yoke, project):
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "coordinator.md").write_text(
        "---\nname: coordinator\ndescription: Splits work\ntools: Agent, SendMessage, TaskStop\n---\n"
        "You coordinate workers and never do the work yourself.\n"
    )
    router = Router(
        {
            "split it": [
                {
                    "content": [
                        call("w1", "Agent", description="a", prompt="WORKER one"),
                        call("w2", "Agent", description="b", prompt="WORKER two"),
                        call("w3", "Agent", description="c", prompt="SLOW worker", run_in_background=True),
                    ]
                },
                {"content": [call("s1", "TaskStop", task_id="LATER")]},
                text("coordinated"),
            ],
            "WORKER one": [text("one done")],
            "WORKER two": [text("two done")],
            "SLOW worker": [{"content": [call("b1", "Bash", command="sleep 20")]}, text("never")],
        }
    )

    def fill_task_id(body):  # the coordinator stops the background worker by the id it was given
        turn = router(body)
        if turn["content"] and turn["content"][0].get("input", {}).get("task_id") == "LATER":
            launched = json.dumps(body["messages"])
            agent_id = launched.split("agentId: ")[1].split("\\n")[0]
            turn = {"content": [call("s1", "TaskStop", task_id=agent_id)]}
        return turn

    with ScriptedServer(default_turn=fill_task_id) as srv:
        run = yoke(
            "-p",
            "split it",
            "--agent",
            "coordinator",
            "--permission-mode",
            "bypassPermissions",
            "--output-format",
            "json",
            env=anthropic_env(srv),
        )
        first = srv.requests[0].body
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["result"] == "coordinated"
    # SendMessage and TaskStop are deferred behind ToolSearch, as Claude Code 2.1.330 defers them
    assert tool_names(first) == {"Agent", "ToolSearch"}
    search = next(t for t in first["tools"] if t["name"] == "ToolSearch")
    assert "Deferred tools: TaskStop, SendMessage" in search["description"]
    assert first["system"][0]["text"].startswith("You coordinate workers")
    stopped = router.seen["split it"][-1]["messages"]
    assert "Stopped background agent" in json.dumps(stopped)


def test_an_agent_definition_preloads_its_skills(yoke, project):
    skill = project / ".claude" / "skills" / "house-style"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: house-style\ndescription: How we write\n---\nAlways use tabs.\n"
    )
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "writer.md").write_text(
        "---\nname: writer\ndescription: Writes code\nskills: [house-style]\n---\nYou write code.\n"
    )
    router = Router(
        {
            "write it": [
                {
                    "content": [
                        call("a1", "Agent", description="d", prompt="WRITER job", subagent_type="writer")
                    ]
                },
                text("ok"),
            ],
            "WRITER job": [text("written")],
        }
    )
    with ScriptedServer(default_turn=router) as srv:
        run = yoke("-p", "write it", env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    system = json.dumps(router.seen["WRITER job"][0]["system"])
    assert "# Skill: house-style" in system and "Always use tabs." in system


def test_an_agent_with_project_memory_writes_its_notes_unasked(yoke, project):
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "scribe.md").write_text(
        "---\nname: scribe\ndescription: Keeps notes\nmemory: project\n---\nYou keep notes.\n"
    )
    folder = project / ".claude" / "agent-memory" / "scribe"
    router = Router(
        {
            "take notes": [
                {
                    "content": [
                        call("a1", "Agent", description="d", prompt="SCRIBE job", subagent_type="scribe")
                    ]
                },
                text("ok"),
            ],
            "SCRIBE job": [
                {
                    "content": [
                        call(
                            "w1",
                            "Write",
                            file_path=str(folder / "MEMORY.md"),
                            content="- [x](x.md) — a note\n",
                        )
                    ]
                },
                text("noted"),
            ],
        }
    )
    with ScriptedServer(default_turn=router) as srv:
        run = yoke("-p", "take notes", "--output-format", "json", env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["permission_denials"] == []  # no question for its own memory folder
    assert (folder / "MEMORY.md").read_text() == "- [x](x.md) — a note\n"
    assert str(folder) in json.dumps(router.seen["SCRIBE job"][0]["system"])


def test_task_output_waits_for_a_background_agent(yoke, project):
    router = Router(
        {
            "fan out": [
                {"content": [call("a1", "Agent", description="d", prompt="BG job", run_in_background=True)]},
                {"content": [call("o1", "TaskOutput", task_id="LATER")]},
                text("collected"),
            ],
            "BG job": [{"content": [call("b1", "Bash", command="sleep 0.5")]}, text("background answer")],
        }
    )

    def with_id(body):
        turn = router(body)
        if turn["content"] and turn["content"][0].get("input", {}).get("task_id") == "LATER":
            agent_id = json.dumps(body["messages"]).split("agentId: ")[1].split("\\n")[0]
            turn = {"content": [call("o1", "TaskOutput", task_id=agent_id)]}
        return turn

    with ScriptedServer(default_turn=with_id) as srv:
        run = yoke("-p", "fan out", "--permission-mode", "bypassPermissions", env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    last = json.dumps(router.seen["fan out"][-1]["messages"])
    assert "<status>completed</status>" in last and "background answer" in last


def test_an_agent_definitions_own_mcp_server(yoke, project):
    from tests.mcp_support.helpers import stdio_entry

    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    definition = {
        "name": "calculator",
        "description": "Adds",
        "mcpServers": [{"calc": stdio_entry()}],
    }
    import yaml

    (agents / "calculator.md").write_text(f"---\n{yaml.safe_dump(definition)}---\nYou add numbers.\n")
    assert yoke("trust").code == 0  # a project's definition starts its servers only in a trusted folder
    router = Router(
        {
            "sum it": [
                {
                    "content": [
                        call("a1", "Agent", description="d", prompt="CALC job", subagent_type="calculator")
                    ]
                },
                text("ok"),
            ],
            "CALC job": [{"content": [call("m1", "mcp__calc__add", a=2, b=3)]}, text("five")],
        }
    )
    with ScriptedServer(default_turn=router) as srv:
        run = yoke("-p", "sum it", "--permission-mode", "bypassPermissions", env=anthropic_env(srv))
        parent_tools = tool_names(srv.requests[0].body)
    assert run.code == 0, run.stderr
    assert "mcp__calc__add" in tool_names(router.seen["CALC job"][0])
    assert "mcp__calc__add" not in parent_tools  # the server belongs to the agent only
    result = router.seen["CALC job"][1]["messages"][-1]["content"][0]
    assert result["tool_use_id"] == "m1" and not result.get("is_error") and "5" in json.dumps(result)


async def test_closing_the_session_cancels_a_named_background_agent(project, home, capsys):
    """A named agent is filed under its id and its name; closing cancels it once, without a warning."""
    env = {"HOME": str(home), "YOKE_HOME": str(home / ".yoke"), "PATH": __import__("os").environ["PATH"]}
    router = Router(
        {
            "go": [
                {
                    "content": [
                        call(
                            "a1",
                            "Agent",
                            description="d",
                            prompt="FOREVER job",
                            name="worker",
                            run_in_background=True,
                        )
                    ]
                },
                text("started it"),
            ],
            "FOREVER job": [{"content": [call("b1", "Bash", command="sleep 60")]}, text("never")],
        }
    )
    with ScriptedServer(default_turn=router) as srv:
        env.update(anthropic_env(srv))
        session = await open_session(
            SessionOptions(cwd=project, env=env, permission_mode="bypassPermissions")
        )
        try:
            events = [e async for e in session.query("go")]
            assert events[-1].text == "started it"
            runner = session.services.agents
            agent = runner.agents["worker"]
            assert runner.agents[agent.id] is agent and agent.running
            while "FOREVER job" not in router.seen:
                await asyncio.sleep(0.02)
        finally:
            await asyncio.wait_for(session.close(), 20)
    assert agent.task.done() and agent.result is None
    assert "closing sub-agents failed" not in capsys.readouterr().err

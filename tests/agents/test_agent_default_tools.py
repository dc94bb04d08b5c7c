"""The tools a sub-agent is offered, as the bundled Claude Code (2.1.332) offers them (read off its requests
to the scripted server): a foreground agent with no `tools:` line gets ListAgents, a background one never
does, even when its `tools:` names it."""

from __future__ import annotations

import sys

import pytest

from yoke.testing.side_by_side import run_scenario

YOKE = f"{sys.executable} -m yoke"


def _sub_agent_tools(frontmatter: str, background: bool) -> list[str]:
    call = {"subagent_type": "helper", "description": "d", "prompt": "SUBPROMPT look around"}
    if not background:
        call["run_in_background"] = False
    scenario = {
        "argv": ["-p", "go", "--output-format", "stream-json", "--verbose"],
        "files": {
            ".claude/agents/helper.md": f"---\nname: helper\ndescription: helps\n{frontmatter}---\nHelp.\n"
        },
        "turns": [
            {"content": [{"type": "tool_use", "id": "toolu_a", "name": "Agent", "input": call}]},
            {"content": [{"type": "text", "text": "done"}]},
        ],
        "agent_turns": {"SUBPROMPT": [{"content": [{"type": "text", "text": "sub done"}]}]},
    }
    run = run_scenario(YOKE, scenario)
    assert run["code"] == 0, run["stderr"]
    (sub,) = [b for b in run["requests"] if "SUBPROMPT" in str(b["messages"][0])]
    return sorted(t["name"] for t in sub["tools"])


@pytest.mark.parametrize("frontmatter", ["", "tools: ListAgents, Read\n"])
def test_a_background_agent_is_never_offered_list_agents(frontmatter):
    tools = _sub_agent_tools(frontmatter, background=True)
    assert "ListAgents" not in tools and ("Read" in tools)


def test_a_foreground_agent_with_no_tools_line_gets_list_agents():
    tools = _sub_agent_tools("", background=False)
    assert "ListAgents" in tools and "Bash" in tools

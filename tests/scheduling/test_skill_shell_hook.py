"""The PreSkillShellCommand hook event through `yoke -p` against the scripted server: a project skill with a
`!` line, invoked by the model, announces the event before the line runs with 2.1.332's fields; a hook that
blocks it keeps the line from running."""

from __future__ import annotations

import json

from tests.agents.test_subagents import call, text
from tests.conftest import anthropic_env
from tests.scheduling.test_scheduler import FIXTURE

from yoke.testing import ScriptedServer

SKILL = "---\nname: shy\ndescription: a skill\n---\nHere: !`echo hi-from-skill > ran.txt; echo ok`\n"


def _setup(project, home, hook_command: str) -> None:
    from yoke.config.trust import trust_folder

    trust_folder(project, home / ".yoke")
    (project / ".claude" / "skills" / "shy").mkdir(parents=True)
    (project / ".claude" / "skills" / "shy" / "SKILL.md").write_text(SKILL)
    hooks = {"PreSkillShellCommand": [{"hooks": [{"type": "command", "command": hook_command}]}]}
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))


def test_the_event_carries_2_1_332s_fields(project, home, yoke):
    _setup(project, home, "cat > hook-input.json")
    turns = [{"content": [call("toolu_s1", "Skill", skill="shy")]}, text("done")]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "use shy", "--permission-mode", "bypassPermissions", env=anthropic_env(srv))
    assert run.code == 0, run.stderr
    sent = json.loads((project / "hook-input.json").read_text())
    # `prompt_id` and `effort` are common fields 2.1.332 adds to every hook input; Yoke's common fields
    # lack them for every event (docs/scheduling.md), so they are the only difference
    assert set(FIXTURE["pre_skill_shell_command"]["fields"]) - set(sent) == {"prompt_id", "effort"}
    assert set(sent) <= set(FIXTURE["pre_skill_shell_command"]["fields"])
    assert sent["hook_event_name"] == "PreSkillShellCommand" and sent["tool_name"] == "Bash"
    assert sent["tool_input"] == {"command": "echo hi-from-skill > ran.txt; echo ok"}
    assert sent["tool_use_id"] == "toolu_s1:preamble-0"
    assert (sent["command_name"], sent["command_source"], sent["invoked_by"]) == (
        "shy",
        "projectSettings",
        "claude",
    )
    assert (project / "ran.txt").exists()


def test_a_blocking_hook_keeps_the_line_from_running(project, home, yoke):
    _setup(project, home, """echo '{"decision": "block", "reason": "no shell in skills here"}'""")
    turns = [{"content": [call("toolu_s1", "Skill", skill="shy")]}, text("done")]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "use shy", "--permission-mode", "bypassPermissions", env=anthropic_env(srv))
        second = json.dumps(srv.requests[-1].body["messages"][-1])
    assert run.code == 0, run.stderr
    assert not (project / "ran.txt").exists()
    assert "no shell in skills here" in second

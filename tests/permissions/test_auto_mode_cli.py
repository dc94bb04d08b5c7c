"""Auto mode end to end: the scripted server plays both the agent's model and the classifier."""

from __future__ import annotations

import json

from tests.conftest import anthropic_env

from yoke.permissions.auto_mode import is_risky_rule
from yoke.permissions.rules import parse_rules
from yoke.testing import ScriptedServer


def bash(command: str, tool_id: str = "toolu_1") -> dict:
    """A command the classifier is asked about: `touch` inside the project alone would be an edit auto mode
    allows without asking (its acceptEdits baseline), so it runs through `sh -c`."""
    if command.startswith("touch "):
        command = f"sh -c '{command}'"
    return {"content": [{"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command}}]}


def text(words: str, **extra) -> dict:
    return {"content": [{"type": "text", "text": words}], **extra}


def run_auto(yoke, turns, *flags, env=None):
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p", "make the file", "--permission-mode", "auto", "--output-format", "json", *flags,
            env={**anthropic_env(srv), **(env or {})},
        )  # fmt: skip
        requests = [r.body for r in srv.requests]
    return run, requests


def test_fast_stage_allows(yoke, project):
    run, requests = run_auto(yoke, [bash("touch made.txt"), text("ALLOW"), text("Made it.")])
    assert run.code == 0, run.stderr
    assert (project / "made.txt").exists()
    result = json.loads(run.stdout)
    assert result["permission_denials"] == [] and result["result"] == "Made it."
    classifier = requests[1]
    assert classifier["max_tokens"] <= 64 and not classifier.get("tools")
    assert "touch made.txt" in json.dumps(classifier["messages"])
    assert "make the file" in json.dumps(classifier["messages"])


def test_edits_inside_the_project_need_no_classifier(yoke, project):
    """Auto mode starts from acceptEdits: a plain `touch` or a Write in the project runs unasked (2.1.330)."""
    write = {
        "type": "tool_use",
        "id": "toolu_w",
        "name": "Write",
        "input": {"file_path": "w.txt", "content": "w"},
    }
    run, requests = run_auto(
        yoke, [{"content": [{"type": "tool_use", "id": "toolu_t", "name": "Bash", "input": {"command": "touch t.txt"}}]},
               {"content": [write]}, text("Made them.")],
    )  # fmt: skip
    assert run.code == 0, run.stderr
    assert (project / "t.txt").exists() and (project / "w.txt").read_text() == "w"
    assert len(requests) == 3 and all(r.get("tools") for r in requests)


def test_reasoning_stage_blocks(yoke, project):
    turns = [
        bash("touch evil.txt"),
        text("BLOCK"),
        text("The user asked for something else.\nDECISION: BLOCK\nREASON: not what the user asked"),
        text("Understood."),
    ]
    run, requests = run_auto(yoke, turns)
    assert run.code == 0, run.stderr
    assert not (project / "evil.txt").exists()
    result = json.loads(run.stdout)
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Bash"]
    told = json.dumps(requests[3]["messages"][-1])
    assert "Auto mode blocked" in told and "not what the user asked" in told
    assert requests[2]["max_tokens"] > requests[1]["max_tokens"]


def test_garbage_from_the_classifier_never_allows(yoke, project):
    turns = [bash("touch maybe.txt"), text("banana"), text("I like turtles."), text("Ok.")]
    run, _ = run_auto(yoke, turns)
    assert run.code == 0, run.stderr
    assert not (project / "maybe.txt").exists()
    assert len(json.loads(run.stdout)["permission_denials"]) == 1


def test_a_classifier_that_times_out_never_allows(yoke, project):
    turns = [bash("touch slow.txt"), text("ALLOW", delay=3), text("Ok.")]
    run, _ = run_auto(yoke, turns, env={"YOKE_AUTO_MODE_TIMEOUT": "1"})
    assert run.code == 0, run.stderr
    assert not (project / "slow.txt").exists()
    assert len(json.loads(run.stdout)["permission_denials"]) == 1


def test_risky_allow_rule_is_suspended_in_auto_mode(yoke, project):
    turns = [bash("python3 -c 'open(\"p.txt\",\"w\")'"), text("BLOCK"), text("DECISION: BLOCK\nREASON: code"),
             text("Ok.")]  # fmt: skip
    run, requests = run_auto(yoke, turns, "--allowedTools", "Bash(python3:*)")
    assert run.code == 0, run.stderr
    assert not (project / "p.txt").exists()
    assert len(requests) == 4  # the rule did not settle it: the classifier was asked


def test_rules_still_settle_calls_without_the_classifier(yoke, project):
    outside = {"command": "touch ../ruled.txt"}  # outside the project: no acceptEdits baseline, the rule
    call = {"content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": outside}]}
    run, requests = run_auto(yoke, [call, text("Done.")], "--allowedTools", "Bash(touch:*)")
    assert run.code == 0, run.stderr
    assert (project.parent / "ruled.txt").exists() and len(requests) == 2


def test_consecutive_denials_fall_back_to_asking(yoke, project):
    turns = []
    for i in range(4):
        turns += [bash(f"touch f{i}.txt", f"toolu_{i}"), text("BLOCK"), text("DECISION: BLOCK\nREASON: no")]
    turns = turns[:-2] + [text("Giving up.")]  # the 4th call reaches no classifier: asked (headless: denied)
    run, requests = run_auto(yoke, turns)
    assert run.code == 0, run.stderr
    assert len(json.loads(run.stdout)["permission_denials"]) == 4
    assert len(requests) == 3 * 3 + 1 + 1


def test_which_rules_are_risky(tmp_path):
    rules = parse_rules(
        ["Bash(python:*)", "Bash(sudo apt *)", "Bash", "Agent", "Bash(git log:*)", "Read", "Bash(npm test)"],
        "allow", "cli", tmp_path, "--allowedTools", [],
    )  # fmt: skip
    assert [is_risky_rule(r) for r in rules] == [True, True, True, True, False, False, False]

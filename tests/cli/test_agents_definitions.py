"""`yoke agents --definitions`: the agent definitions a session here can use, as a user runs the command."""

from __future__ import annotations

from pathlib import Path


def test_definitions_list_built_in_and_project_agents_and_warn_about_a_broken_file(yoke, project: Path):
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews a diff\n---\nYou review diffs.\n", encoding="utf-8"
    )
    (agents / "broken.md").write_text("---\nname: broken\n---\nNo description.\n", encoding="utf-8")
    run = yoke("agents", "--definitions")
    assert run.code == 0, run.stderr
    rows = {line.split()[0]: line.split()[1:] for line in run.stdout.splitlines()}
    assert rows["reviewer"][0] == "project"
    assert rows["reviewer"][1] == str(agents / "reviewer.md")
    assert "general-purpose" in rows  # a built-in: no file
    assert len(rows["general-purpose"]) == 1
    assert "broken.md" in run.stderr


def test_definitions_refuse_an_argument_in_one_line(yoke):
    run = yoke("agents", "--definitions", "extra")
    assert run.code == 2
    assert run.stderr.strip() == "yoke agents: unexpected argument 'extra' (see yoke agents --help)"

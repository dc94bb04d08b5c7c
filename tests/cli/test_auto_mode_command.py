"""`yoke auto-mode defaults|config|critique` as Claude Code's `claude auto-mode`, and the classifier of a
real `--permission-mode auto` run reading the same rules."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import anthropic_env

from yoke.permissions.auto_mode_rules import DEFAULT_RULES, SECTIONS
from yoke.testing import ScriptedServer


def write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_defaults_prints_the_built_in_rules_as_json(yoke):
    run = yoke("auto-mode", "defaults")
    assert run.code == 0, run.stderr
    rules = json.loads(run.stdout)
    assert list(rules) == list(SECTIONS)
    assert all(rules[k] and all(isinstance(r, str) for r in rules[k]) for k in SECTIONS)
    assert run.stdout == json.dumps(rules, indent=2) + "\n"
    assert run.stderr == ""


def test_config_without_settings_is_the_defaults(yoke):
    run = yoke("auto-mode", "config")
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout) == DEFAULT_RULES


def test_config_replaces_written_sections_and_splices_defaults(yoke, home, project):
    write(
        home / ".claude" / "settings.json",
        {
            "autoMode": {
                "environment": ["Source control: github.com/acme and all its repositories"],
                "allow": ["$defaults", "Pushing to branches of github.com/acme repositories"],
                "soft_deny": [],
            }
        },
    )
    write(project / ".claude" / "settings.local.json", {"autoMode": {"hard_deny": ["Never touch prod-db"]}})
    write(project / ".claude" / "settings.json", {"autoMode": {"allow": ["Anything at all"]}})
    run = yoke("auto-mode", "config")
    assert run.code == 0, run.stderr
    rules = json.loads(run.stdout)
    assert rules["environment"] == ["Source control: github.com/acme and all its repositories"]
    assert rules["allow"] == [*DEFAULT_RULES["allow"], "Pushing to branches of github.com/acme repositories"]
    assert rules["soft_deny"] == DEFAULT_RULES["soft_deny"]  # empty: the built-in section stays
    assert rules["hard_deny"] == ["Never touch prod-db"]  # local settings count
    assert "Anything at all" not in run.stdout  # the project's shared file does not


def test_a_section_that_is_not_a_list_is_warned_about(yoke, home):
    write(home / ".claude" / "settings.json", {"autoMode": {"allow": "push anywhere"}})
    run = yoke("auto-mode", "config")
    assert run.code == 0
    assert json.loads(run.stdout)["allow"] == DEFAULT_RULES["allow"]
    assert "warning: autoMode.allow must be a list of rule sentences; it is ignored" in run.stderr


def test_bad_usage_is_one_error_and_exit_1(yoke):
    for argv, line in [
        (["auto-mode", "frobnicate"], "error: unknown command 'frobnicate'"),
        (["auto-mode", "defaults", "--json"], "error: unknown option '--json'"),
        (["auto-mode", "critique", "--model"], "error: option '--model <model>' argument missing"),
    ]:
        run = yoke(*argv)
        assert run.code == 1, argv
        assert run.stderr.splitlines()[0] == line
        assert run.stdout == ""
    run = yoke("auto-mode")
    assert run.code == 1 and run.stderr.startswith("usage: yoke auto-mode")


def test_critique_without_custom_rules_asks_no_model(yoke):
    with ScriptedServer([]) as srv:
        run = yoke("auto-mode", "critique", env=anthropic_env(srv))
        requests = srv.requests
    assert run.code == 0
    assert run.stdout.startswith("No custom auto mode rules found.")
    assert requests == []


def test_critique_sends_the_rules_and_prints_the_review(yoke, home):
    write(home / ".claude" / "settings.json", {"autoMode": {"allow": ["Run anything in /tmp"]}})
    review = "The allow rule 'Run anything in /tmp' is too broad: say which commands."
    with ScriptedServer([{"content": [{"type": "text", "text": review}]}]) as srv:
        run = yoke("auto-mode", "critique", "--model", "claude-haiku-4-5", env=anthropic_env(srv))
        body = srv.requests[0].body
    assert run.code == 0, run.stderr
    assert run.stdout == review + "\n"
    assert body["model"] == "claude-haiku-4-5"
    assert "Run anything in /tmp" in json.dumps(body["messages"])
    system = json.dumps(body["system"])
    assert DEFAULT_RULES["hard_deny"][0][:40] in system and "$defaults" in system


def test_critique_reports_a_model_error_in_one_line(yoke, home):
    write(home / ".claude" / "settings.json", {"autoMode": {"allow": ["Run tests"]}})
    with ScriptedServer(
        [
            {
                "content": [{"type": "text", "text": "x"}],
                "fault": {"status": 401, "message": "bad key", "times": "always"},
            }
        ]
    ) as srv:
        run = yoke("auto-mode", "critique", env=anthropic_env(srv))
    assert run.code == 1
    assert run.stdout == ""
    assert run.stderr.startswith("yoke auto-mode critique: Invalid API key")
    assert len(run.stderr.strip().splitlines()) == 1


def test_the_classifier_reads_the_same_rules(yoke, home, project):
    write(
        home / ".claude" / "settings.json",
        {"autoMode": {"environment": ["Trusted bucket: s3://acme-builds"]}},
    )
    write(project / ".claude" / "settings.json", {"autoMode": {"allow": ["Uploading anything anywhere"]}})
    turns = [
        {
            "content": [
                {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "touch ../a.txt"}}
            ]
        },
        {"content": [{"type": "text", "text": "ALLOW"}]},
        {"content": [{"type": "text", "text": "Done."}]},
    ]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "make a.txt", "--permission-mode", "auto", env=anthropic_env(srv))
        classifier = srv.requests[1].body
    assert run.code == 0, run.stderr
    system = json.dumps(classifier["system"])
    assert "Trusted bucket: s3://acme-builds" in system
    assert DEFAULT_RULES["soft_deny"][0] in system and DEFAULT_RULES["hard_deny"][0] in system
    assert "Uploading anything anywhere" not in system
    assert classifier["output_config"] == {"effort": "low"}  # a quick judgement (the default model takes it)

"""`yoke config` on the command line: what it writes is what the next run reads."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer


def test_set_get_list_and_the_next_run_uses_it(yoke, project):
    assert yoke("config", "set", "model", "haiku").code == 0
    assert yoke("config", "set", "effortLevel", "low").code == 0
    added = yoke("config", "add", "permissions.allow", "Bash(ls:*)")
    assert added.code == 0, added.stderr
    local = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert local == {"model": "haiku", "effortLevel": "low", "permissions": {"allow": ["Bash(ls:*)"]}}
    assert yoke("config", "get", "model").stdout == "haiku\n"
    assert yoke("config", "get", "permissions.allow").stdout == '["Bash(ls:*)"]\n'
    listing = yoke("config").stdout
    assert 'model = "haiku"' in listing and "settings.local.json (local)" in listing
    with ScriptedServer([{"content": [{"type": "text", "text": "done"}]}]) as srv:
        run = yoke("-p", "hi", env=anthropic_env(srv))
        body = srv.requests[0].body
    assert run.code == 0, run.stderr
    assert body["model"] == "claude-haiku-5-5" and body["output_config"] == {"effort": "low"}
    assert yoke("config", "remove", "permissions.allow", "Bash(ls:*)").code == 0
    assert yoke("config", "unset", "model").code == 0
    local = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert local == {"effortLevel": "low", "permissions": {"allow": []}}


def test_global_and_project_scopes(yoke, project, base_env):
    assert yoke("config", "set", "--global", "outputStyle", "Explanatory").code == 0
    assert yoke("config", "set", "--project", "includeCoAuthoredBy", "false").code == 0
    user = json.loads((Path(base_env["HOME"]) / ".claude" / "settings.json").read_text())
    assert user == {"outputStyle": "Explanatory"}
    assert json.loads((project / ".claude" / "settings.json").read_text()) == {"includeCoAuthoredBy": False}
    assert yoke("config", "get", "outputStyle").stdout == "Explanatory\n"


def test_bad_input_is_one_line(yoke, project):
    for args, words in (
        (("config", "set", "defaultMode", "bogus"), "defaultMode must be one of"),
        (("config", "set", "effortLevel", "huge"), "effortLevel must be one of"),
        (("config", "frob"), "unknown command 'frob'"),
        (("config", "get", "nope"), "nope is not set"),
        (("config", "set", "model"), "usage: yoke config"),
    ):
        run = yoke(*args)
        assert run.code == 1 and run.stderr.count("\n") == 1 and words in run.stderr, (args, run.stderr)
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.local.json").write_text("{not json")
    run = yoke("config", "set", "model", "opus")
    assert run.code == 1 and "is not valid JSON" in run.stderr and "Traceback" not in run.stderr


def test_set_of_a_key_nobody_reads_warns_and_writes(yoke, project):
    """A typo is written (the user asked) but said to be unknown; a real key, Claude Code's or Yoke's, is not."""
    typo = yoke("config", "set", "nosuchkey", "1")
    assert typo.code == 0
    assert typo.stderr.strip() == (
        "yoke config: warning: nosuchkey is not a setting Yoke or Claude Code reads; written anyway"
    )
    assert json.loads((project / ".claude" / "settings.local.json").read_text())["nosuchkey"] == 1
    for key, value in (("spinnerVerbs", '{"mode": "append", "verbs": ["Pondering"]}'), ("modelPrices", "{}"),
                       ("cleanupPeriodDays", "20"), ("permissions.defaultMode", "acceptEdits")):  # fmt: skip
        run = yoke("config", "set", key, value)
        assert run.code == 0 and run.stderr == "", (key, run.stderr)


def test_doctor_does_not_say_no_settings_files_above_the_file_it_could_not_read(yoke, project):
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text("{ bad")
    run = yoke("doctor", "--offline")
    assert "no settings files" not in run.stdout
    assert "no settings file could be used" in run.stdout and "invalid JSON" in run.stdout


def test_doctor_names_a_2_1_332_setting_it_does_not_act_on(yoke, project):
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"spinnerVerbs": {"verbs": ["Pondering"]}}))
    run = yoke("doctor", "--offline")
    assert "spinnerVerbs: set, not acted on by Yoke" in run.stdout

"""Profiles (`yoke profile`, docs/movein.md): `--profile` switches the server, the model and what a front-end
shows; a key comes from the reference the profile names and is written nowhere; a project's profile helper
does not run in an untrusted folder; `yoke doctor` checks each profile's model against its server."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from yoke.testing import ScriptedServer

SECRET = "sk-from-the-helper-" + "7f3a9c"  # built so this file's text does not hold it whole


def helper(tmp: Path, name: str = "keyring-helper") -> Path:
    """A program that prints a key (as a keyring helper would), outside Yoke's home."""
    path = tmp / name
    path.write_text("#!/bin/sh\nprintf '%s%s\\n' sk-from-the-helper- 7f3a9c\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _grep_home(home: Path, text: str) -> list[str]:
    found = subprocess.run(["grep", "-rl", text, str(home)], capture_output=True, text=True).stdout
    return found.split()


def test_two_profiles_against_two_servers(yoke, home, project, tmp_path):
    key_helper = helper(tmp_path)
    with (
        ScriptedServer(default_turn={"content": "from A"}) as a,
        ScriptedServer(default_turn={"content": "from B"}) as b,
    ):
        add_a = ["profile", "add", "work", "--provider", "anthropic", "--model", "claude-sonnet-4-5"]
        assert yoke(*add_a, "--base-url", a.url, "--key-env", "WORK_KEY").code == 0
        add_b = [
            "profile",
            "add",
            "lab",
            "--provider",
            "openai",
            "--model",
            "gpt-4o",
            "--base-url",
            b.openai_url,
        ]
        added = yoke(*add_b, "--key-command", str(key_helper), "--budget", "3")
        assert added.code == 0, added.stderr
        listed = yoke("profile", "list")
        assert "work" in listed.stdout and "lab" in listed.stdout and "key from command" in listed.stdout

        stream = ["--output-format", "stream-json", "--verbose"]
        run_a = yoke("-p", "hi", "--profile", "work", *stream, env={"WORK_KEY": "sk-work-env"})
        assert run_a.code == 0, run_a.stderr
        run_b = yoke("-p", "hi", "--profile", "lab", *stream)
        assert run_b.code == 0, run_b.stderr

        assert [r.path for r in a.requests] == ["/v1/messages"] and not any(
            r.path.endswith("/chat/completions") for r in a.requests
        )
        assert a.requests[0].body["model"] == "claude-sonnet-4-5"
        assert a.requests[0].headers.get("x-api-key") == "sk-work-env"
        assert [r.path for r in b.requests] == ["/v1/chat/completions"]
        assert b.requests[0].body["model"] == "gpt-4o"
        assert b.requests[0].headers.get("authorization") == f"Bearer {SECRET}"  # the helper's key, passed

    init_a = next(o for o in run_a.lines() if o.get("subtype") == "init")
    init_b = next(o for o in run_b.lines() if o.get("subtype") == "init")
    assert (init_a["profile"], init_a["model"]) == ("work", "claude-sonnet-4-5")
    assert (init_b["profile"], init_b["model"]) == ("lab", "gpt-4o")
    assert run_b.result()["result"] == "from B"
    # the key the helper printed is nowhere in Yoke's home: not the profile, not the transcript
    assert _grep_home(home, SECRET) == []
    profiles = json.loads((home / ".yoke" / "profiles.json").read_text())
    assert profiles["profiles"]["lab"]["credential"] == {"command": str(key_helper)}
    assert stat.S_IMODE(os.stat(home / ".yoke" / "profiles.json").st_mode) == 0o600


def test_profile_chosen_by_the_project_and_by_default(yoke, project):
    with (
        ScriptedServer(default_turn={"content": "ok"}) as a,
        ScriptedServer(default_turn={"content": "ok"}) as b,
    ):
        assert yoke("profile", "add", "one", "--provider", "anthropic", "--model", "claude-haiku-4-5",
                    "--base-url", a.url, "--key-env", "K").code == 0  # fmt: skip
        assert yoke("profile", "add", "two", "--provider", "anthropic", "--model", "claude-opus-4-1",
                    "--base-url", b.url, "--key-env", "K").code == 0  # fmt: skip
        assert yoke("profile", "use", "one").code == 0
        assert yoke("-p", "hi", env={"K": "k"}).code == 0
        assert yoke("profile", "use", "two", "--project").code == 0  # .yoke/profile beats the default
        assert (project / ".yoke" / "profile").read_text().strip() == "two"
        assert yoke("-p", "hi", env={"K": "k"}).code == 0
        assert yoke("-p", "hi", "--profile", "one", env={"K": "k"}).code == 0  # the flag beats both
    assert [r.body["model"] for r in a.requests] == ["claude-haiku-4-5", "claude-haiku-4-5"]
    assert [r.body["model"] for r in b.requests] == ["claude-opus-4-1"]


def test_an_untrusted_projects_profile_helper_does_not_run(yoke, project, tmp_path):
    marker = tmp_path / "helper-ran"
    (project / ".yoke").mkdir()
    (project / ".yoke" / "profiles.json").write_text(
        json.dumps(
            {
                "profiles": {
                    "theirs": {
                        "provider": "anthropic",
                        "baseUrl": "http://127.0.0.1:9",
                        "credential": {"command": f"touch {marker}; echo sk-x"},
                    }
                }
            }
        )
    )
    (project / ".yoke" / "profile").write_text("theirs\n")
    with ScriptedServer(default_turn={"content": "own server"}) as srv:
        run = yoke(
            "-p",
            "hi",
            "--output-format",
            "json",
            env={"ANTHROPIC_BASE_URL": srv.url, "ANTHROPIC_API_KEY": "sk-mine"},
        )
        assert run.code == 0, run.stderr
        assert len(srv.requests) == 1  # the project's base URL was not used either
    assert not marker.exists()
    assert "ignored until this folder is trusted" in run.stderr
    doctor = yoke("doctor", "--offline")
    assert not marker.exists() and "not used or checked until this folder is trusted" in doctor.stdout
    assert yoke("trust").code == 0
    yoke("-p", "hi")  # trusted: the helper runs (its server is down; what matters is that it ran)
    assert marker.exists()


def test_doctor_checks_each_profiles_model_against_its_server(yoke):
    with ScriptedServer(models=["served-model"]) as srv:
        for name, model in (("good", "served-model"), ("bad", "missing-model")):
            args = [
                "profile",
                "add",
                name,
                "--provider",
                "openai",
                "--model",
                model,
                "--base-url",
                srv.openai_url,
            ]
            assert yoke(*args, "--key-env", "K").code == 0
        run = yoke("doctor", env={"K": "k"})
    out = run.stdout
    good = out[out.index("Profile good") :]
    bad = out[out.index("Profile bad") : out.index("Profile good")]
    assert "served-model" in good and "served by openai" in good
    assert "missing-model" in bad and "not served" in bad
    assert run.code == 1


def test_profile_add_refuses_a_plain_key_and_rm_removes(yoke, home):
    refused = yoke("profile", "add", "p", "--provider", "openai", "--key", "sk-plain")
    assert refused.code != 0 and "stores no key" in refused.stderr
    assert not (home / ".yoke" / "profiles.json").exists()
    assert yoke("profile", "add", "p", "--provider", "openai", "--key-env", "K").code == 0
    assert yoke("profile", "add", "p", "--provider", "openai").code != 0  # exists: --force to replace
    assert yoke("profile", "rm", "p").code == 0
    assert "No profiles yet" in yoke("profile", "list").stdout
    unknown = yoke("-p", "hi", "--profile", "nope")
    assert unknown.code != 0 and "no profile 'nope'" in unknown.stderr and "Traceback" not in unknown.stderr


def test_profile_permission_mode_and_budget_are_defaults(yoke):
    with ScriptedServer(
        default_turn={"content": "ok", "usage": {"input_tokens": 200000, "output_tokens": 10}}
    ) as srv:
        args = ["profile", "add", "careful", "--provider", "anthropic", "--model", "claude-sonnet-4-5"]
        args += ["--base-url", srv.url, "--key-env", "K", "--permission-mode", "plan", "--budget", "0.01"]
        assert yoke(*args).code == 0
        stream = ["--output-format", "stream-json", "--verbose"]
        run = yoke("-p", "hi", "--profile", "careful", *stream, env={"K": "k"})
        flag = yoke(
            "-p", "hi", "--profile", "careful", "--permission-mode", "acceptEdits", *stream, env={"K": "k"}
        )
    init = next(o for o in run.lines() if o.get("subtype") == "init")
    assert init["permissionMode"] == "plan"  # the profile's default
    assert run.result()["subtype"] == "error_max_budget_usd"  # its budget: $0.60 spent > $0.01
    flagged = next(o for o in flag.lines() if o.get("subtype") == "init")
    assert flagged["permissionMode"] == "acceptEdits"  # a flag still wins


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_profile_sandbox_default_runs_bash_in_the_sandbox(yoke, project):
    import uuid

    outside = (
        Path("/var/tmp") / f"yoke-profile-sandbox-{uuid.uuid4().hex}.txt"
    )  # the sandbox's / is read-only
    command = f"echo in > inside.txt; echo out > {outside}"
    turns = [
        {"content": [{"type": "tool_use", "id": "toolu_b", "name": "Bash", "input": {"command": command}}]},
        {"content": "done"},
    ]
    with ScriptedServer(turns) as srv:
        args = ["profile", "add", "boxed", "--provider", "anthropic", "--base-url", srv.url, "--key-env", "K"]
        assert yoke(*args, "--sandbox", "on").code == 0
        run = yoke("-p", "go", "--profile", "boxed", "--permission-mode", "bypassPermissions", env={"K": "k"})
    assert run.code == 0, run.stderr
    assert (project / "inside.txt").read_text() == "in\n"
    assert not outside.exists()  # without the profile's sandbox, bypassPermissions would have written it

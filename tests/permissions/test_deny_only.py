"""Issue 38, part 3: a deny rule holds whatever approved the call. A command that an allow rule, a session
answer ("always"), a PreToolUse hook, bypassPermissions, auto mode's classifier or a person approved runs
deny-only confined: bubblewrap hides what `Read(...)` deny rules name (wildcards included) and pins what
`Edit(...)` deny rules name read-only, while the command itself runs as the approval allows. The analyser
cannot see into a script on disk or `npm test`; the kernel does not need to.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.permissions.sessions import make_project, run_calls, session_env

from yoke.seams import Answer
from yoke.session import SessionOptions, open_session
from yoke.testing import ScriptedServer

SECRET = "TFVARS-SECRET-VALUE"
KEEP = "edit-denied original\n"
APPROVERS = ["allow-rule", "session-always", "hook", "bypassPermissions", "classifier", "person"]
DENIALS = {"read-wildcard": "Read(**/*.tfvars)", "edit": "Edit(./locked.txt)"}
# A script on disk that reads the denied file and tries to change the locked one, and the same run as a
# package's test script: the analyser sees only `python3 probe.py` / `npm test`.
PROBE = (
    "import pathlib\n"
    "for p in ['deploy/prod.tfvars', 'locked.txt']:\n"
    "    try:\n        print('READ', p, pathlib.Path(p).read_text())\n"
    "    except OSError as e:\n        print('NOREAD', p, e)\n"
    "try:\n    pathlib.Path('locked.txt').write_text('overwritten')\n    print('WROTE')\n"
    "except OSError as e:\n    print('NOWRITE', e)\n"
    "pathlib.Path('made.txt').write_text('made')\n"
    "print('RAN-OK')\n"
)
# the same, its output also kept in seen.txt (for Monitor and background Bash, whose output is not a result)
KEEPING = PROBE.replace(
    "import pathlib\n",
    "import contextlib, io, pathlib, sys\nout = io.StringIO()\n"
    "with contextlib.redirect_stdout(out):\n    exec(open('probe.py').read())\n"
    "pathlib.Path('seen.txt').write_text(out.getvalue())\nsys.exit()\n",
    1,
)
SHAPES = {"script": "python3 probe.py", "npm-test": "npm test"}


class Person:
    """The SDK's can_use_tool (or a front-end's person): allows, and with `remember` for the session."""

    def __init__(self, remember: bool = False) -> None:
        self.remember = remember
        self.asked = 0

    async def ask(self, question: Any) -> Answer:
        self.asked += 1
        return Answer("allow", remember=self.remember)


def world(tmp_path: Path, denial: str, approver: str, command: str) -> tuple[Path, Path, dict[str, Any]]:
    home, project = make_project(tmp_path)
    (project / "deploy").mkdir()
    (project / "deploy" / "prod.tfvars").write_text(f"token = {SECRET}\n")
    (project / "locked.txt").write_text(KEEP)
    (project / "probe.py").write_text(PROBE)
    (project / "keeping.py").write_text(KEEPING)
    (project / "package.json").write_text(json.dumps({"scripts": {"test": "python3 probe.py"}}))
    perms: dict[str, Any] = {"deny": [DENIALS[denial]]}
    settings: dict[str, Any] = {"permissions": perms}
    options: dict[str, Any] = {}
    if approver == "allow-rule":
        perms["allow"] = [f"Bash({command})"]
    elif approver == "hook":
        answer = json.dumps(
            {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}
        )
        hook = {"type": "command", "command": f"echo '{answer}'"}
        settings["hooks"] = {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}
    elif approver == "bypassPermissions":
        options["permission_mode"] = "bypassPermissions"
    elif approver == "classifier":
        options["permission_mode"] = "auto"
    elif approver == "person":
        options["asker"] = Person()
    elif approver == "session-always":
        options["asker"] = Person(remember=True)
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps(settings))
    return home, project, options


def npm_shim(folder: Path) -> None:
    """`npm test` runs the package's test script (a stand-in, so the test needs no Node)."""
    folder.mkdir(exist_ok=True)
    npm = folder / "npm"
    script = f'#!/bin/sh\n[ "$1" = test ] && exec {sys.executable} -c \'import json,subprocess,sys; '
    script += 'sys.exit(subprocess.call(json.load(open("package.json"))["scripts"]["test"], shell=True))\'\n'
    npm.write_text(script)
    npm.chmod(0o755)


@pytest.fixture
def bwrap() -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("denial", sorted(DENIALS))
@pytest.mark.parametrize("approver", APPROVERS)
async def test_a_deny_rule_holds_whatever_approved_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bwrap: None, approver: str, denial: str, shape: str
) -> None:
    command = SHAPES[shape]
    npm_shim(tmp_path / "shims")
    monkeypatch.setenv("PATH", f"{tmp_path / 'shims'}:{__import__('os').environ['PATH']}")
    home, project, options = world(tmp_path, denial, approver, command)
    calls = [("Bash", {"command": command})]
    if approver == "session-always":
        calls = calls * 2  # the first asks and is answered "always"; the second runs on that answer
    classifier = approver == "classifier"
    results = await run_calls(project, home, calls, classifier=classifier, **options)
    last = results[-1]
    assert last.behavior == "allow", results
    expected_source = {
        "allow-rule": "allow:",
        "session-always": "session:",
        "hook": "hook",
        "bypassPermissions": "mode:bypassPermissions",
        "classifier": "classifier",
        "person": "user",
    }[approver]
    assert last.source.startswith(expected_source), results
    assert "RAN-OK" in last.text, last.text  # the clear grant still runs: the command itself works
    assert (project / "made.txt").read_text() == "made"
    if denial == "edit":
        assert (project / "locked.txt").read_text() == KEEP
        assert "NOWRITE" in last.text
        assert SECRET in last.text  # only what a rule names is held
    else:
        assert SECRET not in " ".join(r.text for r in results)
        assert "NOREAD deploy/prod.tfvars" in last.text
        assert "WROTE" in last.text  # only what a rule names is held


# ---- the same decision for Monitor, background Bash and skill `!` lines ----------------------------------


def allow_all_bash(tmp_path: Path) -> tuple[Path, Path]:
    """The user allows all Bash and denies reading `*.tfvars` anywhere and editing `locked.txt`."""
    home, project, _ = world(tmp_path, "read-wildcard", "none", "")
    deny = [DENIALS["read-wildcard"], DENIALS["edit"]]
    (home / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash"], "deny": deny}})
    )
    return home, project


def assert_held(project: Path, seen: str) -> None:
    assert "RAN-OK" in seen, seen
    assert SECRET not in seen and "NOREAD deploy/prod.tfvars" in seen
    assert (project / "locked.txt").read_text() == KEEP and "NOWRITE" in seen


@pytest.mark.parametrize(
    "call",
    [
        ("Monitor", {"command": "python3 keeping.py", "description": "watch"}),
        ("Bash", {"command": "python3 keeping.py", "run_in_background": True}),
    ],
    ids=["monitor", "background-bash"],
)
async def test_monitor_and_background_bash_run_deny_only_confined(
    tmp_path: Path, bwrap: None, call: tuple[str, dict[str, Any]]
) -> None:
    home, project = allow_all_bash(tmp_path)
    results = await run_calls(project, home, [call, ("Bash", {"command": "sleep 2"})], classifier=False)
    assert [r.behavior for r in results] == ["allow", "allow"], results
    assert_held(project, (project / "seen.txt").read_text())


@pytest.mark.parametrize("prompt", ["/lines", "/liner"])
async def test_skill_and_command_lines_run_deny_only_confined(
    tmp_path: Path, bwrap: None, prompt: str
) -> None:
    home, project = allow_all_bash(tmp_path)
    commands = project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "lines.md").write_text("Ran: !`python3 probe.py`\n")
    skill = project / ".claude" / "skills" / "liner"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: liner\ndescription: runs lines\n---\nRan: !`python3 probe.py`\n"
    )
    with ScriptedServer([{"content": [{"type": "text", "text": "ok"}]}] * 2) as srv:
        session = await open_session(
            SessionOptions(
                cwd=project, env=session_env(home, srv), persist=False, permission_mode="bypassPermissions"
            )
        )
        try:
            [e async for e in session.query(prompt)]
        finally:
            await session.close()
        sent = json.dumps([r.body for r in srv.requests])
    assert_held(project, sent.replace("\\n", "\n"))


# ---- what is started, and what is said without bubblewrap ------------------------------------------------


async def test_nothing_to_hide_starts_no_bubblewrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The no-deny-rule path stays free: a rule-approved command runs as it is, no bwrap in front."""
    from yoke.sandbox import deny_only

    built: list[list[str]] = []
    real = deny_only.deny_only_command
    monkeypatch.setattr(
        deny_only, "deny_only_command", lambda argv, *a, **k: built.append(argv) or real(argv, *a, **k)
    )
    home, project = make_project(tmp_path)
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Bash"]}}))
    results = await run_calls(project, home, [("Bash", {"command": "cat data.txt"})], classifier=False)
    assert results[0].source == "allow:Bash" and "keep me" in results[0].text
    assert built == []


async def test_without_bubblewrap_one_stderr_line_a_session_says_deny_rules_rest_on_the_analyser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.permissions.sessions import hide_bwrap

    hide_bwrap(monkeypatch, tmp_path / "bin")
    home, project = allow_all_bash(tmp_path)
    results = await run_calls(project, home, [("Bash", {"command": "cat data.txt"})] * 2, classifier=False)
    assert [r.behavior for r in results] == ["allow", "allow"] and "keep me" in results[1].text
    err = capsys.readouterr().err
    assert err.count("deny rules hold for commands") == 1, err


async def test_a_classifier_approval_hides_the_secret_list_too(tmp_path: Path, bwrap: None) -> None:
    """Auto mode's classifier is no person: what it approved never runs unconfined. Without any deny rule
    the one secret list (`.env` here) is hidden from it; a rule's approval reads `.env` as before."""
    home, project = make_project(tmp_path)
    (home / ".claude").mkdir()
    settings = home / ".claude" / "settings.json"
    (project / "reader.py").write_text(
        "try:\n    print(open('.env').read())\nexcept OSError:\n    print('NOREAD')\n"
    )
    command = ("Bash", {"command": "python3 reader.py"})
    settings.write_text("{}")
    judged = await run_calls(project, home, [command], classifier=True, permission_mode="auto")
    assert judged[0].source == "classifier" and "top-secret-value" not in judged[0].text, judged
    assert "NOREAD" in judged[0].text
    settings.write_text(json.dumps({"permissions": {"allow": ["Bash(python3 reader.py)"]}}))
    ruled = await run_calls(project, home, [command], classifier=False)  # auto mode drops interpreter rules
    assert ruled[0].source.startswith("allow:") and "top-secret-value" in ruled[0].text, ruled


async def test_what_the_classifier_approves_carries_a_confinement(tmp_path: Path) -> None:
    """At the gate: an edit the analyser shows stays inside the working directories runs under the
    acceptEdits confinement, anything else the classifier allowed deny-only; a rule's approval carries none
    (the launcher adds deny-only when deny rules exist)."""
    from tests.permissions.helpers import TOOLS, make_world

    from yoke.permissions.gate import Decision
    from yoke.sandbox.confine import DENY_ONLY, WORKDIRS

    async def allow_all(tool, input, ctx):  # type: ignore[no-untyped-def]
        return Decision("allow")

    world = make_world(tmp_path)
    gate = world.gate(classifier=allow_all, allow=["Bash(make ci)"])

    async def judged(command: str) -> Decision:
        return await gate.decide(TOOLS["Bash"], {"command": command}, world.ctx())

    edit, elsewhere, program, ruled = [
        await judged(c) for c in ("touch made.txt", "touch /var/tmp/x", "make x", "make ci")
    ]
    assert edit.source == "classifier" and edit.confinement is not None and edit.confinement.kind == WORKDIRS
    assert elsewhere.confinement is not None and elsewhere.confinement.kind == DENY_ONLY
    assert program.confinement is not None and program.confinement.kind == DENY_ONLY
    assert ruled.source == "allow:Bash(make ci)" and ruled.confinement is None


@pytest.mark.parametrize("approver", ["allow-rule", "bypassPermissions"])
async def test_a_wildcard_rule_outside_the_project_and_a_plain_path_deep_in_a_large_tree_are_hidden(
    tmp_path: Path, bwrap: None, approver: str
) -> None:
    """`Read(~/.aws/**)` is anchored outside the working directories (its folder is scanned too), and
    `Read(./vendor/deep/.env)` names a file past the secret scan's limit (a plain path is hidden wherever)."""
    from yoke.sandbox import confine

    home, project = make_project(tmp_path)
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text(f"key = {SECRET}\n")
    deep = project / "vendor" / "deep"
    deep.mkdir(parents=True)
    (deep / ".env").write_text(f"DEEP={SECRET}\n")
    reader = "for p in ['" + str(home / ".aws/credentials") + "', 'vendor/deep/.env']:\n"
    reader += "    try:\n        print(open(p).read())\n    except OSError:\n        print('NOREAD', p)\n"
    (project / "reader.py").write_text(reader + "print('RAN-OK')\n")
    deny = ["Read(~/.aws/**)", "Read(./vendor/deep/.env)"]
    perms: dict[str, Any] = {"deny": deny}
    options: dict[str, Any] = {"permission_mode": "bypassPermissions"}
    if approver == "allow-rule":
        perms["allow"], options = ["Bash(python3 reader.py)"], {}
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": perms}))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(confine, "SCAN_LIMIT", 3)  # the scan stops long before vendor/deep
        results = await run_calls(project, home, [("Bash", {"command": "python3 reader.py"})], **options)
    assert results[0].behavior == "allow" and "RAN-OK" in results[0].text, results
    assert SECRET not in results[0].text and results[0].text.count("NOREAD") == 2


@pytest.mark.parametrize("denial", sorted(DENIALS))
async def test_a_person_through_the_sdks_can_use_tool(tmp_path: Path, bwrap: None, denial: str) -> None:
    """The unmodified Agent SDK drives `yoke`; its `can_use_tool` allows the script: the deny rule holds."""
    sdk = pytest.importorskip("claude_agent_sdk")
    from claude_agent_sdk.types import PermissionResultAllow

    home, project, _ = world(tmp_path, denial, "person", "")
    call = {"type": "tool_use", "id": "t0", "name": "Bash", "input": {"command": "python3 probe.py"}}
    asked: list[str] = []

    async def can_use_tool(tool: str, tool_input: dict[str, Any], context: Any) -> Any:
        asked.append(tool_input.get("command", ""))
        return PermissionResultAllow(updated_input=tool_input)

    turns = [{"content": [call]}, {"content": [{"type": "text", "text": "done"}]}]
    with ScriptedServer(turns) as srv:
        env = {**session_env(home, srv), "ANTHROPIC_API_KEY": "sk-test"}
        yoke = str(Path(sys.executable).parent / "yoke")
        opts = sdk.ClaudeAgentOptions(cli_path=yoke, cwd=str(project), env=env, can_use_tool=can_use_tool)
        async with sdk.ClaudeSDKClient(options=opts) as client:
            await client.query("run the probe")
            [m async for m in client.receive_response()]
        sent = json.dumps(srv.requests[-1].body).replace("\\\\n", "\n")
    assert asked == ["python3 probe.py"] and "RAN-OK" in sent, sent[-2000:]
    if denial == "edit":
        assert (project / "locked.txt").read_text() == KEEP and "NOWRITE" in sent
    else:
        assert SECRET not in sent and "NOREAD deploy/prod.tfvars" in sent

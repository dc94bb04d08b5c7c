"""The gate beyond single decisions: trust, modes, session answers, saved rules, hooks, the classifier."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path

import pytest

from permissions.helpers import TOOLS, World, make_world
from yoke.config.settings import load_settings, split_tool_list
from yoke.permissions import build_gate, is_read_only_command, trust_folder
from yoke.permissions.gate import Decision
from yoke.permissions.pipeline import PermissionModeError

BASH = TOOLS["Bash"]


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("YOKE_HOME", raising=False)
    return make_world(tmp_path)


def project_settings(world: World, data: dict, name: str = "settings.json") -> None:
    path = world.project / ".claude" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(data))


def headless_gate(world: World, **kw):  # type: ignore[no-untyped-def]
    loaded = load_settings(world.project, home=world.home, managed_paths=[])
    kw.setdefault("mode", None)
    return build_gate(
        loaded,
        cwd=world.project,
        allowed_tools=kw.pop("allowed_tools", []),
        disallowed_tools=[],
        add_dirs=[],
        interactive=kw.pop("interactive", False),
        home=world.home,
        **kw,
    )


async def decide(gate, command: str, world: World) -> Decision:  # type: ignore[no-untyped-def]
    return await gate.decide(BASH, {"command": command}, world.ctx())


# ---- workspace trust --------------------------------------------------------------------------------------


async def test_untrusted_project_cannot_grant_itself_permissions(world: World) -> None:
    project_settings(
        world,
        {
            "permissions": {
                "allow": ["Bash(curl *)", "Edit"],
                "deny": ["Bash(git push *)"],
                "additionalDirectories": [str(world.other)],
                "defaultMode": "bypassPermissions",
            },
            "sandbox": {"enabled": True},
        },
    )
    gate = headless_gate(world)
    assert gate.mode == "default"
    assert gate.working_dirs == [world.project.resolve()]
    assert (await decide(gate, "curl https://x", world)).behavior == "ask"
    assert (await decide(gate, "git push", world)).behavior == "deny"  # deny rules always apply
    assert not gate.sandbox.enabled
    assert len(gate.warnings) == 1
    warning = gate.warnings[0]
    assert (
        "has not been trusted" in warning
        and "2 allow rules" in warning
        and "1 additional directory" in warning
    )


async def test_trusted_project_grants_apply(world: World) -> None:
    project_settings(
        world, {"permissions": {"allow": ["Bash(curl *)"], "additionalDirectories": [str(world.other)]}}
    )
    trust_folder(world.project, world.home / ".yoke")
    gate = headless_gate(world)
    assert gate.warnings == []
    assert world.other.resolve() in gate.working_dirs
    decision = await decide(gate, "curl https://x", world)
    assert (decision.behavior, decision.source) == ("allow", "allow:Bash(curl *)")


async def test_trust_covers_subfolders_but_not_from_home(world: World) -> None:
    from yoke.config.trust import is_trusted

    trust_folder(world.project, world.home / ".yoke")
    assert is_trusted(world.project / "src", world.home / ".yoke", home=world.home)
    trust_folder(world.home, world.home / ".yoke")
    assert not is_trusted(world.other, world.home / ".yoke", home=world.home)
    data = json.loads((world.home / ".yoke" / "trusted.json").read_text())
    assert str(world.project.resolve()) in data["trusted"]


async def test_claude_code_trust_record_is_honoured(world: World) -> None:
    project_settings(world, {"permissions": {"allow": ["Bash(curl *)"]}})
    record = {"projects": {str(world.project.resolve()): {"hasTrustDialogAccepted": True}}}
    (world.home / ".claude.json").write_text(json.dumps(record))
    gate = headless_gate(world)
    assert gate.warnings == []
    assert (await decide(gate, "curl x", world)).behavior == "allow"


async def test_untrusted_interactive_has_no_warning_and_user_rules_apply(world: World) -> None:
    project_settings(world, {"permissions": {"allow": ["Bash(curl *)"]}})
    user = world.home / ".claude" / "settings.json"
    user.parent.mkdir()
    user.write_text(json.dumps({"permissions": {"allow": ["Bash(make *)"]}}))
    gate = headless_gate(world, interactive=True, allowed_tools=["Bash(npm test)"])
    assert gate.warnings == []
    assert (await decide(gate, "curl x", world)).behavior == "ask"
    assert (await decide(gate, "make all", world)).behavior == "allow"
    assert (await decide(gate, "npm test", world)).behavior == "allow"


# ---- modes --------------------------------------------------------------------------------------------------


def test_modes_and_their_errors(world: World) -> None:
    gate = world.gate(mode="manual")
    assert gate.mode == "default"
    gate.set_mode("plan")
    gate.mode = "acceptEdits"
    assert gate.mode == "acceptEdits"
    with pytest.raises(PermissionModeError, match="unknown permission mode"):
        gate.set_mode("yolo")
    with pytest.raises(PermissionModeError, match="only be entered if the session started with it"):
        gate.set_mode("bypassPermissions")
    with pytest.raises(ValueError, match="--permission-mode: unknown mode"):
        world.gate(mode="nope")
    started = world.gate(mode="bypassPermissions")
    started.set_mode("default")
    started.set_mode("bypassPermissions")


def test_bypass_refused_when_disabled(world: World) -> None:
    with pytest.raises(ValueError, match="disabled by settings"):
        world.gate(
            mode="bypassPermissions", settings={"permissions": {"disableBypassPermissionsMode": "disable"}}
        )


def test_default_mode_from_settings(world: World) -> None:
    assert world.gate(settings={"permissions": {"defaultMode": "acceptEdits"}}).mode == "acceptEdits"
    assert world.gate(mode="plan", settings={"permissions": {"defaultMode": "acceptEdits"}}).mode == "plan"
    gate = world.gate(settings={"permissions": {"defaultMode": "sideways"}})
    assert gate.mode == "default" and "unknown permissions.defaultMode" in gate.warnings[0]


def test_add_dir_must_exist(world: World) -> None:
    with pytest.raises(ValueError, match="--add-dir"):
        world.gate(add_dirs=[world.root / "missing"])


def test_managed_rules_only(world: World, tmp_path: Path) -> None:
    managed = tmp_path / "managed.json"
    managed.write_text(
        json.dumps({"permissions": {"allowManagedPermissionRulesOnly": True, "deny": ["WebFetch"]}})
    )
    loaded = load_settings(world.project, home=world.home, managed_paths=[managed])
    gate = build_gate(
        loaded,
        cwd=world.project,
        mode=None,
        allowed_tools=["Bash(curl *)"],
        disallowed_tools=[],
        add_dirs=[],
        interactive=True,
        trusted=True,
        home=world.home,
    )
    assert [r.text for r in gate.allow] == [] and [r.text for r in gate.deny] == ["WebFetch"]


def test_bad_rules_warn_and_are_skipped(world: World) -> None:
    gate = world.gate(allow=["Bash(npm test", "Read"], deny=["mcp__*"])
    assert [r.text for r in gate.allow] == ["Read"]
    assert any("unclosed parenthesis" in w for w in gate.warnings)


# ---- after an ask -------------------------------------------------------------------------------------------


async def test_session_answer_is_remembered_narrowly(world: World) -> None:
    gate = world.gate()
    assert (await decide(gate, "npm run build", world)).behavior == "ask"
    assert gate.remember(BASH, {"command": "npm run build"}, "session") == ["Bash(npm run *)"]
    decision = await decide(gate, "npm run lint", world)
    assert (decision.behavior, decision.source) == ("allow", "session:Bash(npm run *)")
    assert (await decide(gate, "npm install", world)).behavior == "ask"


def test_suggestions_are_narrow(world: World) -> None:
    gate = world.gate()

    def rules(command: str) -> list[str]:
        return gate.suggest_rules(BASH, {"command": command})

    assert rules("npm run build") == ["Bash(npm run *)"]
    assert rules("git push origin main") == ["Bash(git push *)"]
    assert rules("rm -rf build") == ["Bash(rm -rf build)"]
    assert rules("make") == ["Bash(make)"]
    assert rules("ls && npm test && curl -fsS x") == ["Bash(npm test)", "Bash(curl -fsS x)"]
    assert rules("ls | | x") == []
    assert rules("$CMD") == []
    assert rules("echo x > ~/.bashrc") == []
    for command in ["npm run build", "python3 -c 'print(1)'", "docker run -it x", "a; b; c; d"]:
        assert all(r not in ("Bash", "Bash(*)") for r in rules(command))
    update = gate.suggestions(BASH, {"command": "npm run build"})
    assert update == [
        {
            "type": "addRules",
            "rules": [{"toolName": "Bash", "ruleContent": "npm run *"}],
            "behavior": "allow",
            "destination": "localSettings",
        }
    ]
    edit = gate.suggestions(TOOLS["Edit"], {"file_path": "src/app.py"})
    assert edit == [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}]
    outside = gate.suggestions(TOOLS["Read"], {"file_path": str(world.other / "notes.txt")})
    assert outside == [
        {"type": "addDirectories", "directories": [str(world.other.resolve())], "destination": "session"}
    ]
    assert gate.suggestions(TOOLS["Edit"], {"file_path": ".git/config"}) == []
    web = gate.suggest_rules(TOOLS["WebFetch"], {"url": "https://docs.example.com/a"})
    assert web == ["WebFetch(domain:docs.example.com)"]


async def test_save_local_rule_writes_atomically_and_applies(world: World) -> None:
    local = world.project / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.write_text(json.dumps({"env": {"A": "1"}, "permissions": {"allow": ["Read"]}}))
    gate = world.gate()
    assert gate.save_local_rule("Bash(npm run *)") == local
    data = json.loads(local.read_text())
    assert data == {"env": {"A": "1"}, "permissions": {"allow": ["Read", "Bash(npm run *)"]}}
    assert list(local.parent.iterdir()) == [local]  # no temporary file left behind
    assert (await decide(gate, "npm run x", world)).behavior == "allow"
    gate.save_local_rule("Bash(npm run *)")
    assert json.loads(local.read_text())["permissions"]["allow"].count("Bash(npm run *)") == 1
    reloaded = load_settings(world.project, home=world.home, managed_paths=[])
    assert "Bash(npm run *)" in reloaded.merged["permissions"]["allow"]


def test_save_local_rule_refuses_to_clobber_a_broken_file(world: World) -> None:
    local = world.project / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.write_text("{broken")
    with pytest.raises(ValueError, match="not valid JSON"):
        world.gate().save_local_rule("Bash(ls)")
    assert local.read_text() == "{broken"


async def test_remember_local_persists(world: World) -> None:
    gate = world.gate()
    gate.remember(BASH, {"command": "make test"}, "local")
    saved = json.loads((world.project / ".claude" / "settings.local.json").read_text())
    assert saved["permissions"]["allow"] == ["Bash(make test)"]


async def test_permission_updates(world: World) -> None:
    gate = world.gate()
    gate.apply_update({"type": "setMode", "mode": "acceptEdits", "destination": "session"})
    assert gate.mode == "acceptEdits"
    gate.apply_update({"type": "addDirectories", "directories": [str(world.other)], "destination": "session"})
    read = await gate.decide(TOOLS["Read"], {"file_path": str(world.other / "notes.txt")}, world.ctx())
    assert read.behavior == "allow"
    rules = [{"toolName": "Bash", "ruleContent": "make *"}]
    gate.apply_update({"type": "addRules", "rules": rules, "behavior": "allow", "destination": "session"})
    assert (await decide(gate, "make all", world)).behavior == "allow"
    gate.apply_update({"type": "removeRules", "rules": rules, "behavior": "allow", "destination": "session"})
    assert (await decide(gate, "make all", world)).behavior == "ask"
    with pytest.raises(ValueError):
        gate.apply_update({"type": "addRules", "rules": rules, "destination": "somewhere"})


async def test_a_removed_session_rule_leaves_a_sub_agents_gate_copy_too(world: World) -> None:
    """A sub-agent whose mode differs runs on a copy of the parent's gate (session/capabilities.py), which
    shares the session's answers: one the user takes back must not stay in force for the running copy."""
    gate = world.gate()
    rules = [{"toolName": "Bash", "ruleContent": "make *"}]
    gate.apply_update({"type": "addRules", "rules": rules, "behavior": "allow", "destination": "session"})
    child = copy.copy(gate)
    child.set_mode("acceptEdits")
    assert (await decide(child, "make all", world)).behavior == "allow"
    gate.apply_update({"type": "removeRules", "rules": rules, "behavior": "allow", "destination": "session"})
    assert (await decide(child, "make all", world)).behavior == "ask"


async def test_remembered_symlink_read_covers_link_and_target(world: World) -> None:
    gate = world.gate()
    read = {"file_path": "key_link"}
    assert (await gate.decide(TOOLS["Read"], read, world.ctx())).behavior == "ask"
    rules = gate.remember(TOOLS["Read"], read, "session")
    assert rules == [
        f"Read(/{world.project.resolve()}/key_link)",
        f"Read(/{world.home.resolve()}/.ssh/id_rsa)",
    ]
    assert (await gate.decide(TOOLS["Read"], read, world.ctx())).behavior == "allow"
    split = world.gate(allow=["Read(./key_link)", "Read(~/.ssh/id_rsa)"])
    assert (await split.decide(TOOLS["Read"], read, world.ctx())).behavior == "allow"


async def test_protected_path_needs_a_session_answer(world: World) -> None:
    gate = world.gate(mode="acceptEdits")
    edit = {"file_path": ".git/config"}
    assert (await gate.decide(TOOLS["Edit"], edit, world.ctx())).behavior == "ask"
    gate.remember(TOOLS["Edit"], edit, "session")
    decision = await gate.decide(TOOLS["Edit"], edit, world.ctx())
    assert decision.behavior == "allow"
    assert (await gate.decide(TOOLS["Edit"], {"file_path": ".git/HEAD"}, world.ctx())).behavior == "ask"


# ---- hooks and the classifier -----------------------------------------------------------------------------


async def test_hook_verdicts(world: World) -> None:
    """What PreToolUse listeners answered takes its place in the order: their deny ends it, deny and ask
    rules still beat their allow, and a rewritten input is what gets judged and run."""
    gate = world.gate(deny=["Bash(rm *)"], ask=["Bash(git push *)"])

    async def judged(command: str, hook: Decision) -> Decision:
        return await gate.decide(TOOLS["Bash"], {"command": command}, world.ctx(), hook=hook)

    assert (await judged("ls", Decision("deny", "no listing", "hook:test"))) == Decision(
        "deny", "no listing", "hook:test"
    )
    assert (await judged("curl x", Decision("allow", source="hook:test"))).source == "hook:test"
    assert (await judged("rm x", Decision("allow"))).behavior == "deny"  # deny rules beat a hook's allow
    assert (await judged("git push", Decision("allow"))).behavior == "ask"  # so do ask rules
    assert (await judged("pwd", Decision("ask", "check", "hook:test"))).behavior == "ask"
    rewritten = await judged("echo a", Decision("allow", updated_input={"command": "echo b"}))
    assert rewritten.updated_input == {"command": "echo b"}


async def test_classifier_with_deadline(world: World) -> None:
    async def quick(tool, input, ctx):  # type: ignore[no-untyped-def]
        return Decision("allow") if input["command"].startswith("make") else None

    async def slow(tool, input, ctx):  # type: ignore[no-untyped-def]
        await asyncio.sleep(5)
        return Decision("allow")

    gate = world.gate(classifier=quick)
    assert (await decide(gate, "make x", world)).source == "classifier"
    assert (await decide(gate, "curl x", world)).behavior == "ask"
    slow_gate = world.gate(classifier=slow)
    slow_gate.classifier_deadline_s = 0.05
    assert (await decide(slow_gate, "make x", world)).behavior == "ask"


# ---- helpers other parts call -------------------------------------------------------------------------------


def test_hidden_tools_and_read_denied(world: World) -> None:
    gate = world.gate(deny=["WebSearch", "mcp__slack", "Bash(rm *)", "Read(./src/**)"])
    names = ["Bash", "WebSearch", "Read", "mcp__slack__post", "mcp__github__get_issue"]
    assert gate.hidden_tools(names) == {"WebSearch", "mcp__slack__post"}
    gate2 = world.gate(deny=["mcp__*"])
    assert gate2.hidden_tools(names) == {"mcp__slack__post", "mcp__github__get_issue"}
    assert gate.is_read_denied(world.project / "src" / "app.py")
    assert not gate.is_read_denied(world.project / "README.md")


def test_split_tool_list() -> None:
    assert split_tool_list(["Bash(git log:*) Edit,Read", "Bash(npm run test *)", "Glob\tGrep"]) == [
        "Bash(git log:*)",
        "Edit",
        "Read",
        "Bash(npm run test *)",
        "Glob",
        "Grep",
    ]
    assert split_tool_list([" , ", ""]) == []


async def test_shell_cwd_is_where_relative_paths_start(world: World) -> None:
    gate = world.gate()
    inside = await gate.decide(BASH, {"command": "cat app.py"}, world.ctx(world.project / "src"))
    assert inside.behavior == "allow"
    climbing = await gate.decide(
        BASH, {"command": "cat ../../other/notes.txt"}, world.ctx(world.project / "src")
    )
    assert climbing.behavior == "ask"


def test_is_read_only_command(world: World) -> None:
    assert is_read_only_command("git status && ls src", world.project, [world.project])
    assert not is_read_only_command("cat ../other/notes.txt", world.project, [world.project])
    assert is_read_only_command("cat ../other/notes.txt", world.project, [world.project, world.other])
    assert not is_read_only_command("touch x", world.project, [world.project])
    assert not is_read_only_command("cat key_link", world.project, [world.project], home=world.home)


def test_the_sandbox_is_handed_the_gates_excluded_commands(world: World) -> None:
    """excludedCommands are Bash rule patterns the permissions layer matches; the Bash tool's sandbox gets
    the verdict through the session's services (a sub-agent's too), and runs those commands outside."""
    from yoke.tools.builtin.bash import BashInput
    from yoke.tools.services import SessionServices
    from yoke.tools.shell.confinement import sandbox_launcher

    project_settings(world, {"sandbox": {"enabled": True, "excludedCommands": ["docker"]}})
    gate = headless_gate(world, trusted=True)
    services = SessionServices.for_gate(gate)
    for shared in (services, services.for_child()):
        assert shared.sandbox_excluded is not None
        assert shared.sandbox_excluded("make && docker build .")
        assert not shared.sandbox_excluded("make")
    ctx = world.ctx()
    ctx.session.services = services

    def launcher(command: str):  # type: ignore[no-untyped-def]
        return sandbox_launcher(BashInput(command=command), ctx, writable=[], readable=[])

    assert launcher("docker ps") is None  # runs as it is
    assert launcher("make") is not None  # wrapped in the sandbox

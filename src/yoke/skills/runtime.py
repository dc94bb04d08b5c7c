"""A session's skills at run time: the catalog plus what invoking one needs from the session.

The session hands in its tool registry, permission gate and tool context; from them this builds the
`Permit` (may this `!`cmd`` / `@file` run?) and `RunShell` (run it as the Bash tool does, sandbox included)
that expansion uses, and it keeps the grants of the skills invoked in the current query (`allowed-tools`
pre-approves, `disallowed-tools` removes) so they end with the query.

A skill that comes with the project (its `.claude/`, a nested one, an `--add-dir` folder) is the project's
word, like the project's allow rules: its `allowed-tools` pre-approve nothing until the folder is trusted
(`yoke trust`). Personal, managed and installed plugins' skills are the user's own.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke.records import Record
from yoke.skills.catalog import Catalog
from yoke.skills.inline import Verdict
from yoke.skills.model import Skill

if TYPE_CHECKING:
    from yoke.loop.lifecycle import Lifecycle
    from yoke.permissions.gate import Gate
    from yoke.permissions.rules import PermissionRule

PROJECT_SOURCES = frozenset({"project", "nested", "add-dir"})


class SkillRuntime(Record):
    __slots__ = (
        "catalog",
        "cwd",
        "session_id",
        "env",
        "registry",
        "gate",
        "context",
        "lifecycle",
        "loop_settings",
        "provider_name",
        "invoked",
        "_granted",
        "_removed",
        "_model",
        "_calls",
        "notices",
        "on_invoke",
        "trusted",
    )

    def __init__(
        self,
        catalog: Catalog,
        cwd: Path,
        session_id: str,
        env: Mapping[str, str],
        registry: Any = None,  # the session's ToolRegistry
        gate: Gate | None = None,
        context: Callable[[], Any] | None = None,  # returns the session's ToolContext
        lifecycle: Lifecycle | None = None,  # the session's: PreToolUse for a skill's own commands
        loop_settings: Any = None,  # the main agent's LoopSettings: per-skill model overrides
        provider_name: str = "anthropic",
    ) -> None:
        self.catalog = catalog
        self.cwd = cwd
        self.session_id = session_id
        self.env = env
        self.registry = registry
        self.gate = gate
        self.context = context
        self.lifecycle = lifecycle
        self.loop_settings = loop_settings
        self.provider_name = provider_name
        self.invoked: list[str] = []  # skills invoked this session (for compaction)
        self._granted: list[Any] = []
        self._removed: list[Any] = []
        self._model: str | None = None
        self._calls = 0
        self.notices: list[str] = []
        # Called with each skill as it is invoked (by /name or the Skill tool): the hooks package registers
        # the skill's `hooks` frontmatter here, for the rest of the session.
        self.on_invoke: list[Any] = []
        # whether the project folder is trusted (looked up when first needed)
        self.trusted: bool | None = None

    @property
    def ctx(self) -> Any:
        """The session's ToolContext (None before the session's executor exists, or without one)."""
        return self.context() if self.context is not None else None

    # ---- permission and shell, for expansion ---------------------------------------------------------

    def permit_for(self, skill: Skill | None, invoked_by: str = "user", call_id: str = ""):
        """A Permit that asks as a tool call is asked: PreToolUse listeners (hooks), then the gate with the
        skill's `allowed-tools`, then on ask the front-end. A skill's shell line is announced first as
        PreSkillShellCommand (skills/shell_hook.py)."""
        lines = [0]

        async def permit(tool_name: str, input: dict) -> Verdict:
            if tool_name == "Bash" and skill is not None:
                from yoke.skills.shell_hook import announce_skill_shell

                command = str(input.get("command", ""))
                blocked = await announce_skill_shell(
                    self.lifecycle, skill, command, lines[0], call_id, invoked_by
                )
                lines[0] += 1
                if blocked:
                    return Verdict(False, blocked)
            tool = self.registry.get(tool_name) if self.registry is not None else None
            if tool is None and tool_name == "Read":
                tool = _read_stand_in()
            if tool is None or self.gate is None or self.ctx is None:
                return Verdict(False, f"{tool_name} is not available in this session")
            hook, updated = await self._pre_tool_use(tool.name, input)
            if hook is not None and hook.behavior == "deny":
                return Verdict(False, hook.reason or "a PreToolUse hook blocked it")
            input = updated or input
            added = self._grant(self._grants_of(skill)) if skill is not None else []
            try:
                decision = await self.gate.decide(tool, input, self.ctx, hook=hook)
                if decision.behavior == "ask":
                    from yoke.seams import NoAsker, PermissionQuestion

                    asker = self.ctx.asker or NoAsker()
                    answer = await asker.ask(PermissionQuestion(tool.name, input, "", decision.reason))
                    allowed = answer.behavior == "allow"
                    return Verdict(
                        allowed, answer.message or decision.reason, answer.updated_input or updated
                    )
                allowed = decision.behavior == "allow"
                return Verdict(
                    allowed, decision.reason, decision.updated_input or updated, decision.confinement
                )
            finally:
                self._revoke(added)

        return permit

    async def _pre_tool_use(self, tool_name: str, input: dict) -> tuple[Any, dict | None]:
        """What PreToolUse listeners say about a skill's own command or file read: (a gate hook Decision or
        None, a rewritten input or None)."""
        lifecycle = self.lifecycle
        if lifecycle is None:
            return None, None
        self._calls += 1
        out = await lifecycle.announce(
            "PreToolUse", tool_name=tool_name, tool_input=input, tool_use_id=f"skill_{self._calls}"
        )
        from yoke.permissions.gate import Decision

        if out.stop:
            return Decision("deny", out.stop_reason or out.reason, "hook"), None
        hook = None
        if out.decision in ("allow", "deny", "ask", "defer"):
            hook = Decision("ask" if out.decision == "defer" else out.decision, out.reason, "hook")
        return hook, out.updated_input

    async def run_shell(self, command: str, confinement: Any = None) -> str:
        """Run a skill's or command's `!` line as the Bash tool runs a call, with the confinement the gate's
        decision carried (a fast path's: read-only or the working directories), never dropped."""
        tool = self.registry.get("Bash")
        parsed = tool.validate({"command": command, "description": "skill context"})
        ctx = self.ctx.for_call(f"skill-shell-{len(self.invoked)}").replace(confinement=confinement)
        result = await tool.run(parsed, ctx)
        content = result.content
        if isinstance(content, list):
            content = "\n".join(b.get("text", "") for b in content if isinstance(b, dict))
        return str(content)

    # ---- grants for the running query ----------------------------------------------------------------

    def activate(self, skill: Skill) -> list[str]:
        """Apply what invoking `skill` changes until the query ends; returns notices for the user."""
        self.invoked.append(skill.name)
        for listener in self.on_invoke:
            listener(skill)
        notices = []
        grants = self._grants_of(skill)
        if skill.allowed_tools and not grants:
            notices.append(
                f"/{skill.name}: its allowed-tools are ignored until this folder is trusted (yoke trust)"
            )
        self._granted.extend(self._grant(grants))
        for name in skill.disallowed_tools:
            tool = self.registry.get(name) if self.registry is not None else None
            if tool is not None:
                self.registry.remove(tool.name)
                self._removed.append(tool)
        if skill.model and self.loop_settings is not None and skill.model != "inherit":
            if self._model is None:
                self._model = self.loop_settings.model
            self.loop_settings.model = _resolve_model(self.provider_name, skill.model, self.env)
        if skill.context == "fork":
            notices.append(
                f"/{skill.name} asks to run as a sub-agent (context: fork); sub-agents are not part of Yoke "
                "yet, so it runs in this conversation"
            )
        return notices

    def end_query(self) -> None:
        """Undo every grant, removal and model override of the query that just ended."""
        self._revoke(self._granted)
        self._granted = []
        for tool in self._removed:
            self.registry.register(tool)
        self._removed = []
        if self._model is not None and self.loop_settings is not None:
            self.loop_settings.model = self._model
        self._model = None

    def _grants_of(self, skill: Skill) -> list[str]:
        if not skill.allowed_tools or skill.source not in PROJECT_SOURCES:
            return skill.allowed_tools
        if self.trusted is None:
            from yoke.config.settings import yoke_home_dir
            from yoke.config.trust import is_trusted

            self.trusted = is_trusted(self.cwd, yoke_home_dir(env=self.env))
        return skill.allowed_tools if self.trusted else []

    def _grant(self, rules: list[str]) -> list[PermissionRule]:
        if not rules or self.gate is None:
            return []
        from yoke.permissions.rules import RuleSyntaxError, parse_rule

        added = []
        for text in rules:
            try:
                rule = parse_rule(text, "allow", "session", self.cwd)
            except RuleSyntaxError:
                continue
            self.gate.session_rules.append(rule)
            added.append(rule)
        return added

    def _revoke(self, rules: list[PermissionRule]) -> None:
        if self.gate is None:
            return
        for rule in rules:
            try:
                self.gate.session_rules.remove(rule)
            except ValueError:
                pass


def _resolve_model(provider: str, name: str, env: Mapping[str, str]) -> str:
    from yoke.providers.select import resolve_model_alias

    try:
        return resolve_model_alias(provider, name, env)
    except Exception:
        return name


def _read_stand_in() -> Any:
    from yoke.permissions.pipeline import _PathTool  # the gate's own stand-in for path checks

    return _PathTool()


def runtime_of(ctx: Any) -> SkillRuntime | None:
    session = getattr(ctx, "session", None)
    runtime = getattr(getattr(session, "services", None), "skills", None)
    return runtime if isinstance(runtime, SkillRuntime) else None


def project_dir(cwd: Path, env: Mapping[str, str]) -> Path:
    return Path(env.get("CLAUDE_PROJECT_DIR") or os.path.realpath(cwd))

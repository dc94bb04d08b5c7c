"""The Skill tool: how the model invokes a skill (input `{"skill": name, "args"?: text}`).

Its description lists the skills the model may invoke (name and description) within a budget of about 1% of
the context window (4 characters a token; a description is cut at 1,536 characters, as Claude Code 2.1.330
cuts it); when they do not fit, descriptions are shortened evenly, then only names are listed. Invoking a skill returns its body with placeholders filled
(progressive disclosure: bundled files are read later with Read/Bash). The legacy `SlashCommand` tool name
and its `{"command": "/name args"}` input are accepted.
"""

from __future__ import annotations

from typing import Any, ClassVar

from yoke.skills.model import Skill
from yoke.tools.base import Tool, ToolContext, ToolError, ToolKind, ToolResult

MIN_DESCRIPTION = 20
CHARS_PER_TOKEN = 4
BUDGET_SHARE = 0.01

INTRO = """\
Runs a skill in this conversation. Skills are instructions (and bundled files) for particular tasks that \
the user or their project provides.

- When a request matches a skill's description below, invoke the skill before doing the task yourself: \
call this tool with `skill` (its name, e.g. "pdf" or "myplugin:review") and, when useful, `args` (the text \
after the name, as a user would type it after /name).
- The skill's instructions come back as the tool result; follow them. Files the skill mentions are read \
with Read or run with Bash when needed.
- A message that starts with <command-name>/name</command-name> means the skill is already loaded: follow \
the instructions that came with it instead of calling this tool again.
- Invoke only skills listed here; do not guess names."""


def listing(skills: list[Skill], budget_chars: int) -> str:
    """`- name: description` lines that fit in `budget_chars`."""
    # `<` and `>` escaped, as Claude Code 2.1.330 writes them in its listing (`&` and quotes as they are)
    entries = [
        (s.name, s.listing_text().replace("<", "&lt;").replace(">", "&gt;"))
        for s in sorted(skills, key=lambda s: s.name)
    ]
    lines = [f"- {name}: {text}" if text else f"- {name}" for name, text in entries]
    if _size(lines) <= budget_chars:
        return "\n".join(lines)
    share = budget_chars // max(1, len(entries))
    if share - 4 >= MIN_DESCRIPTION:
        lines = [_entry(name, text, share - 1) for name, text in entries]
        lines = [
            line if len(line) >= len(name) + 2 + MIN_DESCRIPTION else f"- {name}"
            for line, (name, _) in zip(lines, entries, strict=True)
        ]
        if _size(lines) <= budget_chars:
            return "\n".join(lines)
    lines = [f"- {name}" for name, _ in entries]
    kept: list[str] = []
    for line in lines:
        if _size([*kept, line]) > budget_chars - 70:  # room for the note below
            kept.append(f"({len(lines) - len(kept)} more skills not listed; ask the user for their names)")
            break
        kept.append(line)
    return "\n".join(kept)


def _entry(name: str, text: str, limit: int) -> str:
    line = f"- {name}: {text}" if text else f"- {name}"
    return line if len(line) <= limit else line[: max(len(name) + 2, limit - 1)] + "…"


def _size(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def budget_for(context_window_tokens: int) -> int:
    return int(context_window_tokens * CHARS_PER_TOKEN * BUDGET_SHARE)


def _input_model() -> Any:
    from pydantic import BaseModel, ConfigDict, Field

    class SkillInput(BaseModel):
        model_config = ConfigDict(extra="forbid")

        skill: str | None = Field(default=None)
        args: str | None = Field(default=None)
        command: str | None = Field(default=None)  # the legacy SlashCommand tool's input

    return SkillInput


_MODEL: Any = None


class SkillTool(Tool):
    name: ClassVar[str] = "Skill"
    aliases: ClassVar[tuple[str, ...]] = ("SlashCommand",)
    kind: ClassVar[ToolKind] = "other"
    read_only: ClassVar[bool] = True
    concurrency_safe: ClassVar[bool] = False

    def __init__(self, runtime: Any, context_window_tokens: int = 200_000):
        self.runtime = runtime
        self.description = self.describe(context_window_tokens)  # type: ignore[misc]

    def describe(self, context_window_tokens: int) -> str:
        skills = self.runtime.catalog.model_invocable()
        text = listing(skills, budget_for(context_window_tokens))
        return f"{INTRO}\n\nAvailable skills:\n{text}" if text else INTRO

    @property
    def input_model(self) -> Any:  # type: ignore[override]
        global _MODEL
        if _MODEL is None:
            _MODEL = _input_model()
        return _MODEL

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "skill": {"type": "string", "description": 'The skill name, e.g. "pdf" or "myplugin:review"'},
                "args": {"type": "string", "description": "Optional arguments for the skill"},
            },
            "required": ["skill"],
            "additionalProperties": False,
        }

    def _target(self, input: Any) -> tuple[str, str]:
        name = (getattr(input, "skill", None) or "").strip()
        args = (getattr(input, "args", None) or "").strip()
        command = (getattr(input, "command", None) or "").strip()
        if not name and command:
            name, _, args = command.lstrip("/").partition(" ")
        return name.lstrip("/"), args.strip()

    def is_read_only(self, input: Any) -> bool:
        """Loading instructions changes nothing, unless the skill pre-approves tools or brings hooks: then
        invoking it needs the same approval as any other tool call."""
        skill = self.runtime.catalog.get(self._target(input)[0])
        return skill is None or not (skill.allowed_tools or skill.hooks)

    def summary(self, input: Any) -> str:
        return f"Skill {self._target(input)[0]}"

    async def run(self, input: Any, ctx: ToolContext) -> ToolResult:
        from yoke.skills.expand import render_body
        from yoke.skills.inline import InlineError

        name, args = self._target(input)
        if not name:
            raise ToolError("Give the skill's name in `skill`.")
        runtime = self.runtime
        skill = runtime.catalog.get(name)
        if skill is None:
            raise ToolError(f"Unknown skill: {name}. Invoke only skills listed in this tool's description.")
        if not skill.model_invocable:
            raise ToolError(
                f"Skill {name} can only be invoked by the user (/{name}); it has disable-model-invocation set."
            )
        try:
            body = await render_body(
                skill,
                args,
                session_id=runtime.session_id,
                cwd=runtime.cwd,
                env=runtime.env,
                permit=runtime.permit_for(skill, "claude", ctx.tool_use_id),
                run_shell=runtime.run_shell,
            )
        except InlineError as exc:
            raise ToolError(f"Skill {name} could not be loaded: {exc}") from None
        notices = runtime.activate(skill)
        text = f"Launching skill: {skill.name}\n\n{body}"
        if notices:
            text += "\n\n" + "\n".join(f"Note: {n}" for n in notices)
        data = {"success": True, "commandName": skill.name, "allowedTools": skill.allowed_tools or None}
        return ToolResult(text, data={k: v for k, v in data.items() if v is not None})

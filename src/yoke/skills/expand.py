"""`/name args` turned into the message Claude Code sends for it.

A prompt that starts with `/name` naming a skill or custom command becomes one user message of two text
blocks: the command tags Claude Code writes (`<command-message>`, `<command-name>`, `<command-args>`), then
the expanded body (a skill's starts with its base directory). Built-in commands that make sense headless
(`/compact`, `/init`, `/cost`, `/context`, `/memory`) are recognised; any other `/word` reaches the model as
the text it is, as Claude Code does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from yoke.messages import Block
from yoke.records import dataclass
from yoke.skills.catalog import Catalog
from yoke.skills.command_line import parse_command
from yoke.skills.inline import InlineError, Permit, RunShell, inline_files, run_shell_blocks
from yoke.skills.model import Skill
from yoke.skills.substitute import Substitution, substitute

BUILTINS = ("compact", "init", "cost", "context", "memory", "review", "code-review", "security-review", "debug",
            "usage", "model", "loop", "goal")  # fmt: skip


@dataclass
class Expanded:
    """What to do with a prompt.

    prompt: what the model gets (the original prompt when nothing was expanded); None when nothing goes
    to the model. skill: the skill or command invoked. builtin: a built-in command's name (`cost`, ...),
    with `args`. error: a one-line reason the command could not be expanded (nothing is sent).
    """

    prompt: str | list[Block] | None
    skill: Skill | None = None
    builtin: str | None = None
    name: str | None = None
    args: str = ""
    error: str | None = None
    notices: list[str] = field(default_factory=list)

    @property
    def expanded(self) -> bool:
        return self.skill is not None or self.builtin is not None


def command_tags(name: str, args: str) -> str:
    return (
        f"<command-message>{name}</command-message>\n<command-name>/{name}</command-name>\n"
        f"<command-args>{args}</command-args>"
    )


async def expand_prompt(
    prompt: Any,
    catalog: Catalog | None,
    *,
    session_id: str = "",
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    permit: Permit | None = None,
    permit_for: Callable[[Skill], Permit] | None = None,
    run_shell: RunShell | None = None,
    builtins: bool = True,
) -> Expanded:
    """Expand `/name args`. `permit` and `run_shell` come from the session (`SkillRuntime`): without them
    a command with `!`cmd`` blocks is refused and `@file` references are left as text. `permit_for(skill)`
    gives a Permit that includes the skill's own `allowed-tools`."""
    parsed = parse_command(prompt)
    if parsed is None:
        return Expanded(prompt)
    name, args = parsed
    skill = catalog.get(name) if catalog is not None else None
    # a user's or project's skill or command of a built-in's name wins, as in 2.1.332 (every built-in name
    # checked on the bundled CLI: tests/skills/test_builtin_names.py)
    if builtins and name in BUILTINS and (skill is None or not skill.user_invocable):
        return Expanded(None, builtin=name, name=name, args=args)
    if skill is None or not skill.user_invocable:
        return Expanded(prompt)  # unknown: the model reads it as text
    if permit_for is not None:
        permit = permit_for(skill)
    try:
        body = await render_body(
            skill, args, session_id=session_id, cwd=cwd, env=env, permit=permit, run_shell=run_shell
        )
    except InlineError as exc:
        return Expanded(None, skill=skill, name=skill.name, args=args, error=f"/{skill.name}: {exc}")
    blocks: list[Block] = [
        {"type": "text", "text": command_tags(skill.name, args)},
        {"type": "text", "text": body},
    ]
    return Expanded(blocks, skill=skill, name=skill.name, args=args)


async def render_body(
    skill: Skill,
    args: str,
    *,
    session_id: str = "",
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    permit: Permit | None = None,
    run_shell: RunShell | None = None,
) -> str:
    """The skill's body as the model reads it: placeholders filled, `!`cmd`` output and `@file`s in."""
    import os

    if skill.kind == "workflow":
        raise InlineError(
            f"{skill.name} is a Claude Code workflow script ({skill.path}); Yoke cannot run workflow scripts"
        )
    env = os.environ if env is None else env
    cwd = cwd or Path.cwd()
    values = Substitution(
        args=args,
        session_id=session_id,
        project_dir=Path(env.get("CLAUDE_PROJECT_DIR") or cwd),
        env=env,
    )
    body = substitute(skill, values).strip()
    body = await run_shell_blocks(body, permit, run_shell)
    body = await inline_files(body, cwd, permit)
    if skill.kind == "skill":
        body = f"Base directory for this skill: {skill.base_dir}\n\n{body}"
    return body

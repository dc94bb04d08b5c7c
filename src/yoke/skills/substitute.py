"""A skill's or command's body with its placeholders filled in, as Claude Code fills them.

`$ARGUMENTS` (everything after the name; appended as `ARGUMENTS: …` when the body has no placeholder),
`$ARGUMENTS[N]` and `$N` (0-based, shell-style splitting), `$name` for names the `arguments` frontmatter
declares, `\\$` escapes a dollar, `${CLAUDE_SESSION_ID}`, `${CLAUDE_EFFORT}`, `${CLAUDE_SKILL_DIR}`,
`${CLAUDE_PROJECT_DIR}`, `${CLAUDE_PLUGIN_ROOT}`, `${CLAUDE_PLUGIN_DATA}`.

Yoke extension (from the design notes): a `parameters` frontmatter mapping `name: ${param.name|default}` or
`name: ${env.VAR|default}`, used in the body as `${param.name}`; a value given in the arguments as
`name=value` wins, then the environment, then the default. `${env.VAR|default}` works in the body too, except
for variables that look like credentials (keys, tokens, secrets, passwords), which are never filled in.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping
from pathlib import Path

from yoke.records import Record
from yoke.regex import lazy_compile
from yoke.skills.model import Skill

_INDEXED = lazy_compile(r"(?<!\\)\$ARGUMENTS\[(\d+)\]")
_ALL = lazy_compile(r"(?<!\\)\$ARGUMENTS\b(?!\[\d+\])")
_POSITIONAL = lazy_compile(r"(?<!\\)\$(\d+)\b")
_BRACED = lazy_compile(r"(?<!\\)\$\{(CLAUDE_[A-Z_]+|YOKE_[A-Z_]+)\}")
_PARAM = lazy_compile(r"(?<!\\)\$\{param\.([A-Za-z0-9_.-]+)(?:\|([^}]*))?\}")
_ENV = lazy_compile(r"(?<!\\)\$\{env\.([A-Za-z_][A-Za-z0-9_]*)(?:\|([^}]*))?\}")
_SECRET = lazy_compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH", re.I)


class Substitution(Record):
    """What the placeholders are filled with."""

    __slots__ = ("args", "session_id", "project_dir", "effort", "env")

    args: str
    session_id: str
    project_dir: Path | None
    effort: str
    env: Mapping[str, str] | None

    def __init__(
        self,
        args: str = "",
        session_id: str = "",
        project_dir: Path | None = None,
        effort: str = "",
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.args = args
        self.session_id = session_id
        self.project_dir = project_dir
        self.effort = effort
        self.env = env


def split_args(args: str) -> list[str]:
    """Shell-style words; text that does not split (an open quote) falls back to whitespace words."""
    try:
        return shlex.split(args)
    except ValueError:
        return args.split()


def substitute(skill: Skill, values: Substitution) -> str:
    """The body with its placeholders filled. A positional reference (`$N`, `$ARGUMENTS[N]`) past the last
    argument given is left as written (an awk `$1`, a price `$5`), and when nothing was filled in, the
    arguments are appended as `ARGUMENTS: …`: the rule 2.1.332 follows (generated cases in
    tests/skills/test_positional_args.py)."""
    env = values.env or {}
    words = split_args(values.args)
    body = skill.body
    filled = [False]

    def positional(match: re.Match[str]) -> str:
        index = int(match.group(1))
        if index >= len(words):
            return match.group(0)
        filled[0] = True
        return words[index]

    body = _INDEXED.sub(positional, body)
    filled[0] |= bool(_ALL.search(body)) or (bool(skill.parameters) and bool(_PARAM.search(body)))
    body = _ALL.sub(_constant(values.args), body)
    for index, name in enumerate(skill.arguments):
        filled[0] |= bool(_named(name).search(body))
        body = _named(name).sub(_constant(_word(words, index)), body)
    body = _POSITIONAL.sub(positional, body)
    variables = _variables(skill, values)
    body = _BRACED.sub(lambda m: variables.get(m.group(1), m.group(0)), body)
    params = resolve_parameters(skill, words, env)
    body = _PARAM.sub(lambda m: params.get(m.group(1)) or (m.group(2) or ""), body)
    body = _ENV.sub(lambda m: _env_value(env, m.group(1), m.group(2)), body)
    body = body.replace("\\$", "$")
    if values.args.strip() and not filled[0]:
        body = f"{body.rstrip()}\n\nARGUMENTS: {values.args}"
    return body


def _named(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\\)\${re.escape(name)}\b")


def _word(words: list[str], index: int) -> str:
    return words[index] if index < len(words) else ""


def _constant(text: str) -> Callable[[re.Match[str]], str]:
    """A replacement for `re.sub` that inserts `text` as it is (a string would have its backslashes read)."""
    return lambda _match: text


def _variables(skill: Skill, values: Substitution) -> dict[str, str]:
    variables = {
        "CLAUDE_SESSION_ID": values.session_id,
        "CLAUDE_EFFORT": values.effort or skill.effort or "",
        "CLAUDE_SKILL_DIR": str(skill.base_dir),
        "CLAUDE_PROJECT_DIR": str(values.project_dir or ""),
        "YOKE_PROJECT_DIR": str(values.project_dir or ""),
        "YOKE_SESSION_ID": values.session_id,
    }
    if skill.plugin is not None:
        variables["CLAUDE_PLUGIN_ROOT"] = str(skill.plugin.root)
        variables["CLAUDE_PLUGIN_DATA"] = str(skill.plugin.data_dir)
    return variables


def resolve_parameters(skill: Skill, words: list[str], env: Mapping[str, str]) -> dict[str, str]:
    """The `parameters` frontmatter resolved: `name=value` in the arguments, then the template's
    environment variable, then its default."""
    given = {}
    for word in words:
        key, sep, value = word.partition("=")
        if sep and key in skill.parameters:
            given[key] = value
    resolved: dict[str, str] = {}
    for key, template in skill.parameters.items():
        if key in given:
            resolved[key] = given[key]
            continue
        text = "" if template is None else str(template)
        env_ref = _ENV.fullmatch(text.strip())
        if env_ref:
            resolved[key] = _env_value(env, env_ref.group(1), env_ref.group(2))
            continue
        param_ref = _PARAM.fullmatch(text.strip())
        if param_ref:
            resolved[key] = param_ref.group(2) or ""
            continue
        resolved[key] = text  # a literal value
    return resolved


def _env_value(env: Mapping[str, str], name: str, default: str | None) -> str:
    if _SECRET.search(name):
        return default or ""
    value = env.get(name)
    return value if value not in (None, "") else (default or "")

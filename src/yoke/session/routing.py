"""The prompt router: where a prompt goes before (or instead of) the model.

`Session.query` hands every prompt to its router (`Session(router=...)`, `default_router()` unless a
front-end or a test gives another). Rewrites run first, in order (an MCP server's `/mcp__<server>__<prompt>`
becomes the text the server renders); then the first route that claims the prompt answers it: `/compact`,
then slash commands (skills, custom commands and built-ins such as `/cost`: `skills/session.py`
`command_route`); a prompt nobody claims goes to the model with its `@path` mentions attached.

A route is `(session, prompt) -> AsyncIterator[Event] | None`: None when the prompt is not its own, decided
without waiting; the events otherwise, ending in one `Result`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from yoke import events as ev

if TYPE_CHECKING:
    from yoke.session.engine import Session

Route = Callable[["Session", Any], "AsyncIterator[ev.Event] | None"]
Rewrite = Callable[["Session", Any], Awaitable[Any]]


class PromptRouter:
    def __init__(self, rewrites: Sequence[Rewrite], routes: Sequence[Route], fallback: Route) -> None:
        self.rewrites = list(rewrites)
        self.routes = list(routes)
        self.fallback = fallback  # must claim every prompt

    async def events(self, session: Session, prompt: Any) -> AsyncIterator[ev.Event]:
        for rewrite in self.rewrites:
            prompt = await rewrite(session, prompt)
        refusal = oversized(session, prompt)
        if refusal:  # every way in (-p, stream-json, the host, the SDK, a slash command), before any upload
            yield ev.Result("prompt_too_long", True, refusal, 0, 0, 0, 0.0, ev.Usage(), {}, [])
            return
        for route in self.routes:
            events = route(session, prompt)
            if events is not None:
                break
        else:
            events = self.fallback(session, prompt)
        assert events is not None, "the fallback route claims every prompt"
        async for event in events:
            yield event


def oversized(session: Session, prompt: Any) -> str:
    """Why a prompt (text, or content blocks' text) cannot be sent: it alone fills the model's window."""
    if isinstance(prompt, str):
        text = prompt
    else:
        blocks = prompt if isinstance(prompt, list) else []
        text = "".join(b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str))
    if len(text) < 100_000:  # the common case, at no cost (oversized_prompt looks closer from 200,000)
        return ""
    from yoke.context.oversize import oversized_prompt

    return oversized_prompt(text, session.model, session.env)


def default_router() -> PromptRouter:
    from yoke.session.uncompact import uncompact_route

    return PromptRouter([mcp_prompt], [compact_route, uncompact_route, command_route], mention_query)


async def mcp_prompt(session: Session, prompt: Any) -> Any:
    """`/mcp__<server>__<prompt> [args]`: the prompt as the server renders it (a failure is a warning, and
    the prompt goes on as written)."""
    if session.mcp is None or not isinstance(prompt, str) or not prompt.lstrip().startswith("/mcp__"):
        return prompt
    try:
        expanded = await session.mcp.expand_command(prompt)
    except Exception as exc:
        session.side_events.append(ev.Notice("warning", f"{prompt.split()[0]}: {exc}"))
        return prompt
    return expanded if expanded else prompt


def compact_route(session: Session, prompt: Any) -> AsyncIterator[ev.Event] | None:
    """`/compact [instructions]` compacts instead of asking (as in Claude Code's headless mode)."""
    command = compact_command(prompt)
    if command is None or _own_skill(session, "compact"):
        return None  # a user's or project's `compact` skill or command wins, as in 2.1.332
    return session.agent.compact(command or None)


def _own_skill(session: Session, name: str) -> bool:
    runtime = session.services.skills
    skill = runtime.catalog.get(name) if runtime is not None else None
    return skill is not None and skill.user_invocable


def compact_command(prompt: Any) -> str | None:
    """`/compact [instructions]` sent as a prompt: the instructions ("" for none), or None."""
    if not isinstance(prompt, str):
        return None
    text = prompt.strip()
    if text != "/compact" and not text.startswith("/compact "):
        return None
    return text[len("/compact") :].strip()


def command_route(session: Session, prompt: Any) -> AsyncIterator[ev.Event] | None:
    """`/name args`: a skill, a custom command or a built-in, when the session has skills."""
    from yoke.skills.session import command_route as skills_route

    return skills_route(session, prompt)


async def mention_query(session: Session, prompt: Any) -> AsyncIterator[ev.Event]:
    """The prompt to the model, with the files and folders its `@path` mentions name attached."""
    from yoke.skills.mentions import attach_mentions

    attachments = await attach_mentions(session, prompt)
    for line in attachments.shown if attachments is not None else []:
        yield ev.Notice(
            "attachment", f"⎿  {line}"
        )  # the terminal's line under the prompt; no stream-json line
    async for event in session.agent.query(prompt, attachments):
        yield event

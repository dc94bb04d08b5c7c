"""`/goal`: the session works turn after turn until a completion check passes or a budget is spent.

    /goal [--check CMD | --ask QUESTION] [--max-turns N] [--max-cost USD] [--max-time 30m] CONDITION
    /goal clear

The check is either a command that must exit 0 (run as the Bash tool runs it: the permission gate, then
the sandbox; headless with nobody attached an ask is a deny, and a denied check stops the goal) or a question
a small model answers YES/NO from the turns' answers (`--ask`; without `--check` the condition itself is the
question). After each turn the goal's watcher (a subscriber of the session's own event stream) runs the
check; not met and within budget, it submits the next prompt to the session as an op (queued behind
anything already queued, on disk, under the session's permission mode). It ends `verified` or `stopped`
with the reason, as a `goal-status` record in the transcript (read back on resume: an active goal goes on)
and a notice on the stream.
"""

from __future__ import annotations

import asyncio
import shlex
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from yoke import events as ev
from yoke.events import port

DEFAULT_MAX_TURNS = 20
RECORD = "goal-status"
CLEAR = ("clear", "stop", "off", "reset", "none", "cancel")
ASK_PROMPT = """\
A coding agent works toward a goal. From its recent answers below, decide whether this condition is met:
{condition}

Recent answers:
{answers}

Reply with YES or NO first, then one short line of why."""


class GoalError(ValueError):
    pass


@dataclass(slots=True)
class Goal:
    condition: str
    check: str = ""  # a command that must exit 0; empty: a model answers `question`
    question: str = ""
    max_turns: int = DEFAULT_MAX_TURNS
    max_cost_usd: float | None = None
    max_time_s: float | None = None
    started: float = field(default_factory=time.time)
    cost_at_start: float = 0.0
    turns: int = 0
    state: str = "active"  # active, verified, stopped
    reason: str = ""


def parse_goal(args: str) -> Goal | None:
    """The goal `/goal ARGS` sets; None for `/goal clear`. GoalError with one line on bad input."""
    try:
        words = shlex.split(args)
    except ValueError as exc:
        raise GoalError(f"/goal: {exc}") from None
    if len(words) == 1 and words[0].lower() in CLEAR:
        return None
    goal = Goal("")
    rest: list[str] = []
    it = iter(words)
    for word in it:
        value = next(it, None) if word.startswith("--") else None
        if word.startswith("--") and value is None:
            raise GoalError(f"/goal: {word} needs a value")
        if word == "--check":
            goal.check = str(value)
        elif word == "--ask":
            goal.question = str(value)
        elif word == "--max-turns":
            goal.max_turns = _positive(word, value, int)
        elif word == "--max-cost":
            goal.max_cost_usd = _positive(word, str(value).lstrip("$"), float)
        elif word == "--max-time":
            goal.max_time_s = _duration(str(value))
        elif word.startswith("--"):
            raise GoalError(
                f"/goal: unknown option {word} (--check, --ask, --max-turns, --max-cost, --max-time)"
            )
        else:
            rest.append(word)
    goal.condition = " ".join(rest).strip()
    if not goal.condition:
        raise GoalError(
            "Usage: /goal [--check CMD | --ask QUESTION] [--max-turns N] [--max-cost USD] CONDITION"
        )
    if goal.check and goal.question:
        raise GoalError("/goal: --check or --ask, not both")
    if not goal.check and not goal.question:
        goal.question = goal.condition
    return goal


def _positive(name: str, value: Any, kind: Callable[[Any], Any]) -> Any:
    try:
        number = kind(value)
    except ValueError:
        raise GoalError(f"/goal: {name} takes a number, not {value!r}") from None
    if number <= 0:
        raise GoalError(f"/goal: {name} must be more than 0")
    return number


def _duration(text: str) -> float:
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    unit = text[-1:] if text[-1:] in units else "s"
    number = _positive("--max-time", text[:-1] if text[-1:] in units else text, float)
    return float(number * units[unit])


class GoalWatcher:
    """The session's active goal: after each turn, the check; then the next prompt, or the end."""

    def __init__(self, session: Any, goal: Goal):
        self.session, self.goal = session, goal
        self.answers: list[str] = []
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        stream = self.session.events()  # subscribed now: the running turn's result is not missed
        self.task = asyncio.get_running_loop().create_task(self._watch(stream))

    def stop(self) -> None:
        if _WATCHERS.get(self.session.id) is self:
            del _WATCHERS[self.session.id]
        if self.task is not None:
            self.task.cancel()

    async def _watch(self, stream: Any) -> None:
        async for event in stream:
            if isinstance(event, ev.Result) and event.agent_id == "main":
                self.answers = [*self.answers, event.text or ""][-10:]
                if not await self._after_turn():
                    return

    async def _after_turn(self) -> bool:
        goal = self.goal
        goal.turns += 1
        met, why = await self._check()
        if met:
            return self._end("verified", why or "the check passed")
        spent = float(self.session.total_cost_usd) - goal.cost_at_start
        if why.startswith("denied"):
            return self._end("stopped", f"the check could not run: {why}")
        if goal.turns >= goal.max_turns:
            return self._end("stopped", f"budget spent: {goal.turns} turns (--max-turns {goal.max_turns})")
        if goal.max_cost_usd is not None and spent >= goal.max_cost_usd:
            return self._end("stopped", f"budget spent: ${spent:.2f} (--max-cost {goal.max_cost_usd})")
        if goal.max_time_s is not None and time.time() - goal.started >= goal.max_time_s:
            return self._end("stopped", f"budget spent: {goal.max_time_s:.0f} s of wall time (--max-time)")
        record(self.session, goal)
        prompt = f"The goal is not met yet ({why}). Keep working toward it: {goal.condition}"
        await self.session.submit(port.Prompt(prompt, id=f"goal-{goal.turns}", unattended=True))
        return True

    def _end(self, state: str, reason: str) -> bool:
        self.goal.state, self.goal.reason = state, reason
        record(self.session, self.goal)
        self.session.port.publish(ev.Notice("goal", f"Goal {state}: {reason} — {self.goal.condition}"))
        return False

    async def _check(self) -> tuple[bool, str]:
        if self.goal.check:
            return await run_check(self.session, self.goal.check)
        return await ask_model(self.session, self.goal.question, self.answers)


async def run_check(session: Any, command: str) -> tuple[bool, str]:
    """The command through the Bash tool's door: the gate (and on ask the session's asker), then the tool."""
    runtime = session.services.skills
    if runtime is None or runtime.registry is None or runtime.registry.get("Bash") is None:
        return False, "denied: this session has no Bash tool"
    verdict = await runtime.permit_for(None)("Bash", {"command": command})
    if not verdict.allowed:
        return False, f"denied: {verdict.reason or 'the permission gate refused it'}"
    tool = runtime.registry.get("Bash")
    parsed = tool.validate({"command": command, "description": "goal check"})
    result = await tool.run(parsed, runtime.ctx.for_call(f"goal-check-{int(time.time() * 1000)}"))
    data = result.data if isinstance(result.data, dict) else {}
    code = data.get("exitCode")
    return (code == 0 and not result.is_error), f"`{command}` exited {code}"


async def ask_model(session: Any, question: str, answers: list[str]) -> tuple[bool, str]:
    from yoke.hooks.model_call import provider_prompt_model

    agent = session.agent
    call = provider_prompt_model(agent.provider, session.provider_name, session.model, session.env)
    text = ASK_PROMPT.format(condition=question, answers="\n---\n".join(answers) or "(none)")
    try:
        reply = (await call(text, None, 60.0)).strip()
    except Exception as exc:  # a failed check is a not-met turn, said
        return False, f"the model check failed: {type(exc).__name__}"
    return reply.upper().startswith("YES"), reply.splitlines()[0][:200] if reply else "no answer"


def record(session: Any, goal: Goal) -> None:
    session.agent.recorder.transcript.append({"type": RECORD, "sessionId": session.id, **asdict(goal)})


def restore_goal(records: Iterable[dict[str, Any]]) -> Goal | None:
    """The goal a resumed session still works toward: the last `goal-status` record, if active."""
    last = next((r for r in reversed(list(records)) if r.get("type") == RECORD), None)
    if last is None or last.get("state") != "active":
        return None
    fields = {k: v for k, v in last.items() if k in Goal.__dataclass_fields__}
    return Goal(**fields)


async def goal_command(session: Any, args: str, started: float) -> Any:
    """`/goal ARGS` as a command's events: the goal set, then its first turn."""
    from yoke.skills.builtin_commands import local_result

    agent = session.agent
    old = _WATCHERS.get(session.id)
    if old is not None:
        old.stop()
    try:
        goal = parse_goal(args)
    except GoalError as exc:
        yield local_result(agent, str(exc), started, is_error=True)
        return
    if goal is None:
        if old is not None:
            old.goal.state, old.goal.reason = "stopped", "cleared by /goal clear"
            record(session, old.goal)
        yield local_result(agent, "Goal cleared." if old else "No goal was set.", started)
        return
    goal.cost_at_start = float(session.total_cost_usd)
    record(session, goal)
    watch(session, goal)
    async for event in agent.query(f"Work toward this goal until it is met: {goal.condition}"):
        yield event


_WATCHERS: dict[str, GoalWatcher] = {}  # session id → its active goal's watcher


def watch(session: Any, goal: Goal) -> GoalWatcher:
    watcher = GoalWatcher(session, goal)
    _WATCHERS[session.id] = watcher
    scheduler = session.services.scheduler
    if scheduler is not None:
        scheduler.closing.append(watcher.stop)  # the goal's watch ends with the session
    watcher.start()
    return watcher


def active_goal(session_id: str) -> Goal | None:
    watcher = _WATCHERS.get(session_id)
    return watcher.goal if watcher is not None and watcher.goal.state == "active" else None

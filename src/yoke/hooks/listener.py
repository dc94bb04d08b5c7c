"""The hook runner as a lifecycle listener: configured hooks answer the session's announcements.

For each announcement: the groups of that event whose matcher selects it, their handlers whose `if` holds,
identical ones once, all run in parallel; each answer translated (`hooks/outcome.py`) and merged with the
strictest decision winning. Async hooks (`"async": true` in the configuration, or `{"async": true}` as
the first line they print) carry on in the background; what they say later waits in `take_async_messages`
(an async hook that exits 2 asks to wake the model). `CLAUDE_ENV_FILE` exports written by SessionStart,
Setup, CwdChanged and FileChanged hooks collect in `env_exports` / `env_script` for later Bash calls.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from yoke.hooks.background import AsyncHookMessage, BackgroundMessages
from yoke.hooks.config import HookGroup, HookHandler, HookSet
from yoke.hooks.envfile import EnvFiles
from yoke.hooks.matching import TOOL_EVENTS, IfCondition, match_value, matcher_matches
from yoke.hooks.outcome import MAX_TEXT, translate
from yoke.hooks.runners import (
    HookRun,
    PromptModel,
    handler_timeout,
    is_async_answer,
    kill_group,
    run_callback,
    run_http,
    run_prompt,
    start_command,
    wait_first_line,
)
from yoke.loop.lifecycle import LifecycleOutcome, merge_outcomes

ENV_FILE_EVENTS = frozenset({"SessionStart", "Setup", "CwdChanged", "FileChanged"})
# Events whose hooks only command (and mcp_tool) handlers may answer, as in Claude Code.
COMMAND_ONLY_EVENTS = frozenset({"SessionStart"})
ReportFn = Callable[[str, HookRun], None]  # ("started" | "response", run)


class HookListener:
    """Answers lifecycle announcements with the configured hooks (see the module docstring)."""

    def __init__(
        self,
        hooks: HookSet | list[HookGroup] | None = None,
        *,
        project_dir: Path,
        home: Path | None = None,
        work_dir: Path | None = None,
        prompt_model: PromptModel | None = None,
        agent_model: PromptModel | None = None,
        tool_lookup: Callable[[str], Any] | None = None,
        on_report: ReportFn | None = None,
        base_env: dict[str, str] | None = None,
        export_to: dict[str, str] | None = None,
    ):
        hook_set = hooks if isinstance(hooks, HookSet) else HookSet(groups=list(hooks or []))
        self.warnings: list[str] = list(hook_set.warnings)
        self._groups: list[HookGroup] = []
        self._by_event: dict[str, list[HookGroup]] = {}
        self.add_groups(hook_set.groups)
        self.project_dir = project_dir
        self.home = home or Path.home()
        self.prompt_model = prompt_model
        self.agent_model = agent_model
        self.tool_lookup = tool_lookup
        self.on_report = on_report
        self.base_env = base_env
        self._if = IfCondition(project_dir, self.home, tool_lookup)
        self._ids = itertools.count(1)
        self._messages = BackgroundMessages()
        self.async_ready = self._messages.ready  # set while background hooks' messages wait
        self._background: set[asyncio.Task[Any]] = set()
        self._env = EnvFiles(work_dir, export_to)
        self.watch_paths: list[str] = []

    # -- configuration ---------------------------------------------------------------------------------

    def add_groups(self, groups: list[HookGroup]) -> None:
        for group in groups:
            self._groups.append(group)
            self._by_event.setdefault(group.event, []).append(group)

    def describe_hooks(self) -> list[dict[str, Any]]:
        """One row per configured handler, for front-ends to list: event, matcher, type, target, scope,
        source (a settings file, `plugin NAME`, `skill NAME`)."""
        return [
            {
                "event": g.event,
                "matcher": g.matcher,
                "type": h.type,
                "target": h.describe(),
                "scope": g.scope,
                "source": g.source,
            }
            for g in self._groups
            for h in g.handlers
        ]

    def remove_tag(self, tag: str) -> None:
        """Drop every group added with `tag` (a skill's or an agent's frontmatter hooks, a plugin)."""
        self._groups = [g for g in self._groups if g.tag != tag]
        self._by_event = {}
        for group in self._groups:
            self._by_event.setdefault(group.event, []).append(group)

    def register_callback(
        self,
        event: str,
        fn: Callable[..., Any],
        matcher: str = "",
        timeout: float | None = None,
        fail_closed: bool = False,
    ) -> None:
        """An SDK hook: `fn(input, tool_use_id, context)` returns Claude Code's hook JSON output as a dict.
        `fail_closed` is the SDK's `onFailure: "block"`."""
        handler = HookHandler(type="callback", callback=fn, timeout=timeout, fail_closed=fail_closed)
        self.add_groups([HookGroup(event, matcher or "", [handler], "sdk", "sdk")])

    @property
    def groups(self) -> list[HookGroup]:
        return list(self._groups)

    # -- the listener protocol -------------------------------------------------------------------------

    def wants(self, event: str) -> bool:
        if self._by_event.get(event):
            return True
        return self._messages.waiting_for(event)

    async def announce(self, event: str, payload: dict[str, Any]) -> LifecycleOutcome:
        merged = await self._answer(event, payload)
        late = self._messages.deliver(event)
        return merged if late is None else merge_outcomes([merged, late])

    async def _answer(self, event: str, payload: dict[str, Any]) -> LifecycleOutcome:
        chosen = self._select(event, payload)
        if not chosen:
            return LifecycleOutcome()
        value = match_value(event, payload)
        name = f"{event}:{value}" if value else event
        data = json.dumps(payload, separators=(",", ":"), ensure_ascii=False, default=str)
        runs = await asyncio.gather(*(self._run(name, event, payload, data, g, h) for g, h in chosen))
        outcomes = [translate(run, self._cap) for run in runs]
        for group, handler in chosen:
            # `once` is honoured only in skill frontmatter, as in Claude Code.
            if handler.once and group.scope == "skill" and handler in group.handlers:
                group.handlers.remove(handler)
        merged = outcomes[0] if len(outcomes) == 1 else merge_outcomes(outcomes)
        watch = merged.extras.get("watchPaths")
        if isinstance(watch, list):
            self.watch_paths += [str(p) for p in watch if str(p) not in self.watch_paths]
        return merged

    def _select(self, event: str, payload: dict[str, Any]) -> list[tuple[HookGroup, HookHandler]]:
        value = match_value(event, payload)
        aliases: tuple[str, ...] = ()
        if value and self.tool_lookup is not None and event in TOOL_EVENTS:
            tool = self.tool_lookup(value)
            aliases = tuple(getattr(tool, "aliases", ()) or ()) if tool is not None else ()
        chosen: list[tuple[HookGroup, HookHandler]] = []
        seen: set[tuple[Any, ...]] = set()
        for group in self._by_event.get(event, []):
            if not matcher_matches(group.matcher, event, value, aliases):
                continue
            for handler in group.handlers:
                if event in COMMAND_ONLY_EVENTS and handler.type not in ("command", "mcp_tool", "callback"):
                    continue
                if handler.if_rule is not None and not self._if.holds(handler.if_rule, event, payload):
                    continue
                key = _dedup_key(group, handler)
                if key in seen:
                    continue
                seen.add(key)
                chosen.append((group, handler))
        return chosen

    # -- running ---------------------------------------------------------------------------------------

    async def _run(
        self,
        name: str,
        event: str,
        payload: dict[str, Any],
        data: str,
        group: HookGroup,
        handler: HookHandler,
    ) -> HookRun:
        run = HookRun(
            f"hook_{next(self._ids)}", name, event, handler, group, str(payload.get("session_id", ""))
        )
        self._report("started", run)
        started = time.monotonic()
        timeout = handler_timeout(handler, event)
        try:
            if handler.type == "command":
                await self._command(run, payload, data, timeout)
            elif handler.type == "http":
                await run_http(run, data.encode("utf-8"), timeout, self._environment(group, payload, None))
            elif handler.type == "prompt":
                await run_prompt(run, self.prompt_model, data, timeout)
            elif handler.type == "agent":
                await run_prompt(run, self.agent_model, data, timeout)
            elif handler.type == "callback":
                await run_callback(run, payload, timeout)
            else:
                run.outcome, run.error = "error", f"{handler.type} hooks are not supported yet"
        except asyncio.CancelledError:
            run.outcome, run.error = "cancelled", "cancelled"
            raise
        except Exception as exc:  # a bug in a runner must not end the session
            run.outcome, run.error = "error", f"{type(exc).__name__}: {exc}"
        finally:
            run.duration_ms = int((time.monotonic() - started) * 1000)
            if not run.backgrounded:
                self._env.collect(run.env_file)
                self._report("response", run)
        return run

    async def _command(self, run: HookRun, payload: dict[str, Any], data: str, timeout: float) -> None:
        group, handler = run.group, run.handler
        env_file = self._env.new_file(run.event, run.hook_id) if run.event in ENV_FILE_EVENTS else None
        run.env_file = env_file
        env = self._environment(group, payload, env_file)
        subst: dict[str, str] = {
            k: env[k] for k in ("CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA") if k in env
        }
        cwd = Path(str(payload.get("cwd") or self.project_dir))
        job = await start_command(run, data.encode("utf-8"), env, cwd, subst)
        if job is None:
            return
        deadline = time.monotonic() + timeout
        if not handler.run_async:
            try:
                first = await wait_first_line(job, deadline)
            except asyncio.CancelledError:  # the user interrupted: nothing the hook started survives
                kill_group(job.proc)
                raise
            if not is_async_answer(first):
                await job.finish(run, deadline)
                return
        run.backgrounded = True
        task = asyncio.ensure_future(self._finish_in_background(job, run, deadline))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _finish_in_background(self, job: Any, run: HookRun, deadline: float) -> None:
        started = time.monotonic()
        try:
            await job.finish(run, deadline)
        except asyncio.CancelledError:
            run.outcome = "cancelled"
        finally:
            run.duration_ms += int((time.monotonic() - started) * 1000)
            self._env.collect(run.env_file)
            self._report("response", run)
        if run.outcome == "success":
            self._messages.queue_answer(run, self._cap)
        elif run.outcome == "error":
            self._messages.queue(
                AsyncHookMessage(
                    "system", f"{run.hook_name} hook error: {run.error}", run.hook_name, run.event
                )
            )

    def notify(self, text: str) -> None:
        """A line for the user, shown at the next announcement that can carry it (e.g. a skill's hooks
        skipped when it is invoked)."""
        self._messages.queue(AsyncHookMessage("system", text, "", ""))

    def take_async_messages(self) -> list[AsyncHookMessage]:
        """What background hooks have said since the last call (the session delivers it next turn; a
        "rewake" message is a reason to start a turn now)."""
        return self._messages.take()

    async def wait_background(self, timeout: float | None = None) -> None:
        """Let background hooks finish (tests, and front-ends that wait before exiting)."""
        if self._background:
            await asyncio.wait(set(self._background), timeout=timeout)

    async def aclose(self) -> None:
        """End of session: background hooks are killed and reported as cancelled."""
        tasks = list(self._background)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    # -- environment -----------------------------------------------------------------------------------

    def set_export_target(self, env: dict[str, str] | None) -> None:
        """Where CLAUDE_ENV_FILE exports go as hooks write them (the session's environment)."""
        self._env.export_to = env

    @property
    def env_exports(self) -> dict[str, str]:
        """Variables hooks exported through CLAUDE_ENV_FILE (parsed; the script itself is `env_script`)."""
        return self._env.exports

    @property
    def env_script(self) -> str:
        """Everything hooks wrote to CLAUDE_ENV_FILE, in order: source it before a Bash command."""
        return self._env.script

    def _environment(
        self, group: HookGroup, payload: dict[str, Any], env_file: Path | None
    ) -> dict[str, str]:
        env = dict(os.environ if self.base_env is None else self.base_env)
        for key in [k for k in env if k.startswith("OTEL_EXPORTER")]:
            env.pop(key)
        project = str(self.project_dir)
        env.update({"CLAUDE_PROJECT_DIR": project, "YOKE_PROJECT_DIR": project, "CLAUDECODE": "1"})
        if payload.get("session_id"):
            env["CLAUDE_CODE_SESSION_ID"] = str(payload["session_id"])
        if group.plugin_root is not None:
            env["CLAUDE_PLUGIN_ROOT"] = str(group.plugin_root)
        if group.plugin_data is not None:
            env["CLAUDE_PLUGIN_DATA"] = str(group.plugin_data)
            try:
                group.plugin_data.mkdir(parents=True, exist_ok=True)  # created on first use
            except OSError:
                pass
        if env_file is not None:
            env["CLAUDE_ENV_FILE"] = str(env_file)
        return env

    def _work(self) -> Path:
        return self._env.work()

    def _cap(self, text: str, what: str) -> str:
        if len(text) <= MAX_TEXT:
            return text
        note = f"{len(text) - MAX_TEXT} more characters"
        try:
            spill = self._work() / f"output-{next(self._ids)}.txt"
            spill.write_text(text, encoding="utf-8")
            note += f"; the whole text is in {spill}"
        except OSError:
            pass
        return text[:MAX_TEXT] + f"\n[{what} cut: {note}]"

    def _report(self, phase: str, run: HookRun) -> None:
        if self.on_report is None:
            return
        try:
            self.on_report(phase, run)
        except Exception:
            pass  # an observer's bug must not change what hooks do


def _dedup_key(group: HookGroup, handler: HookHandler) -> tuple[Any, ...]:
    if handler.type == "callback":
        return ("callback", id(handler.callback), group.matcher)
    target = handler.command or handler.url or handler.prompt
    args = tuple(handler.args) if handler.args is not None else None
    return (handler.type, str(group.plugin_root or ""), handler.shell, target, args, handler.if_rule)

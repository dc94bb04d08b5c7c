"""Fail closed for the hooks an untrusted folder brings.

A project's hooks are the repository's code, so they do not run until the folder is trusted. But a
PreToolUse or PermissionRequest hook is also a judge: a project may rely on one to block `rm` or a push.
Skipping it must not let the calls it would have judged run unjudged when a flag opens permissions
(`--dangerously-skip-permissions` in a fresh clone). So while such hooks are skipped, every call their
matchers cover gets an "ask" in their place: asked in the terminal, denied in a headless run (and in
bypassPermissions: a hook's ask comes before the mode), with a reason naming `yoke trust`.
"""

from __future__ import annotations

from typing import Any

from yoke.hooks.config import HookGroup
from yoke.hooks.matching import match_value, matcher_matches
from yoke.loop.lifecycle import LifecycleOutcome

JUDGING_EVENTS = ("PreToolUse", "PermissionRequest")


class UntrustedJudges:
    """A listener standing in for the skipped call-judging hooks of an untrusted folder."""

    def __init__(self, groups: list[HookGroup]) -> None:
        self.groups = [g for g in groups if g.event in JUDGING_EVENTS]

    def wants(self, event: str) -> bool:
        return event == "PreToolUse" and bool(self.groups)

    async def announce(self, event: str, payload: dict[str, Any]) -> LifecycleOutcome:
        for group in self.groups:
            if matcher_matches(group.matcher, group.event, match_value(group.event, payload)):
                tool = payload.get("tool_name", "this tool")
                return LifecycleOutcome(
                    decision="ask",
                    reason=(
                        f"{group.source} has a {group.event} hook for {tool} that does not run until this "
                        "folder is trusted, so the call needs approval (run `yoke trust` to let the hook judge)"
                    ),
                )
        return LifecycleOutcome()

"""Auto memory in one session: the prompt section, the write allowance, recall per prompt, extraction at
the end. Built once by the session setup; everything here fails soft (a memory problem never stops a run).
"""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke.memory.auto import AutoMemoryConfig, resolve_auto_memory
from yoke.memory.recall import RecallIndex, format_recall, scan
from yoke.memory.section import IGNORE_NOTICE, memory_section
from yoke.memory.store import load_index
from yoke.records import Record
from yoke.regex import lazy_compile

if TYPE_CHECKING:
    from yoke.permissions.pipeline import PermissionGate

_IGNORE = lazy_compile(
    r"\b(?:ignore|disregard|do\s+not\s+use|don'?t\s+use|without(?:\s+using)?|forget\s+about)\s+"
    r"(?:(?:your|the|my|any|all|auto|saved|stored)[\s-]+){0,3}memor(?:y|ies)\b",
    re.IGNORECASE,
)


def asks_to_ignore_memory(prompt: str) -> bool:
    # most prompts never mention memory: they skip compiling the pattern (half a millisecond a run)
    return "memor" in prompt.casefold() and _IGNORE.search(prompt) is not None


def index_db_path(yoke_home: Path, directory: Path) -> Path:
    from yoke.memory.auto import sanitize_path

    return yoke_home / "memory-index" / (sanitize_path(directory)[:200] + ".sqlite3")


class AutoMemory(Record):
    __slots__ = ("config", "yoke_home", "seen", "start_messages", "_index")

    def __init__(
        self,
        config: AutoMemoryConfig,
        yoke_home: Path,
        seen: set[str] | None = None,
        start_messages: int = 0,
        _index: RecallIndex | None = None,
    ) -> None:
        self.config = config
        self.yoke_home = yoke_home
        self.seen = set() if seen is None else seen  # memories already surfaced in this session
        # history length when the session started: extraction reads what follows
        self.start_messages = start_messages
        self._index = _index

    @property
    def directory(self) -> Path:
        return self.config.directory

    @property
    def index(self) -> RecallIndex:
        if self._index is None:
            self._index = RecallIndex(self.directory, index_db_path(self.yoke_home, self.directory))
        return self._index

    def prompt_section(self) -> str:
        return memory_section(self.directory, load_index(self.directory))

    def recall_for_prompt(self, prompt: str, seen: set[str] | None = None) -> str | None:
        """Context for this prompt from the full-text index: the relevant memories not yet surfaced
        (recorded in `seen`), the ignore-memory notice, or None. No model call."""
        seen = self.seen if seen is None else seen
        if asks_to_ignore_memory(prompt):
            return IGNORE_NOTICE
        try:
            if self._index is None and not scan(str(self.directory)):
                return None  # no memories yet: no index to build
            hits = self.index.search(prompt, exclude=seen)
        except Exception:  # a locked or broken index costs this prompt its recall, nothing more
            return None
        return self._surface(hits, seen)

    async def recall_async(self, prompt: str, seen: set[str] | None = None, agent: Any = None) -> str | None:
        """What the session calls per prompt: the side query (with `agent`'s provider, model and cost
        ledger) when `autoMemoryRecall` is "model" (falling back to the index when it fails), else
        `recall_for_prompt`."""
        seen = self.seen if seen is None else seen
        if self.config.recall != "model" or agent is None or asks_to_ignore_memory(prompt):
            return self.recall_for_prompt(prompt, seen)
        from yoke.memory.side_query import model_recall
        from yoke.memory.store import list_memories

        root = self.directory.as_posix()
        memories = [
            m for m in list_memories(self.directory, include_expired=False) if str(m.path) not in seen
        ]
        hits = await model_recall(agent, self.config.recall_model, prompt, memories, root)
        if hits is None:
            return self.recall_for_prompt(prompt, seen)
        return self._surface(hits, seen)

    def _surface(self, hits: list, seen: set[str]) -> str | None:
        if not hits:
            return None
        seen.update(str(h.path) for h in hits)
        return format_recall(hits, self.directory)

    def listener(self, agent: Any, outcome: Callable[..., Any]) -> RecallListener:
        """The lifecycle listener that adds recalled memories to each prompt (UserPromptSubmit context).
        `agent` (its provider, model and cost ledger) is needed for recall by side query; `outcome` is the
        loop's `LifecycleOutcome`, handed in so that memory never imports the loop."""
        return RecallListener(partial(self.recall_async, agent=agent), outcome)

    def allow_writes(self, gate: PermissionGate) -> bool:
        from yoke.memory.allowance import allow_memory_directory

        gate.warnings.extend(self.config.warnings)  # printed with the gate's own
        return allow_memory_directory(gate, self.directory, custom=self.config.custom)

    def session_ended(self, agent: Any, provider_name: str) -> bool:
        """Start the background extraction pass over this session's new messages (when turned on)."""
        if not self.config.extraction:
            return False
        from yoke.memory.extract import start_extraction

        messages = list(agent.messages[self.start_messages :])
        return start_extraction(messages, self.directory, agent.settings.model, provider_name, self.yoke_home)

    def close(self) -> None:
        if self._index is not None:
            self._index.close()


class RecallListener:
    """Answers UserPromptSubmit with the recalled memories as additional context (the loop places it in a
    <system-reminder> after the prompt)."""

    def __init__(self, recall: Callable[[str], Awaitable[str | None]], outcome: Callable[..., Any]):
        self.recall = recall
        self.outcome = outcome  # builds the listener's answer (additional_context=...)

    def wants(self, event: str) -> bool:
        return event == "UserPromptSubmit"

    async def announce(self, event: str, payload: dict[str, Any]) -> Any:
        prompt = payload.get("prompt")
        text = prompt if isinstance(prompt, str) else _text_of(prompt)
        extra = await self.recall(text) if text.strip() else None
        return self.outcome(additional_context=extra or "")


def _text_of(content: Any) -> str:
    if not isinstance(content, list):
        return ""
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")


def start_auto_memory(
    cwd: Path,
    settings: Any,
    env: Mapping[str, str] | None = None,
    yoke_home: Path | None = None,
    git_common_dir: str | None = None,
    start_messages: int = 0,
) -> AutoMemory | None:
    """The session's auto memory, or None when it is turned off. `git_common_dir`: what `git rev-parse
    --git-common-dir` printed in `cwd`, when the caller has asked (`yoke.memory.auto.default_directory`);
    `start_messages`: the history's length as the session starts (extraction reads what follows)."""
    env = os.environ if env is None else env
    config = resolve_auto_memory(cwd, settings=settings, env=env, git_common_dir=git_common_dir)
    if not config.enabled:
        return None
    if yoke_home is None:
        from yoke.config.settings import yoke_home_dir

        yoke_home = yoke_home_dir(env=env)
    try:
        config.directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass  # reading still works if it exists; writing will say why it cannot
    return AutoMemory(config, yoke_home, start_messages=start_messages)

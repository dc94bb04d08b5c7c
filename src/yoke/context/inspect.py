"""`yoke --print-context`: what a session here would load and what it costs in tokens."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from yoke.context.compaction import Thresholds
from yoke.context.prompt import build_system_prompt
from yoke.memory.files import MemoryIndex
from yoke.providers.tokens import context_window, effective_window, estimate_json, estimate_text
from yoke.records import Record


class ContextUsage(Record):
    """What fills a session's context window, counted once: the system prompt as sent, the tool definitions
    as sent, the conversation. `/context` in the terminal (its grid) and in `-p`, and `--print-context`,
    all show this one accounting."""

    __slots__ = ("model", "window", "effective", "autocompact", "blocks", "tools", "tool_count", "memory", "messages",
                 "message_count")  # fmt: skip

    def __init__(
        self,
        model: str,
        window: int,
        effective: int,
        autocompact: int,
        blocks: list[tuple[int, str]],
        tools: int,
        tool_count: int,
        memory: list[tuple[int, str, str]],
        messages: int,
        message_count: int,
    ) -> None:
        self.model = model
        self.window = window
        self.effective = effective
        self.autocompact = autocompact
        self.blocks = blocks  # (tokens, first line) per system-prompt block
        self.tools = tools
        self.tool_count = tool_count
        self.memory = memory  # (tokens, path, label) per memory file (part of the system prompt)
        self.messages = messages
        self.message_count = message_count

    @property
    def system(self) -> int:
        return sum(tokens for tokens, _ in self.blocks)

    @property
    def used(self) -> int:
        return self.system + self.tools + self.messages


def measure(
    model: str,
    env: Mapping[str, str],
    system: Sequence[dict[str, Any]],
    tool_specs: Sequence[dict[str, Any]],
    messages: Sequence[Any] = (),
    memory_files: Sequence[Any] = (),
) -> ContextUsage:
    """Count a context from what is (or would be) sent: system blocks, tool definitions, messages."""
    from yoke.providers.tokens import estimate_messages

    effective = effective_window(model, env)
    blocks = []
    for block in system:
        text = str(block.get("text", ""))
        first = text.strip().splitlines()[0] if text.strip() else ""
        blocks.append((estimate_text(text), first[:70]))
    return ContextUsage(
        model,
        context_window(model, env),
        effective,
        Thresholds.for_window(effective, env).autocompact,
        blocks,
        estimate_json(list(tool_specs)) if tool_specs else 0,
        len(tool_specs),
        [(f.tokens, str(f.path), f.label) for f in memory_files],
        estimate_messages(list(messages)) if messages else 0,
        len(messages),
    )


def usage_report(usage: ContextUsage, cwd: Path) -> str:
    window = usage.window or 1
    lines = [
        f"Context for model {usage.model} in {cwd}",
        f"Window: {usage.window:,} tokens; effective {usage.effective:,} after the reply reserve; "
        f"autocompact at {usage.autocompact:,}",
        f"System prompt: ~{usage.system:,} tokens in {len(usage.blocks)} block(s)",
    ]
    lines += [f"  ~{tokens:>7,}  {first}" for tokens, first in usage.blocks]
    lines.append(f"Tool definitions: ~{usage.tools:,} tokens ({usage.tool_count} tools)")
    if usage.memory:
        total = sum(tokens for tokens, _, _ in usage.memory)
        lines.append(f"Memory files (in the system prompt): {len(usage.memory)} loaded, ~{total:,} tokens")
        lines += [f"  ~{tokens:>7,}  {path}  ({label})" for tokens, path, label in usage.memory]
    else:
        lines.append("Memory files: none found")
    lines.append(f"Conversation so far: ~{usage.messages:,} tokens in {usage.message_count} message(s)")
    lines.append(f"In use: ~{usage.used:,} tokens ({100 * usage.used / window:.1f}% of the window)")
    return "\n".join(lines)


async def context_report_async(
    cwd: Path,
    model: str,
    *,
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
    tool_names: Sequence[str] = (),
    tool_specs: Sequence[dict[str, Any]] = (),
    override: str | None = None,
    append: str | None = None,
) -> str:
    """The report for a session that has not started (`--print-context` without one)."""
    env = os.environ if env is None else env
    index = MemoryIndex(Path(cwd), home=home, env=env)
    blocks = await build_system_prompt(
        cwd=Path(cwd),
        model=model,
        tool_names=list(tool_names),
        override=override,
        append=append,
        home=home,
        env=env,
        memory_index=index,
    )
    return usage_report(measure(model, env, blocks, tool_specs, memory_files=index.files), Path(cwd))


def context_report(cwd: Path, model: str, **kwargs: Any) -> str:
    """The report as text. Callable from sync code and from inside a running event loop (it then runs on a
    helper thread); async callers may prefer `context_report_async`."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(context_report_async(cwd, model, **kwargs))
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, context_report_async(cwd, model, **kwargs)).result()

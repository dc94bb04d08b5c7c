"""`yoke --print-context`: what a session here would load and what it costs in tokens."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from yoke.context.compaction import Thresholds
from yoke.context.prompt import build_system_prompt
from yoke.context.tokens import context_window, effective_window, estimate_json, estimate_text
from yoke.memory.files import MemoryIndex


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
    window = context_window(model, env)
    effective = effective_window(model, env)
    thresholds = Thresholds.for_window(effective, env)
    block_tokens = [estimate_text(b.get("text", "")) for b in blocks]
    tools_tokens = estimate_json(list(tool_specs)) if tool_specs else 0
    lines = [
        f"Context for model {model} in {cwd}",
        f"Window: {window:,} tokens; effective {effective:,} after the reply reserve; "
        f"autocompact at {thresholds.autocompact:,}",
        f"System prompt: ~{sum(block_tokens):,} tokens in {len(blocks)} block(s)",
    ]
    for block, tokens in zip(blocks, block_tokens, strict=True):
        first_line = block.get("text", "").strip().splitlines()[0] if block.get("text", "").strip() else ""
        lines.append(f"  ~{tokens:>7,}  {first_line[:70]}")
    if tool_specs:
        lines.append(f"Tool definitions: ~{tools_tokens:,} tokens ({len(tool_specs)} tools)")
    if index.files:
        total = sum(f.tokens for f in index.files)
        lines.append(f"Memory files: {len(index.files)} loaded, ~{total:,} tokens")
        lines += [f"  ~{f.tokens:>7,}  {f.path}  ({f.label})" for f in index.files]
    else:
        lines.append("Memory files: none found")
    used = sum(block_tokens) + tools_tokens
    lines.append(f"Before the first message: ~{used:,} tokens ({100 * used / window:.1f}% of the window)")
    return "\n".join(lines)


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

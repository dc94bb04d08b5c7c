"""Every priced request into the transcript, as a `request_cost` system record (Yoke's own; Claude Code skips
records it does not know): its source, model, usage, cost and the cost's parts, the turn (the user prompt it
answers), the agent, what it added to the prompt and why its cache missed (`loop/spend.py`). `yoke stats`
attributes the session's dollars from them (`cli/stats_drill.py`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke.jsonsafe import loads as safe_loads

if TYPE_CHECKING:
    from yoke.loop.accounting import CostLedger
    from yoke.loop.spend import SpendTracker
    from yoke.providers.base import Usage
    from yoke.session.recorder import Recorder


def record_requests(ledger: CostLedger, recorder: Recorder, spend: SpendTracker | None = None) -> None:
    """From now on each request the ledger prices is written through the root session's recorder (one
    ledger: its sub-agents' requests too, marked with their agent). A resumed session's main agent
    (`spend`) continues from its last request, so a cache miss across processes has its cause too."""
    if spend is not None:
        last = last_request(recorder.transcript.path)
        if last is not None:
            spend.resume(last)

    def write(
        source: str, model: str, usage: Usage, cost: float, parts: dict[str, float], detail: dict[str, Any]
    ) -> None:
        fields: dict[str, Any] = {
            "source": source,
            "model": model,
            "promptUuid": recorder.last_prompt_uuid,
            "usage": {
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "cache_read_input_tokens": usage.cache_read_input_tokens,
                "cache_creation_input_tokens": usage.cache_creation_input_tokens,
            },
            "costUSD": cost,
            "costParts": parts,
        }
        fields.update({k: v for k, v in detail.items() if v is not None})
        try:
            recorder.system({"type": "system", "subtype": "request_cost", **fields})
        except OSError:
            pass  # the transcript's own failures are reported where it is written; costs go on

    ledger.listeners.append(write)


def last_request(path: Path, tail_bytes: int = 1 << 20) -> dict[str, Any] | None:
    """The main agent's newest `request_cost` record in the transcript's last `tail_bytes` (read from the
    end: a long transcript costs no more than a short one), with the newest fingerprint (`shape`, written
    only when it changed) laid over it."""

    try:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - tail_bytes))
            tail = fh.read()
    except OSError:
        return None
    newest: dict[str, Any] | None = None
    for line in reversed(tail.split(b"\n")):
        if b'"request_cost"' not in line:
            continue
        try:
            record = safe_loads(line)
        except ValueError:
            continue
        if (
            not isinstance(record, dict)
            or record.get("subtype") != "request_cost"
            or record.get("agentId") != "main"
        ):
            continue
        newest = newest or record
        if "shape" in record:
            return {**newest, "shape": record["shape"]}
    return newest

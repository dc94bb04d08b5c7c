"""Edit robustness: run Yoke's Edit tool on every case of benchmarks/edit_corpus/ and count the outcomes.

Run: `python benchmarks/bench_edit.py [-v]`. Each case writes its file to a temporary folder, Reads it (as a
model would), sends the case's Edit, and compares the file afterwards:

- applied correctly: expected to apply, and the file now equals the intended edit;
- refused correctly: expected to be refused, refused, and the file untouched;
- missed: expected to apply but refused (a lost convenience, not a harm);
- wrongly applied: applied where it should have been refused, or applied with a different result. Must be 0.
Exits non-zero when anything was wrongly applied.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from yoke.tools.base import SessionState, ToolContext, ToolError
from yoke.tools.builtin.edit import EditInput, EditTool
from yoke.tools.builtin.read import ReadInput, ReadTool

CORPUS = Path(__file__).parent / "edit_corpus" / "cases"


async def run_case(case: dict, folder: Path) -> tuple[str, str]:
    """(outcome, detail) for one case, in a fresh folder and session."""
    ctx = ToolContext(cwd=folder, session=SessionState("bench", folder / ".session"))
    path = folder / "module.py"
    original = case["file"].encode("utf-8")
    path.write_bytes(original)
    await ReadTool().run(ReadInput(file_path=str(path)), ctx)
    edit = EditInput(file_path=str(path), old_string=case["old_string"], new_string=case["new_string"])
    try:
        result = await EditTool().run(edit, ctx)
    except ToolError as e:
        if path.read_bytes() != original:
            return "wrongly applied", "refused but the file changed"
        if case["expect"] == "refused":
            return "refused correctly", str(e).split("\n")[0]
        return "missed", str(e)
    after = path.read_bytes().decode("utf-8")
    if case["expect"] == "refused":
        return "wrongly applied", f"should have been refused; applied: {result.content.splitlines()[1:2]}"
    expected = case["file"].replace(case["intended_old"], case["intended_new"], 1)
    if after != expected:
        return "wrongly applied", "applied with a different result than intended"
    return "applied correctly", ""


async def main(verbose: bool) -> int:
    cases = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(CORPUS.glob("*.json"))]
    outcomes: Counter[str] = Counter()
    by_kind: dict[str, Counter[str]] = {}
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for n, case in enumerate(cases):
            folder = Path(tmp) / str(n)
            folder.mkdir()
            outcome, detail = await run_case(case, folder)
            outcomes[outcome] += 1
            by_kind.setdefault(case["kind"], Counter())[outcome] += 1
            if verbose or outcome in ("wrongly applied", "missed"):
                print(f"{case['id']:<24} {outcome:<18} {detail[:200]}")
    elapsed = time.perf_counter() - began
    expected_applied = sum(1 for c in cases if c["expect"] == "applied")
    print(
        f"\n{len(cases)} cases ({expected_applied} near-misses to apply, {len(cases) - expected_applied} to refuse)"
        f" in {elapsed:.2f} s"
    )
    for kind, counts in by_kind.items():
        print(f"  {kind:<16} " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    print(
        f"applied correctly: {outcomes['applied correctly']}  refused correctly: {outcomes['refused correctly']}  "
        f"missed: {outcomes['missed']}  wrongly applied: {outcomes['wrongly applied']}"
    )
    return 1 if outcomes["wrongly applied"] else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main("-v" in sys.argv)))

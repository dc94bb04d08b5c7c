"""mypy against a baseline of known errors that may only shrink (`make lint`).

An error is keyed by file, error code and message (line numbers dropped, so moving code does not break the
baseline) and counted. Fails on an error beyond the baseline's count; fails too when the baseline lists more
than mypy now reports, so a fix removes its entry: `python scripts/check_types.py --update` rewrites the
baseline, and only ever to fewer errors.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "scripts" / "mypy-baseline.txt"
ERROR = re.compile(r"^(?P<path>[^:]+):\d+(?::\d+)?: error: (?P<message>.*?)(?:  \[(?P<code>[a-z-]+)\])?$")
LINE_REF = re.compile(r"\bon line \d+")


def current() -> Counter[tuple[str, str, str]]:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--hide-error-context", "--no-pretty"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if proc.returncode not in (0, 1) or proc.stderr.strip():
        sys.exit(f"mypy failed to run: {(proc.stderr or proc.stdout).strip()[:500]}")
    return parse(proc.stdout)


def parse(output: str) -> Counter[tuple[str, str, str]]:
    """mypy's error lines counted by (file, code, message), line numbers dropped (also "on line N" in one)."""
    errors: Counter[tuple[str, str, str]] = Counter()
    for line in output.splitlines():
        match = ERROR.match(line)
        if match:
            message = LINE_REF.sub("on line N", match["message"])
            errors[(match["path"], match["code"] or "-", message)] += 1
    return errors


def read_baseline() -> Counter[tuple[str, str, str]]:
    known: Counter[tuple[str, str, str]] = Counter()
    if BASELINE.exists():
        for line in BASELINE.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                count, path, code, message = line.split("\t", 3)
                known[(path, code, message)] = int(count)
    return known


def write_baseline(errors: Counter[tuple[str, str, str]]) -> None:
    lines = [
        "# count\tfile\terror code\tmessage: mypy errors not yet fixed (scripts/check_types.py); only shrinks"
    ]
    lines += [f"{n}\t{path}\t{code}\t{message}" for (path, code, message), n in sorted(errors.items())]
    BASELINE.write_text("\n".join(lines) + "\n")


def main(argv: list[str]) -> int:
    errors, known = current(), read_baseline()
    new = errors - known
    if new:
        print(f"mypy: {sum(new.values())} error(s) not in the baseline (fix them):")
        for (path, code, message), n in sorted(new.items()):
            print(f"  {path}: {message} [{code}]" + (f" (x{n})" if n > 1 else ""))
        return 1
    fixed = known - errors
    if fixed and "--update" not in argv:
        print(f"mypy: {sum(fixed.values())} baselined error(s) are fixed; shrink the baseline with:")
        print("  python scripts/check_types.py --update")
        return 1
    if fixed:
        write_baseline(errors)
    print(f"mypy: {sum(errors.values())} known error(s) in the baseline, none new")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

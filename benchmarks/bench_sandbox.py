"""Sandbox start-up cost per command: what confining a fast-path Bash call adds to running it.

Run: `python benchmarks/bench_sandbox.py`. For `bash -c true` started as the Bash tool starts it, prints the
median wall time of running it bare, under the read-only confinement (the read-only fast path), under the
working-directories confinement (acceptEdits: protected names pinned, missing ones created and removed by
the guard), under the `sandbox.enabled` sandbox and under the deny-only confinement (a call a rule, hook,
person or mode approved while Read/Edit deny rules exist; without deny rules it starts no bwrap at all), each with the argv built per command (the secret scan
of the working directory included), and the added cost. The working directory is this checkout (its
virtualenv and caches are skipped by the scan, as a project's would be). Target: under 15 ms added for the
read-only confinement.

Then the door (`yoke.spawn`), which every process now goes through: what its lifetime (a process group
listed with the guard, the stdin gate, `sh` in front of a program that does not read the gate itself) adds
to a plain `subprocess.run` (what the call sites did before), bare and with the read-only confinement.
Every figure is measured twice: on the machine as it is, and loaded with one busy process per core.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from yoke import spawn
from yoke.sandbox import SandboxSettings, wrap_command
from yoke.sandbox.confine import READ_ONLY, WORKDIRS, Confinement, confine_command
from yoke.sandbox.deny_only import deny_only_command

REPEATS = int(os.environ.get("YOKE_BENCH_REPEATS", "40"))
TARGET_MS = 15.0
ROOT = Path(__file__).resolve().parent.parent
ARGV = ["bash", "--noprofile", "--norc", "-c", "true"]


def median_ms(build) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """The median wall time of building the argv and running it, and the median CPU time it took (this
    process's and the children's, user and system): on a loaded machine the wall time grows with the wait
    for a core, the CPU time does not."""
    times, cpu = [], []
    for _ in range(REPEATS):
        start, before = time.perf_counter(), _cpu()
        subprocess.run(build(), cwd=ROOT, check=True, stdin=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
        cpu.append(_cpu() - before)
    return statistics.median(times) * 1000, statistics.median(cpu) * 1000


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def door_ms(build) -> float:  # type: ignore[no-untyped-def]
    """The same, started through the door (the confinement applied by the door, from `build`)."""
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        done = spawn.run(ARGV, confine=build, cwd=ROOT)
        times.append(time.perf_counter() - start)
        assert done.returncode == 0, done.stderr
    return statistics.median(times) * 1000


def main() -> int:
    if not sys.platform.startswith("linux"):
        print("sandbox start-up: skipped (bubblewrap is Linux only)")
        return 0
    failed = False
    for loaded in (False, True):
        load = _load() if loaded else []
        try:
            failed |= _round("loaded, one busy process per core" if loaded else "as the machine is")
        finally:
            for proc in load:
                proc.kill()
                proc.wait()
    return 1 if failed else 0


def _load() -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 1)]


def _round(label: str) -> bool:
    settings = SandboxSettings(base_dir=ROOT)
    denying = settings.replace(
        read_denied=lambda p: p.endswith(".tfvars"), write_denied=lambda p: p == str(ROOT / "locked.txt")
    )
    dirs = [ROOT]
    runs = {
        "bare": lambda: ARGV,
        "read-only confinement": lambda: confine_command(ARGV, Confinement(READ_ONLY), settings, ROOT, dirs),
        "working-dirs confinement": lambda: confine_command(
            ARGV, Confinement(WORKDIRS), settings, ROOT, dirs
        ),
        "sandbox.enabled": lambda: wrap_command(ARGV, settings.replace(enabled=True), ROOT, dirs),
        # a rule-approved call with Read(**/*.tfvars) and Edit(./locked.txt) deny rules (the scan included)
        "deny-only confinement": lambda: deny_only_command(ARGV, denying, ROOT, dirs),
    }
    runs["bare"]()
    results = {name: median_ms(build) for name, build in runs.items()}
    bare, bare_cpu = results.pop("bare")
    load = os.getloadavg()[0]
    print(
        f"sandbox start-up per command, {label} (median of {REPEATS}, `bash -c true` in {ROOT.name}/, load {load:.1f})"
    )
    print(f"  bare bash                      {bare:7.1f} ms wall  {bare_cpu:5.1f} ms cpu")
    failed = False
    for name, (ms, cpu) in results.items():
        added, added_cpu = ms - bare, cpu - bare_cpu
        mark = ""
        if name == "read-only confinement":
            ok = added < TARGET_MS
            failed |= not ok
            mark = f"  (target < {TARGET_MS:g} ms: {'ok' if ok else 'MISSED'})"
        print(f"  {name:<30} {ms:7.1f} ms wall  +{added:5.1f} ms   cpu +{added_cpu:5.1f} ms{mark}")
    door = door_ms(None)
    door_confined = door_ms(lambda argv: confine_command(argv, Confinement(READ_ONLY), settings, ROOT, dirs))
    print(f"  through the door, bare         {door:7.1f} ms  +{door - bare:5.1f} ms (the door's lifetime)")
    confined = results["read-only confinement"][0]
    print(
        f"  through the door, read-only    {door_confined:7.1f} ms  +{door_confined - bare:5.1f} ms "
        f"({door_confined - confined:+4.1f} ms over the confinement alone)"
    )
    return failed


if __name__ == "__main__":
    sys.exit(main())

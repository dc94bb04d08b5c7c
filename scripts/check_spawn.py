"""The one door, enforced (`make lint`): no module of src/yoke starts a process but through `yoke.spawn`.

Reads every module with `ast` and fails on any call that starts a process (`subprocess.run/Popen/call/
check_*`, `asyncio.create_subprocess_*`, `os.system/popen/exec*/spawn*/posix_spawn*/fork*`, `pty.spawn/
fork`, `anyio.open_process`, `multiprocessing`, an event loop's `subprocess_exec`), however it was imported (`import subprocess as sp`, `from os import execvp`), outside the door and
the allowlist below. Usage: `python scripts/check_spawn.py [ROOT]` (default src/yoke); exit 1 on a finding.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

DOOR = "spawn.py"
# The door's one fork: the warm start's template copying itself into a run (spawn.fork_warm_run). Any other
# fork, in the door too, fails: a forked copy of Yoke skips the door's gate and guard.
FORK_ENTRY = "fork_warm_run"

# Modules allowed to start processes themselves, each with why: Yoke's own processes with nothing of the
# model's or the project's in them, or what the door cannot do. Add a line only with a reason.
ALLOWLIST = {
    # the kernel sandbox's own launcher: runs inside bubblewrap, after the door confined it (fork/exec of
    # the confined command under a seccomp filter)
    "sandbox/bridge.py": "inside the sandbox, after the door",
    # the user's $EDITOR on CLAUDE.md (/memory): must stay in the terminal's foreground process group,
    # which a group of its own (the door's lifetime) would take it out of
    "ui/commands.py": "the user's editor in the foreground",
    # the test harness: runs Claude Code and Yoke side by side for the tests, never inside a session
    "testing/side_by_side.py": "test harness",
}

SPAWNING = {
    "subprocess": {"run", "Popen", "call", "check_call", "check_output", "getoutput", "getstatusoutput"},
    "asyncio": {"create_subprocess_exec", "create_subprocess_shell"},
    "asyncio.subprocess": {"create_subprocess_exec", "create_subprocess_shell"},
    "os": {"system", "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp"}
    | {f"exec{s}" for s in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")}
    | {f"spawn{s}" for s in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")},
    "pty": {"spawn", "fork"},
    "anyio": {"open_process", "run_process"},
    "multiprocessing": {"Process", "Pool"},
}
# Methods that start a process whatever object they are called on (an event loop's)
SPAWNING_METHODS = {"subprocess_exec", "subprocess_shell"}


def findings(path: Path, rel: str) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    modules: dict[str, str] = {}  # local name -> module it names
    functions: dict[str, str] = {}  # local name -> "module.function" it names
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in SPAWNING:
                    modules[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0]
                    )
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if alias.name in SPAWNING.get(node.module, ()):
                    functions[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                elif f"{node.module}.{alias.name}" in SPAWNING:
                    modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Attribute) and node.func.attr in SPAWNING_METHODS:
            out.append(f"src/yoke/{rel}:{node.lineno}: {node.func.attr}() outside the door (use yoke.spawn)")
            continue
        name = _dotted(node.func) or ""
        first, dot, rest = name.partition(".")
        if dot and first in modules:
            name = f"{modules[first]}.{rest}"
        elif not dot:
            name = functions.get(name, "")
        module, _, attr = name.rpartition(".")
        if attr in SPAWNING.get(module, ()):
            out.append(f"src/yoke/{rel}:{node.lineno}: {name}() outside the door (use yoke.spawn)")
    return out


def door_findings(path: Path) -> list[str]:
    """The door may start processes, but fork only in FORK_ENTRY."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    allowed = {
        id(node)
        for entry in ast.walk(tree)
        if isinstance(entry, ast.FunctionDef) and entry.name == FORK_ENTRY
        for node in ast.walk(entry)
    }
    return [
        f"src/yoke/{DOOR}:{node.lineno}: {_dotted(node.func)}() outside {FORK_ENTRY}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (_dotted(node.func) or "").split(".")[-1] in ("fork", "forkpty")
        and id(node) not in allowed
    ]


def _dotted(node: ast.expr) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent / "src" / "yoke"
    problems = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel == DOOR:
            problems += door_findings(path)
            continue
        if rel in ALLOWLIST:
            continue
        problems += findings(path, rel)
    for line in problems:
        print(line)
    if problems:
        print(f"{len(problems)} process start(s) outside yoke.spawn (scripts/check_spawn.py)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

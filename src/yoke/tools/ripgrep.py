"""Finding and running ripgrep for Glob and Grep: one subprocess, output capped, killed on interrupt."""

from __future__ import annotations

import asyncio
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from yoke import spawn
from yoke.tools.base import ToolError

MAX_OUTPUT_BYTES = 64 * 1024 * 1024
VCS_DIRS = (".git", ".svn", ".hg", ".bzr", ".jj", ".sl")
VCS_EXCLUDES = ("--glob", "!{" + ",".join(VCS_DIRS) + "}")  # one glob: cheaper to match than six


@functools.cache
def rg_binary() -> str | None:
    """ripgrep on PATH, else the one the `ripgrep` PyPI wheel installs next to this Python."""
    found = shutil.which("rg")
    if found:
        return found
    beside = Path(sys.executable).parent / ("rg.exe" if os.name == "nt" else "rg")
    return str(beside) if beside.is_file() and os.access(beside, os.X_OK) else None


@dataclass(frozen=True, slots=True)
class RgOutput:
    stdout: bytes
    stderr: str
    returncode: int
    truncated: bool  # stopped at MAX_OUTPUT_BYTES

    def lines(self) -> list[str]:
        text = self.stdout.decode("utf-8", errors="replace")
        return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n") if text else []

    def check(self) -> None:
        """ripgrep exits 2 on errors but still prints what it found; only an error with no output is fatal."""
        if self.returncode == 2 and not self.stdout:
            first = next((line for line in self.stderr.splitlines() if line.strip()), "unknown error")
            raise ToolError(f"ripgrep failed: {first.removeprefix('rg: ')}")


LineSink = Callable[[list[str]], None]


async def run_rg(
    args: list[str],
    cwd: Path,
    cancel: asyncio.Event,
    max_bytes: int = MAX_OUTPUT_BYTES,
    on_lines: LineSink | None = None,
) -> RgOutput:
    """Run ripgrep to completion, or until `cancel` is set (then it is killed).

    The output is drained by a worker thread with plain blocking reads: ripgrep writes each result as it
    finds it, and waking the event loop for thousands of small writes costs more than the search. `on_lines`
    runs in that thread with each batch of complete lines, so a caller can work while ripgrep still searches.
    """
    binary = rg_binary()
    if binary is None:
        raise RuntimeError("ripgrep is not available")  # callers check rg_binary() first
    with tempfile.TemporaryFile() as stderr:
        # Yoke's Grep and Glob: arguments the tool built, reading what the gate allowed the tool to read.
        # No input: with no path given, rg would otherwise search a piped stdin.
        proc = spawn.popen(
            [binary, *args], confine=None, cwd=cwd, stdin=spawn.DEVNULL, stdout=spawn.PIPE, stderr=stderr
        )
        drained = asyncio.ensure_future(asyncio.to_thread(_drain, proc, max_bytes, on_lines))
        interrupted = asyncio.ensure_future(cancel.wait())
        try:
            done, _ = await asyncio.wait({drained, interrupted}, return_when=asyncio.FIRST_COMPLETED)
            if drained not in done:
                raise ToolError("The search was interrupted.")
            stdout, truncated, returncode = drained.result()
            stderr.seek(0)
            return RgOutput(stdout, stderr.read().decode("utf-8", errors="replace"), returncode, truncated)
        finally:
            interrupted.cancel()
            if proc.poll() is None:
                spawn.signal_group(proc.pid, 9)
            await asyncio.wait({drained})  # the thread ends once the killed process closes the pipe
            proc.wait()
            spawn.forget_group(proc.pid)


def _drain(
    proc: subprocess.Popen[bytes], max_bytes: int, on_lines: LineSink | None
) -> tuple[bytes, bool, int]:
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    chunks, size, partial, truncated = [], 0, b"", False
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
        size += len(chunk)
        if on_lines is not None:
            *complete, partial = (partial + chunk).split(b"\n")
            on_lines([line.decode("utf-8", errors="replace") for line in complete])
        if size >= max_bytes:
            proc.kill()
            truncated = True
            break
    proc.stdout.close()
    returncode = proc.wait()
    stdout = b"".join(chunks)
    if truncated:  # cut at a line boundary so no half line is reported
        stdout = stdout[: stdout[:max_bytes].rfind(b"\n") + 1]
    elif on_lines is not None and partial:
        on_lines([partial.decode("utf-8", errors="replace")])
    return stdout, truncated, returncode

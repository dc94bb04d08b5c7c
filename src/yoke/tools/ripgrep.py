"""Finding and running ripgrep for Glob and Grep: one subprocess, output capped, killed on interrupt."""

from __future__ import annotations

import asyncio
import functools
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from yoke.tools.base import ToolError

MAX_OUTPUT_BYTES = 64 * 1024 * 1024
VCS_DIRS = (".git", ".svn", ".hg", ".bzr", ".jj", ".sl")
VCS_EXCLUDES = tuple(arg for d in VCS_DIRS for arg in ("--glob", f"!{d}"))


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


async def run_rg(
    args: list[str], cwd: Path, cancel: asyncio.Event, max_bytes: int = MAX_OUTPUT_BYTES
) -> RgOutput:
    binary = rg_binary()
    if binary is None:
        raise RuntimeError("ripgrep is not available")  # callers check rg_binary() first
    proc = await asyncio.create_subprocess_exec(
        binary,
        *args,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    collector = asyncio.ensure_future(_collect(proc, max_bytes))
    interrupted = asyncio.ensure_future(cancel.wait())
    try:
        done, _ = await asyncio.wait({collector, interrupted}, return_when=asyncio.FIRST_COMPLETED)
        if collector not in done:
            raise ToolError("The search was interrupted.")
        return collector.result()
    finally:
        interrupted.cancel()
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        if not collector.done():
            collector.cancel()


async def _collect(proc: asyncio.subprocess.Process, max_bytes: int) -> RgOutput:
    assert proc.stdout is not None and proc.stderr is not None

    async def read_stdout() -> tuple[bytes, bool]:
        chunks, size = [], 0
        while chunk := await proc.stdout.read(1 << 16):
            chunks.append(chunk)
            size += len(chunk)
            if size >= max_bytes:
                proc.kill()
                return b"".join(chunks)[:max_bytes], True
        return b"".join(chunks), False

    (stdout, truncated), stderr = await asyncio.gather(read_stdout(), proc.stderr.read())
    returncode = await proc.wait()
    if truncated:  # cut at a line boundary so no half line is reported
        stdout = stdout[: stdout.rfind(b"\n") + 1]
    return RgOutput(stdout, stderr.decode("utf-8", errors="replace"), returncode, truncated)

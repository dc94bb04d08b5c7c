"""Run bubblewrap, then remove the mount points it had to create for protected names that did not exist.

A protected name that does not exist yet (`.envrc`, `.mcp.json`, `.claude`, …) can only be pinned read-only
by mounting something on it, and bubblewrap creates that mount point in the (writable) project folder on
the host: an empty file or directory. While the sandbox runs, the command sees `/dev/null` or an empty
read-only folder there and cannot write, rename or delete it (a mount point is busy). Afterwards this
guard removes each mount point that is still empty, so the project is left as it was.

Usage: python -I -S guard.py PATH... -- bwrap ARGS... (stdlib only: it runs with the host interpreter).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys


def _remove_if_empty(path: str) -> None:
    try:
        if os.path.islink(path):
            return
        if os.path.isdir(path):
            os.rmdir(path)  # only succeeds when empty
        elif os.path.isfile(path) and os.path.getsize(path) == 0:
            os.unlink(path)
    except OSError:
        pass


def main(argv: list[str]) -> int:
    split = argv.index("--")
    paths, command = argv[:split], argv[split + 1 :]
    child = subprocess.Popen(command)

    def forward(signum: int, _frame: object) -> None:
        try:
            child.send_signal(signum)
        except OSError:
            pass

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, forward)
    try:
        code = child.wait()
    finally:
        for path in reversed(paths):  # deepest last-created first
            _remove_if_empty(path)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Where the remote page listens and how a browser names it (docs/remote.md, "Options"): an address and port
as a URL's host part, and the port an address's page used last, reused when free so a paired browser's
origin (its cookie and page key) is the same on the next run."""

from __future__ import annotations

import contextlib
from pathlib import Path

from yoke.host.owned import read_private, write_private
from yoke.host.paths import runtime_dir


def netloc(address: str, port: int) -> str:
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"  # an IPv6 literal in brackets


def _port_file(bind: str) -> Path:
    return runtime_dir() / ("remote-port-" + "".join(c if c.isalnum() else "_" for c in bind))


def remembered_port(bind: str) -> int:
    """The port this address's page listened on last: reused when free, so a browser's origin (where it
    keeps its page key) and cookie stay the same across runs, and a paired device needs no new pairing."""
    try:
        port = int(read_private(_port_file(bind)).strip())
    except (OSError, ValueError):
        return 0
    return port if 0 < port < 65536 else 0


def remember_port(bind: str, port: int) -> None:
    with contextlib.suppress(OSError):
        write_private(_port_file(bind), str(port).encode())

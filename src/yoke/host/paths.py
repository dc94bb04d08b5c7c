"""Where the host keeps its socket, token and session records."""

from __future__ import annotations

import os
from pathlib import Path


def runtime_dir(env: os._Environ | dict[str, str] | None = None) -> Path:
    """The user's runtime directory (`$XDG_RUNTIME_DIR/yoke`, else a private folder under the temp dir),
    created with mode 0700."""
    env = os.environ if env is None else env
    base = env.get("YOKE_HOST_DIR")
    if base:
        path = Path(base)
    elif env.get("XDG_RUNTIME_DIR"):
        path = Path(env["XDG_RUNTIME_DIR"]) / "yoke"
    else:
        import tempfile

        path = Path(tempfile.gettempdir()) / f"yoke-{os.getuid()}"
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def socket_path(env=None) -> Path:
    return runtime_dir(env) / "host.sock"


def token_path(env=None) -> Path:
    return runtime_dir(env) / "host.token"


def records_dir(env=None) -> Path:
    """Records and stream logs live beside the transcripts, so they survive a reboot that empties the
    runtime directory."""
    from yoke.config.settings import yoke_home_dir

    path = yoke_home_dir(env=os.environ if env is None else env) / "hosted"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:  # a read-only home: there is nothing to list, and a write says why itself
        pass
    return path

"""Where the host keeps its socket, token and session records."""

from __future__ import annotations

import os
from pathlib import Path

from yoke.host.owned import owned_dir


def runtime_dir(env: os._Environ | dict[str, str] | None = None) -> Path:
    """The host's folder for this configuration home: `$XDG_RUNTIME_DIR/yoke/<key>` (else a private folder
    under the temp dir), created with mode 0700. One host per configuration home (`config_home_key`): two
    profiles (another HOME, YOKE_HOME or CLAUDE_CONFIG_DIR) never share a host, so never each other's
    sessions. `YOKE_HOST_DIR` names the folder itself. Each folder is this user's alone, or refused
    (owned.UnsafeFolder): another user may have made `/tmp/yoke-<uid>` first."""
    env = os.environ if env is None else env
    base = env.get("YOKE_HOST_DIR")
    if base:
        return owned_dir(Path(base))
    if env.get("XDG_RUNTIME_DIR"):
        parent = Path(env["XDG_RUNTIME_DIR"]) / "yoke"
    else:
        import tempfile

        parent = Path(tempfile.gettempdir()) / f"yoke-{os.getuid()}"
    owned_dir(parent)  # checked too: whoever owns the parent could swap the folder inside it
    return owned_dir(parent / config_home_key(env))


def config_home_key(env: os._Environ | dict[str, str]) -> str:
    """Which configuration home a command runs with (`yoke.runtime_key`: the one rule, also the warm client's)."""
    from yoke.runtime_key import config_home_key as key

    return key(env)


def socket_path(env=None) -> Path:
    return runtime_dir(env) / "host.sock"


def token_path(env=None) -> Path:
    return runtime_dir(env) / "host.token"


def records_dir(env=None) -> Path:
    """Records and stream logs live beside the transcripts, so they survive a reboot that empties the
    runtime directory."""
    from yoke.config.settings import yoke_home_dir

    env = os.environ if env is None else env
    path = yoke_home_dir(Path(env.get("HOME") or os.path.expanduser("~")), env) / "hosted"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:  # a read-only home: there is nothing to list, and a write says why itself
        pass
    return owned_dir(path, create=False)

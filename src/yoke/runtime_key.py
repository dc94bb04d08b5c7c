"""Which host serves a command, found without importing anything heavy: the warm-start client
(`cli/warm_client.py`) asks it before Yoke's own imports, so it costs no more than a few `stat`s.

`host/paths.py` builds on the same two functions; they are the one rule for where a host's folder is."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # collections.abc and typing cost the warm client more than the rest of its work
if TYPE_CHECKING:
    from collections.abc import Mapping


def config_home_key(env: Mapping[str, str]) -> str:
    """Which configuration home a command runs with: the Yoke home and Claude's config folder it resolves
    (YOKE_HOME, CLAUDE_CONFIG_DIR, else under HOME), as 12 hex digits (a socket path stays short)."""
    home = env.get("HOME") or os.path.expanduser("~")
    yoke_home = os.path.expanduser(env["YOKE_HOME"]) if env.get("YOKE_HOME") else os.path.join(home, ".yoke")
    claude = (
        os.path.expanduser(env["CLAUDE_CONFIG_DIR"])
        if env.get("CLAUDE_CONFIG_DIR")
        else os.path.join(home, ".claude")
    )
    text = "\0".join(os.path.realpath(folder) for folder in (yoke_home, claude))
    return _sha256(text.encode()).hexdigest()[:12]


def runtime_dir_path(env: Mapping[str, str]) -> str:
    """The host's folder for `env` (YOKE_HOST_DIR, else `$XDG_RUNTIME_DIR/yoke/<key>`, else a folder of
    this user's under the temp dir), as a path only: neither created nor checked (host/paths.py does both)."""
    if env.get("YOKE_HOST_DIR"):
        return str(env["YOKE_HOST_DIR"])
    if env.get("XDG_RUNTIME_DIR"):
        parent = os.path.join(env["XDG_RUNTIME_DIR"], "yoke")
    else:  # tempfile.gettempdir()'s first choices, without importing tempfile (8 ms): a guess that misses
        # only makes the client start cold
        temp = next(
            (env[k] for k in ("TMPDIR", "TEMP", "TMP") if env.get(k) and os.path.isdir(env[k])), "/tmp"
        )
        parent = os.path.join(temp, f"yoke-{os.getuid()}")
    return os.path.join(parent, config_home_key(env))


def _sha256(data: bytes):  # type: ignore[no-untyped-def]
    # the C module itself (hashlib would load OpenSSL's bindings: a millisecond more); its name changed in 3.12
    try:
        from _sha2 import sha256  # type: ignore[import-not-found]
    except ImportError:
        try:
            from _sha256 import sha256  # type: ignore[import-not-found,no-redef]
        except ImportError:  # pragma: no cover - a build without the builtin module
            from hashlib import sha256  # type: ignore[assignment]
    return sha256(data)

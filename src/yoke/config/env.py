"""Settings' `env` blocks, applied to a session's own copy of the environment (never to Yoke's process).

As in Claude Code they override the shell's exports, lowest precedence first so higher sources win, and an
empty string unsets. A project's or local file's endpoint and credential variables apply only once the
folder is trusted: a cloned repository could otherwise send the user's API key to a server of its choosing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

GUARDED_ENV = re.compile(r"(_BASE_URL|_API_KEY|_AUTH_TOKEN|_CUSTOM_HEADERS|_PROXY|^AWS_|^GOOGLE_)", re.I)


def settings_env(
    settings: Any, base: dict[str, str], folder_trusted: Callable[[], bool], warnings: list[str]
) -> dict[str, str]:
    """`base` with every settings source's `env` block applied; `folder_trusted()` is asked (once) only
    when a project or local file sets a guarded variable."""
    env = dict(base)
    trusted: bool | None = None
    for source in reversed(list(getattr(settings, "sources", []) or [])):
        block = source.data.get("env")
        if not isinstance(block, dict):
            continue
        for key, value in block.items():
            if not isinstance(key, str) or value is None:
                continue
            if source.scope in ("project", "local") and GUARDED_ENV.search(key):
                if trusted is None:
                    trusted = folder_trusted()
                if not trusted:
                    warnings.append(
                        f"{source.label}: env {key} is ignored until this folder is trusted (yoke trust)"
                    )
                    continue
            if value == "":
                env.pop(key, None)
            else:
                env[key] = str(value)
    return env

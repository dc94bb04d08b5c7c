"""Things with a lifetime that start and stop with a session: background shells, the sandbox's proxy, the
provider's connections, MCP servers, hook processes. Whatever is added is closed, newest first, when the
session closes; one that fails or hangs does not keep the others open."""

from __future__ import annotations

import asyncio
import inspect
import sys
from collections.abc import Callable
from typing import Any

CLOSE_TIMEOUT_S = 2.0


class ResourceStack:
    def __init__(self) -> None:
        self._closers: list[tuple[str, Callable[[], Any]]] = []
        self.closed = False

    def add(self, resource: Any, name: str = "") -> Any:
        """Register anything with `aclose()` or `close()`; returns it."""
        closer = getattr(resource, "aclose", None) or getattr(resource, "close", None)
        if closer is None:
            raise TypeError(f"{type(resource).__name__} has no aclose() or close()")
        self._closers.append((name or type(resource).__name__, closer))
        return resource

    def callback(self, closer: Callable[[], Any], name: str = "") -> None:
        """Register a function (sync or async) to call at close."""
        self._closers.append((name or getattr(closer, "__name__", "callback"), closer))

    async def aclose(self) -> None:
        if self.closed:
            return
        self.closed = True
        while self._closers:
            name, closer = self._closers.pop()
            try:
                result = closer()
                if inspect.isawaitable(result):
                    await asyncio.wait_for(result, CLOSE_TIMEOUT_S)
            except Exception as exc:  # one resource failing to close must not keep the others open
                print(f"yoke: warning: closing {name} failed: {exc}", file=sys.stderr)

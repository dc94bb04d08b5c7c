"""How MCP failures are recognised and told in one line."""

from __future__ import annotations

import asyncio
from typing import Any


class NeedsAuth(Exception):
    """The server wants an OAuth login that a non-interactive session cannot do."""


def unwrap(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) >= 1:
        inner = [e for e in exc.exceptions if not isinstance(e, asyncio.CancelledError)]
        exc = inner[0] if inner else exc.exceptions[0]
    return exc


def needs_auth(exc: BaseException | None) -> bool:
    """A login is what is missing: our own NeedsAuth, the OAuth flow giving up, or a plain 401."""
    if exc is None:
        return False
    if isinstance(exc, NeedsAuth) or isinstance(exc.__context__, NeedsAuth):
        return True
    name, text = type(exc).__name__, str(exc)
    return name in ("OAuthFlowError", "OAuthTokenError", "UnauthorizedError") or "401" in text


def is_connection_error(exc: BaseException) -> bool:
    import anyio

    exc = unwrap(exc)
    if isinstance(
        exc, anyio.ClosedResourceError | anyio.BrokenResourceError | anyio.EndOfStream | ConnectionError
    ):
        return True
    name = type(exc).__name__
    text = str(exc).lower()
    return name in ("ConnectError", "RemoteProtocolError", "ReadError") or "connection closed" in text


def is_timeout(exc: BaseException) -> bool:
    text = str(exc).lower()
    return isinstance(exc, TimeoutError) or "timed out" in text or "timeout" in text


def error_text(error: BaseException | None, state: Any, deadline: float) -> str:
    """Why a server failed, in one line."""
    if isinstance(error, TimeoutError) or error is None:
        return f"did not finish starting within {deadline:g} s (MCP_TIMEOUT)"
    if isinstance(error, FileNotFoundError):
        return f"command not found: {state.config.command}"
    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    why = state.link.describe_end() if state.link else ""
    if why and why not in text:
        text = f"{text} ({why})"
    return text.splitlines()[0][:300] if text else "failed"

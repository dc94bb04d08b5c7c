"""Telemetry for a session being assembled: `session_telemetry`, the one call the model stage makes when
`CLAUDE_CODE_ENABLE_TELEMETRY` is on, returns what the stages build in: the agent's event observer, a
lifecycle listener (UserPromptSubmit), the provider's transport wrapper (for `traceparent`), timed hook
listeners and the worker that flushes when the session closes."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping
from typing import Any

from yoke.providers.transport import HttpRequest, HttpResponse
from yoke.records import Record
from yoke.telemetry.config import ConfigError, OtelConfig

INSTALL_HINT = "telemetry is on (CLAUDE_CODE_ENABLE_TELEMETRY) but OpenTelemetry is not installed: pip install 'yoke[otel]'"
DEFAULT_SHUTDOWN_MS = 2000


def installed(config: OtelConfig) -> bool:
    """Whether what this configuration needs is there: the SDK, unless every exporter is `otlp` (Yoke's own
    encoder), and grpcio for the `grpc` protocol."""
    from yoke.telemetry.worker import native

    grpc = any(s.exporters and s.protocol == "grpc" for s in config.signals.values())
    needed = (["grpc"] if grpc else []) + ([] if native(config) else ["opentelemetry.sdk"])
    if not needed:
        return True
    import importlib.util

    return all(importlib.util.find_spec(name) is not None for name in needed)


class TracingTransport:
    """Adds the W3C `traceparent` of the model request in flight to each request, for gateways that
    continue the trace. Everything else passes through."""

    def __init__(self, inner: Any, observer: Any) -> None:
        self.inner = inner
        self.observer = observer

    async def send(self, request: HttpRequest) -> HttpResponse:
        parent = self.observer.traceparent()
        if parent is not None:
            request = HttpRequest(
                request.url,
                {**request.headers, "traceparent": parent},
                request.body,
                request.stream,
                request.method,
                request.encoded,
                request.idle_timeout,
            )
        return await self.inner.send(request)

    async def aclose(self) -> None:
        await self.inner.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class TimedHooks:
    """A hook listener, timed: each announcement it answers becomes a `claude_code.hook` span."""

    def __init__(self, inner: Any, observer: Any) -> None:
        self.inner = inner
        self.observer = observer

    def wants(self, event: str) -> bool:
        return self.inner.wants(event)

    async def announce(self, event: str, payload: dict[str, Any]) -> Any:

        start = time.time_ns()
        try:
            outcome = await self.inner.announce(event, payload)
        except Exception as exc:
            self.observer.hook_ran(event, payload, start, None, str(exc) or type(exc).__name__)
            raise
        self.observer.hook_ran(event, payload, start, outcome, "")
        return outcome

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)  # describe_hooks, ...


class SessionTelemetry(Record):
    """What telemetry hands the session's stages to build in (`session/model_setup.py` decides it): the
    observer (the agent's event observer and a UserPromptSubmit listener), the `traceparent` transport
    wrapper, hook listeners timed as spans, and the worker that closes with the session."""

    __slots__ = ("observer", "worker", "traces", "timeout_s")

    def __init__(self, observer: Any, worker: Any, traces: bool, timeout_s: float) -> None:
        self.observer = observer
        self.worker = worker
        self.traces = traces  # whether spans are exported (then `traceparent` and hook spans)
        self.timeout_s = timeout_s  # how long closing waits for the last items to leave

    def transport(self, inner: Any) -> Any:
        """The provider's transport, naming the model request in flight in `traceparent` (traces on)."""
        return TracingTransport(inner, self.observer) if self.traces and inner is not None else inner

    def timed(self, listener: Any) -> Any:
        """A lifecycle listener as the session should hold it: settings', plugins' and SDK hooks timed."""
        if self.traces and callable(getattr(listener, "describe_hooks", None)):
            return TimedHooks(listener, self.observer)
        return listener

    def close(self) -> None:
        self.worker.close(self.timeout_s)


def session_telemetry(
    env: Mapping[str, str],
    settings: Mapping[str, Any],
    cwd: str,
    session_id: str,
    model: str,
    warnings: list[str],
    *,
    resumed: bool,
) -> SessionTelemetry | None:
    """This session's telemetry (None: nothing to export); a set-up problem becomes one warning line, never
    an error."""
    try:
        config = OtelConfig(env)
    except ConfigError as exc:
        warnings.append(f"telemetry is off: {exc}")
        return None
    if not config.any:
        return None  # on, but no exporter chosen: nothing to send (as in Claude Code)
    from yoke.telemetry.worker import TelemetryWorker

    if not installed(config):
        warnings.append(INSTALL_HINT)
        return None
    try:
        config.add_helper_headers(env, settings, cwd)
    except ConfigError as exc:
        warnings.append(f"telemetry is off: {exc}")
        return None
    from yoke.telemetry.observer import TelemetryObserver

    common: dict[str, Any] = {"session.id": session_id, "terminal.type": _terminal(env)}
    if config.account_uuid:
        common["user.account_uuid"] = config.account_uuid
    if config.organization_id:
        common["organization.id"] = config.organization_id
    if config.user_email:
        common["user.email"] = config.user_email
    worker = TelemetryWorker(config, common, _resource(config, env))
    observer = TelemetryObserver(worker.put, session_id, config.log_user_prompts, config.wants("traces"))
    observer.model_changed(model)
    observer.metric("claude_code.session.count", 1, {"start_type": "resume" if resumed else "fresh"})
    timeout_s = _int(env.get("CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS"), DEFAULT_SHUTDOWN_MS) / 1000
    return SessionTelemetry(observer, worker, config.wants("traces"), timeout_s)


def _terminal(env: Mapping[str, str]) -> str:
    return (
        "non-interactive"
        if not sys.stdout.isatty()
        else (env.get("TERM_PROGRAM") or env.get("TERM") or "tty")
    )


def _resource(config: OtelConfig, env: Mapping[str, str]) -> dict[str, Any]:
    from yoke import __version__

    attrs: dict[str, Any] = {
        "service.name": env.get("OTEL_SERVICE_NAME") or "yoke",
        "service.version": __version__,
        "os.type": sys.platform,
        "host.arch": os.uname().machine.lower().replace("x86_64", "amd64"),
    }
    attrs.update(config.resource_attributes)
    return attrs


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value else default
    except ValueError:
        return default

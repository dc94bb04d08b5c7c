"""Wire telemetry into a session being assembled: the one call `open_session` makes when
`CLAUDE_CODE_ENABLE_TELEMETRY` is on. Consumes only what exists: the agent's event observers, the lifecycle
seam (UserPromptSubmit), the provider's transport (for `traceparent`) and the session's resources (flush at
close)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping
from typing import Any

from yoke.providers.transport import HttpRequest, HttpResponse
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


def attach_telemetry(
    session: Any, env: Mapping[str, str], settings: Mapping[str, Any], *, resumed: bool
) -> None:
    """Start exporting this session's telemetry; a set-up problem becomes one warning line, never an error."""
    try:
        config = OtelConfig(env)
    except ConfigError as exc:
        session.warnings.append(f"telemetry is off: {exc}")
        return
    if not config.any:
        return  # on, but no exporter chosen: nothing to send (as in Claude Code)
    from yoke.telemetry.worker import TelemetryWorker

    if not installed(config):
        session.warnings.append(INSTALL_HINT)
        return
    try:
        config.add_helper_headers(env, settings, str(session.cwd))
    except ConfigError as exc:
        session.warnings.append(f"telemetry is off: {exc}")
        return
    from yoke.telemetry.observer import TelemetryObserver

    common: dict[str, Any] = {"session.id": session.id, "terminal.type": _terminal(env)}
    if config.account_uuid:
        common["user.account_uuid"] = config.account_uuid
    if config.organization_id:
        common["organization.id"] = config.organization_id
    if config.user_email:
        common["user.email"] = config.user_email
    worker = TelemetryWorker(config, common, _resource(config, env))
    observer = TelemetryObserver(worker.put, session.id, config.log_user_prompts, config.wants("traces"))
    observer.model_changed(session.model)
    session.agent.observers.append(observer)
    session.agent.lifecycle.add(observer)
    if config.wants("traces"):
        lifecycle = session.agent.lifecycle
        for listener in lifecycle.listeners():
            if callable(getattr(listener, "describe_hooks", None)):  # settings' and plugins' hooks
                lifecycle.replace(listener, TimedHooks(listener, observer))
    provider = session.agent.provider
    if config.wants("traces") and getattr(provider, "transport", None) is not None:
        provider.transport = TracingTransport(provider.transport, observer)
    observer.metric("claude_code.session.count", 1, {"start_type": "resume" if resumed else "fresh"})
    timeout_s = _int(env.get("CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS"), DEFAULT_SHUTDOWN_MS) / 1000
    session.resources.callback(lambda: worker.close(timeout_s), "telemetry")


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

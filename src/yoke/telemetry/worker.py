"""The exporting side: a thread that turns the observer's items into OTLP requests, either with Yoke's own
encoder (`native.py`, when every exporter is `otlp`) or through the OpenTelemetry SDK's providers (for
`console` and `prometheus`).

Everything slow (encoding, the network, the SDK's import) happens here, never on the session's event loop.
`close()` hands over what is left and waits a bounded time for the last export.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from typing import Any

from yoke.telemetry.config import OtelConfig

METER_NAME = "com.anthropic.claude_code"
EVENTS_SCOPE = "com.anthropic.claude_code.events"
TRACER_NAME = "com.anthropic.claude_code.tracing"
# Claude Code's units (read from 2.1.330's export): counts carry none.
UNITS = {
    "claude_code.cost.usage": "USD",
    "claude_code.token.usage": "tokens",
    "claude_code.active_time.total": "s",
}
DESCRIPTIONS = {
    "claude_code.session.count": "Count of CLI sessions started",
    "claude_code.lines_of_code.count": "Count of lines of code modified",
    "claude_code.pull_request.count": "Number of pull requests created",
    "claude_code.commit.count": "Number of git commits created",
    "claude_code.cost.usage": "Cost of the session in USD",
    "claude_code.token.usage": "Number of tokens used",
    "claude_code.code_edit_tool.decision": "Count of code editing tool permission decisions",
    "claude_code.active_time.total": "Total active time in seconds",
}
_STOP = object()
START_DELAY_S = 5.0


def intervals_s(config: OtelConfig) -> dict[str, float]:
    return {
        "metrics": config.metric_interval_ms / 1000,
        "logs": config.logs_interval_ms / 1000,
        "traces": config.traces_interval_ms / 1000,
    }


def native(config: OtelConfig) -> bool:
    """Whether every chosen exporter is `otlp`: then no SDK is needed (telemetry/native.py)."""
    return all(signal.exporters == ["otlp"] for signal in config.signals.values() if signal.exporters)


class TelemetryWorker:
    def __init__(self, config: OtelConfig, common: dict[str, Any], resource: dict[str, Any]) -> None:
        self.config = config
        self.common = common  # attributes every metric and event carries (session.id, ...)
        self.resource = resource
        self.items: queue.SimpleQueue = queue.SimpleQueue()
        self.put = self.items.put
        self.error = ""
        self.go = threading.Event()  # set at close: start the exporters now
        self.started = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="yoke-telemetry", daemon=True)
        self._thread.start()

    def close(self, timeout_s: float) -> None:
        """Export what is left, then stop; gives up after `timeout_s` (the thread is a daemon)."""
        self.put(_STOP)
        self.go.set()
        self._thread.join(timeout_s)

    # ---- the thread ---------------------------------------------------------------------------------------

    def _run(self) -> None:
        if native(self.config):
            self._run_native()
        else:
            self._run_sdk()

    def _run_native(self) -> None:
        """Items wait in the queue (cheaply) until a signal's interval is up or the session closes. Even the
        exporter's set-up waits for that: work on this thread while a turn runs slows the turn (the GIL)."""
        export = None
        first = min(
            (seconds for signal, seconds in intervals_s(self.config).items() if self.config.wants(signal))
        )
        stopping = False
        while not stopping:
            self.go.wait(first if export is None else export.seconds_to_next())
            if export is None:
                from yoke.telemetry.native import NativeExport

                export = NativeExport(self.config, self.common, self.resource, self.started)
            while not stopping:
                try:
                    item = self.items.get_nowait()
                except queue.Empty:
                    break
                stopping = item is _STOP
                if not stopping:
                    try:
                        export.add(item)
                    except Exception as exc:
                        print(f"yoke: warning: telemetry dropped an item: {exc}", file=sys.stderr)
            try:
                export.flush(final=stopping)
            except Exception as exc:
                print(f"yoke: warning: telemetry export failed: {exc}", file=sys.stderr)

    def _run_sdk(self) -> None:
        # The SDK's import holds the GIL for a tenth of a second: done while a turn runs, it would slow the
        # turn. Items queue up (cheaply) until the session closes or START_DELAY_S have passed.
        # A Prometheus endpoint is scraped while the session runs: it must be up from the start.
        self.go.wait(0 if "prometheus" in self.config.signals["metrics"].exporters else START_DELAY_S)
        try:
            from yoke.telemetry.providers import Providers

            providers = Providers(self.config, self.resource)
        except Exception as exc:  # a broken install or endpoint must not end the session
            self.error = f"telemetry could not start: {exc}"
            print(f"yoke: warning: {self.error}", file=sys.stderr)
            self._drain()
            return
        counters: dict[str, Any] = {}
        try:
            while True:
                item = self.items.get()
                if item is _STOP:
                    break
                try:
                    self._handle(providers, counters, item)
                except Exception as exc:
                    print(f"yoke: warning: telemetry dropped an item: {exc}", file=sys.stderr)
        finally:
            providers.shutdown()

    def _drain(self) -> None:
        while self.items.get() is not _STOP:
            pass

    def _handle(self, providers: Any, counters: dict[str, Any], item: tuple) -> None:
        kind = item[0]
        if kind == "metric":
            _, name, value, attrs = item
            if providers.meter is None:
                return
            counter = counters.get(name)
            if counter is None:
                counter = counters[name] = providers.meter.create_counter(
                    name, unit=UNITS.get(name, ""), description=DESCRIPTIONS.get(name, "")
                )
            counter.add(value, {**self.common, **attrs})
        elif kind == "log":
            _, name, attrs, when = item
            if providers.logger is not None:
                providers.logger.emit(
                    timestamp=when,
                    observed_timestamp=when,
                    body=f"claude_code.{name}",
                    attributes={**self.common, **attrs},
                    event_name=f"claude_code.{name}",
                )
        elif kind == "span":
            _, name, trace_id, span_id, parent_id, start, end, attrs, error = item
            if providers.tracer is not None:
                providers.span(
                    name, trace_id, span_id, parent_id, start, end, {**self.common, **attrs}, error
                )

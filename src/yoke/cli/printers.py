"""Headless printers: map loop events to `--output-format text | json | stream-json`.

The shapes follow Claude Code's (see docs/headless.md): stream-json writes one JSON object per line and
flushes it the moment its event happens; json writes the single result object; text writes the final
answer. Diagnostics always go to stderr, never to stdout.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from yoke import events as ev
from yoke.wire.shapes import result_object


class Printer:
    """Base printer: remembers the result; subclasses decide what reaches stdout."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None):
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.session_id = ""
        self.result: ev.Result | None = None

    def handle(self, event: ev.Event) -> None:
        if isinstance(event, ev.SessionStarted):
            self.session_id = event.session_id
        elif isinstance(event, ev.Result):
            self.result = event
        self.on_event(event)

    def on_event(self, event: ev.Event) -> None:  # pragma: no cover - overridden
        pass

    def retry_line(self, event: ev.Event) -> None:
        """Text and json modes: a retry is said on stderr as it happens (stdout keeps only the result)."""
        if isinstance(event, ev.Notice) and event.kind == "api_retry":
            print(f"yoke: {event.message}", file=self.err, flush=True)

    def warn(self, message: str) -> None:
        print(message, file=self.err, flush=True)

    def note_mode(self, mode: str) -> None:
        """The session's permission mode now (stream-json reports a change; other formats ignore it)."""

    def start_mode(self, mode: str) -> None:
        """The mode the session opened in: a change reported before the first query is measured from it."""

    def emit(self, obj: dict[str, Any]) -> None:
        """One JSON line on stdout (stream-json messages, and control frames in every output format)."""
        self.out.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self.out.flush()


class TextPrinter(Printer):
    """stdout carries what a pipe expects, as Claude Code prints it: the answer, or the error that is the
    result (an API error's text, `Error: Reached max turns (N)`); other failures go to stderr."""

    def on_event(self, event: ev.Event) -> None:
        self.retry_line(event)
        if isinstance(event, ev.Result):
            print(text_mode_line(event), file=self.out if on_stdout(event) else self.err, flush=True)


def text_mode_line(result: ev.Result) -> str:
    if result.reason == "max_turns":  # Claude Code's wording in text mode
        return f"Error: Reached max turns ({max(result.num_turns - 1, 0)})"
    if result.is_error and result.reason not in ("model_error", "prompt_too_long"):
        return f"Error: {result.text}"
    return result.text


def on_stdout(result: ev.Result) -> bool:
    return not result.is_error or result.reason in ("max_turns", "model_error", "prompt_too_long")


class JsonPrinter(Printer):
    def on_event(self, event: ev.Event) -> None:
        self.retry_line(event)
        if isinstance(event, ev.Result):
            self.out.write(json.dumps(result_object(event, self.session_id)) + "\n")
            self.out.flush()


class StreamJsonPrinter(Printer):
    """One JSON object per line (`wire.stream.StreamLines`), written and flushed as each event happens."""

    def __init__(
        self,
        *args: Any,
        init_extra: dict[str, Any] | None = None,
        partial: bool = False,
        forward_subagent_text: bool = False,
        **kwargs: Any,
    ):
        from yoke.wire.stream import StreamLines

        self.stream = StreamLines(init_extra, partial=partial, forward_subagent_text=forward_subagent_text)
        super().__init__(*args, **kwargs)

    @property
    def session_id(self) -> str:  # type: ignore[override]
        return self.stream.session_id

    @session_id.setter
    def session_id(self, value: str) -> None:
        self.stream.session_id = value

    @property
    def init_extra(self) -> dict[str, Any]:
        return self.stream.init_extra

    def on_event(self, event: ev.Event) -> None:
        for obj in self.stream.lines(event):
            self.emit(obj)

    def note_mode(self, mode: str) -> None:
        for obj in self.stream.mode_changed(mode):
            self.emit(obj)

    def start_mode(self, mode: str) -> None:
        self.stream.start_mode(mode)


def make_printer(output_format: str, verbose: bool = False, **kwargs: Any) -> Printer:
    if output_format == "text" and verbose:
        from yoke.cli.progress import ProgressPrinter

        return ProgressPrinter()
    if output_format == "json":
        return JsonPrinter()
    if output_format == "stream-json":
        return StreamJsonPrinter(**kwargs)
    return TextPrinter()

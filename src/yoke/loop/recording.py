"""What the loop writes a conversation with: the session's recorder (`session/recorder.py` `Recorder`),
named here by what the loop and its readers call, so the loop does not name a type above it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from yoke import events as ev
    from yoke.messages import Message
    from yoke.providers.base import MessageStop


class Recording(Protocol):
    transcript: Any  # the session's `Transcript` (its `path`, `enabled`, `append`)
    chain: Any  # the record chain (`entrypoint`, ...)
    last_prompt_uuid: str | None

    @property
    def session_id(self) -> str: ...

    def user(
        self, message: Message, *, prompt: bool = False, meta: bool = False, tool_use_result: Any = None
    ) -> str: ...

    def assistant(self, stop: MessageStop, message: Message) -> str: ...

    def locate(self, messages: Sequence[Message]) -> list[str | None]: ...

    def permission(self, decided: ev.PermissionDecided) -> None: ...

    def system(self, partial: dict[str, Any]) -> None: ...

    def notice(self, kind: str, message: str, data: dict[str, Any] | None = None) -> None: ...

    def todos(self, todos: list[Any]) -> None: ...

    def result(self, result: ev.Result) -> None: ...

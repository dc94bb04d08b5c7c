"""Writes the loop's history to the transcript as it happens (before the matching event is yielded)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from yoke.messages import Message, text_of
from yoke.session import records
from yoke.session.transcript import Transcript

if TYPE_CHECKING:
    from yoke import events as ev
    from yoke.providers.base import MessageStop


class Recorder:
    def __init__(self, transcript: Transcript, chain: records.RecordChain):
        self.transcript = transcript
        self.chain = chain
        self.last_prompt_uuid: str | None = None  # the user prompt the running query answers (checkpoints)
        self.on_result: list[Callable[[], None]] = []  # after a query's result is written (tree checkpoints)
        # history message -> its record's uuid, for a compaction ledger's ranges (id() with the message held, so
        # an id is never reused while it is here; a compaction takes the messages it dropped out)
        self._uuids: dict[int, tuple[Message, str]] = {}

    @property
    def session_id(self) -> str:
        return self.chain.session_id

    def user(
        self, message: Message, *, prompt: bool = False, meta: bool = False, tool_use_result: Any = None
    ) -> str:
        kwargs: dict[str, Any] = {}
        if tool_use_result is not None:
            kwargs["tool_use_result"] = tool_use_result
        record = self.chain.user(message, is_meta=meta, **kwargs)
        self.transcript.append(record)
        self._uuids[id(message)] = (message, record["uuid"])
        if prompt:
            self.last_prompt_uuid = record["uuid"]
            text = message["content"] if isinstance(message["content"], str) else text_of(message)
            self.transcript.append(self.chain.last_prompt(text[:2000]))
        return record["uuid"]

    def assistant(self, stop: MessageStop, message: Message) -> str:
        record = self.chain.assistant(
            message, message_id=stop.id, model=stop.model, stop_reason=stop.stop_reason, usage=stop.usage
        )
        self.transcript.append(record)
        self._uuids[id(message)] = (message, record["uuid"])
        return record["uuid"]

    def locate(self, messages: Sequence[Message]) -> list[str | None]:
        """The uuids of history messages this recorder wrote (None for one it did not: a summary, a message
        of a resumed history); they are let go, as a compaction drops them."""
        out: list[str | None] = []
        for message in messages:
            held = self._uuids.pop(id(message), None)
            out.append(held[1] if held is not None and held[0] is message else None)
        return out

    def permission(self, decided: ev.PermissionDecided) -> None:
        fields = records.permission_decision_fields(
            decided.tool_use_id, decided.tool_name, decided.behavior, decided.source, reason=decided.reason
        )
        self.transcript.append(self.chain.system("permission_decision", fields))

    def system(self, partial: dict[str, Any]) -> None:
        self.transcript.append(self.chain.wrap(partial))

    def notice(self, kind: str, message: str, data: dict[str, Any] | None = None) -> None:
        fields: dict[str, Any] = {"content": message, "level": kind}
        if kind == "model_fallback" and data:  # resume reads it: the session continues on the fallback
            fields["fromModel"], fields["toModel"] = data.get("from_model"), data.get("to_model")
        self.transcript.append(self.chain.system("notice", fields))

    def todos(self, todos: list[Any]) -> None:
        self.transcript.append(self.chain.todos(todos))

    def result(self, result: ev.Result) -> None:
        model_usage = {
            model: {
                "inputTokens": m.input_tokens,
                "outputTokens": m.output_tokens,
                "cacheReadInputTokens": m.cache_read_input_tokens,
                "cacheCreationInputTokens": m.cache_creation_input_tokens,
                "costUSD": m.cost_usd,
            }
            for model, m in result.model_usage.items()
        }
        fields = records.turn_result_fields(result.usage, model_usage, result.total_cost_usd)
        fields["terminalReason"] = result.reason
        if result.is_error and result.text:
            fields["errorText"] = result.text[:2000]  # what the failed turn said, for exports
        self.transcript.append(self.chain.system("turn_result", fields))
        for hook in self.on_result:
            hook()

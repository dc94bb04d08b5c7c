"""`--json-schema`: the answer as JSON valid against a schema, as Claude Code gives it.

The model gets a `StructuredOutput` tool whose input schema is the user's schema. A call that does not
validate comes back as a tool error naming what is wrong, so the model corrects itself; an answer that
ends without a valid call is sent back once with a reminder (a Stop listener); a second plain answer is the
result, as in 2.1.330 (`MAX_STRUCTURED_OUTPUT_RETRIES=0` ends at once with
`error_max_structured_output_retries`). The query's result then carries the
object as `structured_output` and its JSON text as `result`. Works with every provider: it is a tool.
"""

from __future__ import annotations

import json
import os
from typing import Any

from yoke import events as ev
from yoke.loop.lifecycle import LifecycleOutcome
from yoke.tools.base import Tool, ToolContext, ToolInputError, ToolResult

TOOL_NAME = "StructuredOutput"
DEFAULT_MAX_RETRIES = 5
# An answer that ends in plain text is sent back this many times; if the model answers in plain text again,
# the query succeeds with that text, as 2.1.330 does (observed on the scripted server, tests/cli/cc_2_1_330).
PLAIN_ANSWER_REMINDERS = 1
PROMPT = (
    "When you have the final answer, call the StructuredOutput tool exactly once with it: its input must "
    "match the tool's schema. Do not answer in plain text instead."
)
REMINDER = (
    "You MUST call the StructuredOutput tool to give your final answer; its input must match the required "
    "schema. Call it now."
)


def check_schema(schema: dict[str, Any]) -> str:
    """What is wrong with `schema` as a JSON Schema ("" when it is usable)."""
    import jsonschema

    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        return _where(exc) + exc.message
    if schema.get("type", "object") != "object":
        return 'the top level must be an object schema ("type": "object"): tool inputs are objects'
    return ""


def _where(exc: Any) -> str:
    path = "/".join(str(p) for p in exc.absolute_path)
    return f"{path}: " if path else ""


def problems(schema: dict[str, Any], value: Any) -> list[str]:
    import jsonschema

    validator = jsonschema.validators.validator_for(schema)(schema)
    return [_where(e) + e.message for e in sorted(validator.iter_errors(value), key=lambda e: list(e.path))]


class _StructuredOutputTool(Tool):
    name = TOOL_NAME
    description = (
        "Give the final answer as structured data. Call this once, at the end, with input matching the "
        "schema exactly."
    )
    kind = "other"
    read_only = True
    concurrency_safe = True
    ends_query = True  # the answer is given: the query ends without another request, as in 2.1.330

    def __init__(self, owner: StructuredOutput):
        self.owner = owner

    def validate(self, input: dict[str, Any]) -> Any:
        found = problems(self.owner.schema, input)
        if found:
            raise ToolInputError("Output does not match the required schema: " + "; ".join(found[:5]))
        return input

    def input_schema(self) -> dict[str, Any]:
        return self.owner.schema

    async def run(self, input: Any, ctx: ToolContext) -> ToolResult:
        self.owner.value = input
        self.owner.given = True
        return ToolResult("Structured output provided successfully", data=input)


class StructuredOutput:
    """The tool, the Stop listener that insists on it, and the result shaper, sharing one answer."""

    def __init__(self, schema: dict[str, Any], max_retries: int | None = None):
        self.schema = schema
        self.max_retries = max_retries if max_retries is not None else _env_retries()
        self.tool = _StructuredOutputTool(self)
        self.value: Any = None
        self.given = False
        self.retries = 0
        self.exhausted = False

    # ---- the lifecycle listener -------------------------------------------------------------------------

    def wants(self, event: str) -> bool:
        return event in ("UserPromptSubmit", "Stop")

    async def announce(self, event: str, payload: dict[str, Any]) -> LifecycleOutcome:
        if event == "UserPromptSubmit":  # a new query: a new answer is due
            self.value, self.given, self.retries, self.exhausted = None, False, 0, False
            return LifecycleOutcome()
        if self.given or self.retries >= PLAIN_ANSWER_REMINDERS:
            return LifecycleOutcome()  # answered again in plain text: that answer is the result (2.1.330)
        if self.retries >= self.max_retries:
            self.exhausted = True
            return LifecycleOutcome(stop=True, stop_reason=self._gave_up())
        self.retries += 1
        return LifecycleOutcome(block=True, reason=REMINDER, extras={"internal": True})

    def _gave_up(self) -> str:
        return f"Failed to provide valid structured output after {self.max_retries} attempts"

    # ---- the result ---------------------------------------------------------------------------------------

    def shape(self, result: ev.Result) -> ev.Result:
        if self.given and not result.is_error:
            return result.replace(
                text=json.dumps(self.value, ensure_ascii=False), structured_output=self.value
            )
        if self.exhausted:
            return result.replace(reason="structured_output_retries", is_error=True, errors=[self._gave_up()])
        return result


def _env_retries() -> int:
    try:
        return max(0, int(os.environ.get("MAX_STRUCTURED_OUTPUT_RETRIES", DEFAULT_MAX_RETRIES)))
    except ValueError:
        return DEFAULT_MAX_RETRIES

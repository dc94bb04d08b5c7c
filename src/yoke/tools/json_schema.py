"""Tools described by a JSON schema rather than a pydantic model (MCP tools, the agent tools): a small
checker for the parts of JSON Schema tool inputs use, and a base class whose `validate` uses it, so such
tools load without pydantic."""

from __future__ import annotations

from typing import Any, ClassVar

from yoke.tools.base import Tool, ToolInputError

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


def schema_errors(schema: dict[str, Any], value: Any, where: str = "input") -> list[str]:
    """What in `value` does not fit `schema` (type, enum, required, additionalProperties, items, min/max
    lengths and bounds); an empty list when it fits. Unknown keywords are ignored, never failed."""
    errors: list[str] = []
    expected = schema.get("type")
    if expected is not None and not _type_ok(expected, value):
        return [f"{where}: expected {expected}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: must be one of {', '.join(map(repr, schema['enum']))}")
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        for name in schema.get("required") or []:
            if name not in value:
                errors.append(f"{where}.{name}: required")
        for name, item in value.items():
            if name in props:
                errors += schema_errors(props[name], item, f"{where}.{name}")
            elif schema.get("additionalProperties") is False:
                errors.append(f"{where}.{name}: not an allowed field")
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            errors += schema_errors(schema["items"], item, f"{where}[{index}]")
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        errors.append(f"{where}: shorter than {schema['minLength']} characters")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{where}: less than {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{where}: more than {schema['maximum']}")
    return errors


def _type_ok(expected: str | list[str], value: Any) -> bool:
    names = [expected] if isinstance(expected, str) else list(expected)
    for name in names:
        kinds = _TYPES.get(name)
        if kinds is None:
            return True
        if isinstance(value, bool) and name in ("integer", "number"):
            continue
        if isinstance(value, kinds):
            return True
    return False


class SchemaTool(Tool):
    """A tool whose input is the JSON object its schema describes (no pydantic model)."""

    schema: ClassVar[dict[str, Any]]

    def input_schema(self) -> dict[str, Any]:
        return self.schema

    def validate(self, input: dict[str, Any]) -> dict[str, Any]:
        errors = schema_errors(self.schema, input)
        if errors:
            raise ToolInputError("; ".join(errors))
        return input

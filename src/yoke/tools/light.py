"""Built-in tools' inputs parsed without pydantic when they plainly fit.

Loading pydantic and building a tool's input model cost the first tool call of a run some 0.1 s of CPU and
12 MB. Most calls are flat objects of strings, numbers and booleans exactly as the schema says, so the
stand-ins (`yoke.tools.lazy`) check those against the manifest's schema and hand the tool a `LightInput`
with the same attributes the model would have. Anything else (a missing or unknown key, a value pydantic
would coerce or reject, a nested value) goes to the tool's pydantic model, so coercion and every error
message stay pydantic's.

`InputModel` keeps a tool's pydantic model in another module, imported on first use, so the tool's own
module imports without pydantic.
"""

from __future__ import annotations

import importlib
from typing import Any

# JSON-schema keywords a light field may carry; any other keyword makes the whole tool pydantic-only.
_KNOWN = frozenset(
    {"type", "description", "default", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
    | {"minLength", "maxLength"}
)
_JSON_SCALARS = (str, int, float, bool, type(None))
_SCALARS = {"string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,)}


class LightInput:
    """A tool's parsed input as attributes (the model's field names), without pydantic."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.__dict__.update(values)

    def __repr__(self) -> str:
        return f"LightInput({self.__dict__!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LightInput) and other.__dict__ == self.__dict__

    __hash__ = None  # type: ignore[assignment]


class InputModel:
    """A class attribute that is a tool's pydantic input model, imported from `module` when first read."""

    def __init__(self, name: str, module: str = "yoke.tools.builtin.inputs") -> None:
        self.name, self.module = name, module

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        return getattr(importlib.import_module(self.module), self.name)


def light_fields(model: Any, schema: dict[str, Any]) -> dict[str, list[Any]] | None:
    """For the manifest: each schema property's [field name, default], when every field is a plain
    scalar with a JSON default (else None: the tool always parses with pydantic)."""
    fields: dict[str, list[Any]] = {}
    by_alias = {(info.alias or name): (name, info) for name, info in model.model_fields.items()}
    for key, prop in (schema.get("properties") or {}).items():
        found = by_alias.get(key)
        if found is None or not isinstance(prop, dict) or not set(prop) <= _KNOWN:
            return None
        name, info = found
        if prop.get("type") not in _SCALARS and not _string_enum(prop):
            return None
        required = info.is_required()
        if not required and (info.default_factory is not None or not isinstance(info.default, _JSON_SCALARS)):
            return None
        fields[key] = [name, None if required else info.default]
    for key, (name, info) in by_alias.items():  # fields the schema does not show still get their defaults
        if key not in fields:
            if (
                info.is_required()
                or info.default_factory is not None
                or not isinstance(info.default, _JSON_SCALARS)
            ):
                return None
            fields["\0" + key] = [name, info.default]  # a key no call can name: only pydantic takes it
    return fields


def light_parse(schema: dict[str, Any], fields: dict[str, list[Any]], raw: Any) -> LightInput | None:
    """`raw` as a LightInput when it plainly fits (see the module's docstring); None for pydantic to judge."""
    if not isinstance(raw, dict):
        return None
    props = schema.get("properties") or {}
    if any(key not in raw for key in schema.get("required") or ()):
        return None
    values = {name: default for name, default in fields.values()}
    for key, value in raw.items():
        prop, field = props.get(key), fields.get(key)
        if prop is None or field is None or not _fits(prop, value):
            return None
        values[field[0]] = float(value) if prop.get("type") == "number" else value
    return LightInput(values)


def _string_enum(prop: dict[str, Any]) -> bool:
    enum = prop.get("enum")
    return isinstance(enum, list) and all(isinstance(v, str) for v in enum)


def _fits(prop: dict[str, Any], value: Any) -> bool:
    kinds = _SCALARS.get(prop.get("type", ""), (str,))
    if type(value) not in kinds:  # exactly: a bool is no integer, "5" no number (pydantic decides those)
        return False
    if "enum" in prop and value not in prop["enum"]:
        return False
    if isinstance(value, str):
        return prop.get("minLength", 0) <= len(value) <= prop.get("maxLength", len(value))
    if isinstance(value, bool):
        return True
    if "minimum" in prop and value < prop["minimum"]:
        return False
    if "maximum" in prop and value > prop["maximum"]:
        return False
    if "exclusiveMinimum" in prop and value <= prop["exclusiveMinimum"]:
        return False
    return not ("exclusiveMaximum" in prop and value >= prop["exclusiveMaximum"])

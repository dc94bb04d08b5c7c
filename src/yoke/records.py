"""`Record`: the base of the small value classes every run creates at import and in the stream (events).

They were dataclasses; a dataclass compiles its methods when its module is imported, some 0.3 ms each, and
start-up paid that for every event class. A record declares `__slots__` and writes its `__init__` by hand
(as fast per instance as a dataclass's); equality, repr and `replace` come from here, read off the slots.
"""

from __future__ import annotations

import copy
from typing import Any

_FIELDS: dict[type, tuple[str, ...]] = {}


def record_fields(cls: type) -> tuple[str, ...]:
    """The slots of `cls` and its bases, base first: a record's fields in order."""
    names = _FIELDS.get(cls)
    if names is None:
        seen: list[str] = []
        for klass in reversed(cls.__mro__):
            slots = klass.__dict__.get("__slots__", ())
            seen += [slots] if isinstance(slots, str) else list(slots)
        names = _FIELDS[cls] = tuple(seen)
    return names


class Record:
    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]  # mutable values, as dataclasses' default eq makes them

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in record_fields(type(self)))

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in record_fields(type(self)))
        return f"{type(self).__name__}({fields})"

    def replace(self, **changes: Any) -> Any:
        """A copy with some fields changed (what `dataclasses.replace` did)."""
        fields = record_fields(type(self))
        unknown = set(changes) - set(fields)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {', '.join(sorted(unknown))}")
        twin = copy.copy(self)
        for name, value in changes.items():
            setattr(twin, name, value)
        return twin

"""`Record`: the base of the small value classes every run creates at import and in the stream (events).

They were dataclasses; a dataclass compiles its methods when its module is imported, some 0.3 ms each, and
start-up paid that for every event class. A record declares `__slots__` and writes its `__init__` by hand
(as fast per instance as a dataclass's); equality, repr and `replace` come from here, read off the slots.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, dataclass_transform, overload

if TYPE_CHECKING:
    from dataclasses import field as _field
else:
    _field = None  # only type checkers read the field specifiers; importing dataclasses costs start-up

_T = TypeVar("_T")

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
        twin = object.__new__(type(self))  # not copy.copy: its reduce protocol cost more than the fields
        for name in record_fields(type(self)):
            object.__setattr__(twin, name, changes.pop(name) if name in changes else getattr(self, name))
        if changes:  # what is left named no field
            raise TypeError(f"{type(self).__name__} has no field {', '.join(sorted(changes))}")
        return twin


class FrozenRecord(Record):
    """A record whose fields are set once, by `__init__` through `_fill`, and never changed: what a frozen
    dataclass was. Hashable by its fields, as a frozen dataclass with equality is."""

    __slots__ = ()

    def _fill(self, **values: Any) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: {type(self).__name__} is frozen")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: {type(self).__name__} is frozen")

    # Record sets __hash__ = None (mutable, unhashable); a frozen record hashes by its fields, as a frozen
    # dataclass does. mypy reads the override of None as an incompatible signature.
    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(getattr(self, n) for n in record_fields(type(self))))

    def __reduce__(self) -> tuple[Any, ...]:
        # copy, deepcopy and pickle would restore the fields through __setattr__
        return _remake, (type(self), tuple(getattr(self, n) for n in record_fields(type(self))))


def _remake(cls: type[FrozenRecord], values: tuple[Any, ...]) -> FrozenRecord:
    made = object.__new__(cls)
    made._fill(**dict(zip(record_fields(cls), values, strict=True)))
    return made


# -- dataclasses made on first use -------------------------------------------------------------------------

_PENDING = "__yoke_pending_dataclass__"
_STAND_INS = "__yoke_stand_ins__"  # (in the pending params) the methods standing in until the class is made


@overload
@dataclass_transform(field_specifiers=(_field,))
def dataclass(cls: type[_T], /) -> type[_T]: ...
@overload
def dataclass(cls: None = None, /, **params: Any) -> Callable[[type[_T]], type[_T]]: ...
def dataclass(cls: Any = None, /, **params: Any) -> Any:
    """`dataclasses.dataclass`, applied when the class is first used rather than when its module is imported.

    Making a dataclass compiles its methods (about 1 ms each here), and a run imports some fifty it mostly
    never instantiates. The class is made, exactly as `dataclasses.dataclass(cls, **params)` would make it,
    the first time its fields are asked for (`fields`, `is_dataclass`, `replace`, `asdict` and subclassing
    all ask), or an instance is compared or shown. An instance of a plain class (fields with defaults or
    factories, no `ClassVar`, `InitVar` or field options, not frozen) is filled in by a generic `__init__`
    without making the class: the options a front-end builds once a run cost more to compile (44 fields,
    some 3 ms) than the rest of its set-up. `slots` is not honoured: a class made later cannot gain slots.
    Not for classes that define their own `__init__` (they are made at once)."""

    def wrap(klass: type[Any]) -> type[Any]:
        params.pop("slots", None)
        if "__init__" in klass.__dict__ or not params.get("init", True):
            return _dataclasses().dataclass(klass, **params)
        setattr(klass, _PENDING, params)
        klass.__dataclass_fields__ = _FieldsOnDemand(klass)  # type: ignore[attr-defined]

        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            fill = _filler(klass)
            if fill is not None:
                fill(self, args, kwargs)
                return
            _make(klass)
            klass.__init__(self, *args, **kwargs)  # type: ignore[misc]

        made: Any = klass  # the class's own methods once made, which the checker cannot know

        def __eq__(self: Any, other: Any) -> Any:
            _make(klass)
            return made.__eq__(self, other)

        def __repr__(self: Any) -> str:
            _make(klass)
            return made.__repr__(self)

        klass.__init__ = __init__  # type: ignore[misc]
        for name, stand_in in (("__eq__", __eq__), ("__repr__", __repr__)):
            if name not in klass.__dict__ and params.get(name.strip("_"), True):
                setattr(klass, name, stand_in)
                params.setdefault(_STAND_INS, []).append(name)
        if params.get("eq", True) and "__hash__" not in klass.__dict__:
            klass.__hash__ = None  # type: ignore[assignment]  # as made (a frozen one is made before any instance)
            params.setdefault(_STAND_INS, []).append("__hash__")
        return klass

    return wrap if cls is None else wrap(cls)


class _FieldsOnDemand:
    """Stands in for `__dataclass_fields__` until the class is made: whoever asks for the fields makes it."""

    def __init__(self, klass: type) -> None:
        self._klass = klass

    def __get__(self, instance: Any, owner: type) -> Any:
        _make(self._klass)
        return self._klass.__dict__["__dataclass_fields__"]


def _make(klass: type) -> None:
    if _PENDING not in klass.__dict__:
        return
    # A lock, as a tool can load in a thread (`LazyTool.prepare`): a class is made once, and no thread sees
    # it half made. Reentrant: making a class makes its pending bases first.
    with _MAKING:
        params = klass.__dict__.get(_PENDING)
        if params is None:
            return
        del klass.__init__  # type: ignore[misc]
        del klass.__dataclass_fields__  # type: ignore[attr-defined]
        for name in params.pop(_STAND_INS, ()):
            delattr(klass, name)
        _dataclasses().dataclass(klass, **params)
        delattr(klass, _PENDING)  # last: until now other threads wait at the lock


_MAKING = threading.RLock()
_FILLERS: dict[type, Any] = {}
_NOT_PLAIN = ("ClassVar", "InitVar", "KW_ONLY", "typing.", "dataclasses.")


def _filler(klass: type) -> Any:
    """A function filling an instance of pending `klass` as its dataclass `__init__` would, or None when the
    class is not plain enough for one (then it is made)."""
    if klass in _FILLERS:
        return _FILLERS[klass]
    _FILLERS[klass] = fill = _plain_filler(klass)
    return fill


def _plain_filler(klass: type) -> Any:
    params = klass.__dict__.get(_PENDING)
    if params is None:  # made meanwhile (in another thread): its own __init__ serves
        return None
    if any(params.get(k, False) for k in ("frozen", "order", "unsafe_hash", "kw_only")):
        return None
    if any("__dataclass_fields__" in base.__dict__ for base in klass.__mro__[1:]):
        return None
    Field = _dataclasses().Field
    missing = _dataclasses().MISSING
    spec: list[tuple[str, Any, Any]] = []  # name, default, factory
    for name, annotation in klass.__dict__.get("__annotations__", {}).items():
        if not isinstance(annotation, str) or annotation.startswith(_NOT_PLAIN):
            return None
        value = klass.__dict__.get(name, missing)
        if isinstance(value, Field):
            if not value.init or value.kw_only is True or value.default is missing is value.default_factory:
                return None
            spec.append((name, value.default, value.default_factory))
        elif value is missing or type(value).__hash__ is None:
            return None  # required, or a mutable default the dataclass refuses: leave both to it
        else:
            spec.append((name, value, missing))
    names = {name for name, _, _ in spec}
    post_init = getattr(klass, "__post_init__", None)

    def fill(self: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if len(args) > len(spec) or not names.issuperset(kwargs):
            _make(klass)  # let the real __init__ raise its TypeError
            klass.__init__(self, *args, **kwargs)  # type: ignore[misc]
            return
        for index, (name, default, factory) in enumerate(spec):
            if index < len(args):
                if name in kwargs:
                    raise TypeError(f"{klass.__name__}.__init__() got multiple values for argument {name!r}")
                setattr(self, name, args[index])
            elif name in kwargs:
                setattr(self, name, kwargs[name])
            else:
                setattr(self, name, default if factory is missing else factory())
        if post_init is not None:
            post_init(self)

    return fill


def _dataclasses() -> Any:
    import dataclasses

    return dataclasses

"""Records behave as the dataclasses they replaced: fields, equality, repr, replace; frozen ones cannot change
but copy, deepcopy and pickle like frozen dataclasses."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import pytest

from yoke.permissions.rules import PermissionRule
from yoke.records import record_fields
from yoke.sandbox.settings import SandboxSettings
from yoke.tools.base import SessionState, ToolContext


def test_a_record_compares_repr_and_replaces_by_its_fields(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path, session=SessionState("s", tmp_path / "s"))
    assert ctx.working_dirs == [] and ctx.tool_use_id == "" and not ctx.cancel.is_set()
    call = ctx.for_call("toolu_1")
    assert call.tool_use_id == "toolu_1" and call.session is ctx.session and call.cancel is ctx.cancel
    assert ctx.tool_use_id == ""  # the session's own context is untouched
    assert call != ctx and call.replace(tool_use_id="") == ctx
    assert "tool_use_id='toolu_1'" in repr(call)
    with pytest.raises(TypeError, match="no field nope"):
        ctx.replace(nope=1)
    with pytest.raises(TypeError):
        hash(ctx)  # mutable, as a dataclass with equality is unhashable


def test_a_frozen_record_cannot_change_yet_copies_and_pickles(tmp_path: Path) -> None:
    settings = SandboxSettings(enabled=True, allow_write=("~/out",), base_dir=tmp_path)
    with pytest.raises(AttributeError, match="frozen"):
        settings.enabled = False  # type: ignore[misc]
    with pytest.raises(AttributeError, match="frozen"):
        del settings.allow_write
    assert settings.enabled is True
    for twin in (copy.copy(settings), copy.deepcopy(settings), pickle.loads(pickle.dumps(settings))):
        assert twin == settings and hash(twin) == hash(settings) and twin is not settings
    changed = settings.replace(enabled=False)
    assert changed.enabled is False and settings.enabled is True
    assert record_fields(SandboxSettings)[0] == "enabled" and SandboxSettings().base_dir == Path.cwd()
    assert {settings, copy.copy(settings)} == {settings}


def test_a_permission_rule_cannot_be_changed_once_parsed(tmp_path: Path) -> None:
    rule = PermissionRule("Bash", "git status", "allow", "project", tmp_path, "Bash(git status)")
    with pytest.raises(AttributeError, match="frozen"):
        rule.behavior = "deny"  # type: ignore[misc]
    assert rule.behavior == "allow" and hash(rule) == hash(copy.deepcopy(rule))


# ---- dataclasses made on first use ---------------------------------------------------------------------------


def _twins(body: str, **params: object) -> tuple[type, type]:
    """The same class made by `dataclasses.dataclass` and by Yoke's lazy `dataclass`."""
    import dataclasses

    import yoke.records

    made = []
    for decorate in (dataclasses.dataclass, yoke.records.dataclass):
        space: dict = {"field": dataclasses.field}
        exec("from __future__ import annotations\n" + body, space)
        made.append(decorate(**params)(space["Options"]))
    return made[0], made[1]


PLAIN = """
class Options:
    name: str = "x"
    tags: list[str] = field(default_factory=list)
    limit: int | None = None
    def __post_init__(self):
        self.seen = True
"""


def test_a_plain_lazy_dataclass_is_filled_without_being_made_and_acts_as_one() -> None:
    import dataclasses

    from yoke.records import _PENDING

    real, lazy = _twins(PLAIN)
    one = lazy("a", limit=3)
    assert _PENDING in lazy.__dict__  # filled, not made
    assert (one.name, one.tags, one.limit, one.seen) == ("a", [], 3, True)
    assert lazy().tags is not lazy().tags  # a fresh default per instance
    assert lazy.__hash__ is None and real.__hash__ is None
    assert repr(one) == repr(real("a", limit=3)).replace(real.__qualname__, lazy.__qualname__)
    assert _PENDING not in lazy.__dict__  # asked for its repr: made now
    assert one == lazy("a", [], 3) and one != lazy("b")
    assert dataclasses.replace(one, name="b") == lazy("b", limit=3)
    assert [f.name for f in dataclasses.fields(one)] == ["name", "tags", "limit"]


@pytest.mark.parametrize(
    ("args", "kwargs", "words"),
    [
        ((), {"nope": 1}, "unexpected keyword"),
        (("a",), {"name": "b"}, "multiple values"),
        ((1, 2, 3, 4), {}, "positional"),
    ],
)
def test_a_lazy_dataclass_refuses_what_the_real_one_refuses(args: tuple, kwargs: dict, words: str) -> None:
    real, lazy = _twins(PLAIN)
    with pytest.raises(TypeError, match=words):
        real(*args, **kwargs)
    with pytest.raises(TypeError, match=words):
        lazy(*args, **kwargs)


@pytest.mark.parametrize(
    ("body", "params"),
    [
        ("class Options:\n    name: str\n    n: int = 0\n", {}),  # a required field
        ("class Options:\n    name: str = 'x'\n", {"frozen": True}),
        (
            "from typing import ClassVar\nclass Options:\n    kind: ClassVar[str] = 'k'\n    name: str = 'x'\n",
            {},
        ),
    ],
    ids=["required", "frozen", "classvar"],
)
def test_a_lazy_dataclass_that_is_not_plain_is_made_at_its_first_instance(body: str, params: dict) -> None:
    from yoke.records import _PENDING

    real, lazy = _twins(body, **params)
    made = lazy(name="y")
    assert _PENDING not in lazy.__dict__
    assert repr(made) == repr(real(name="y")).replace(real.__qualname__, lazy.__qualname__)
    assert (lazy.__hash__ is None) == (real.__hash__ is None)

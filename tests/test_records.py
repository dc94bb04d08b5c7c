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

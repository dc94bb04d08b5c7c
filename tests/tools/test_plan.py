"""ExitPlanMode: approval, rejection with feedback, edited plans, and nobody to ask."""

from __future__ import annotations

from pathlib import Path

import pytest

from yoke.seams import Answer, NoAsker
from yoke.tools.base import SessionState, ToolContext, ToolError
from yoke.tools.builtin.plan import ExitPlanModeInput, ExitPlanModeTool

PLAN = "1. Add the parser\n2. Test it"


class FakeAsker:
    def __init__(self, answer):
        self.answer = answer
        self.plans = []

    async def approve_plan(self, plan, tool_use_id=""):
        self.plans.append(plan)
        return self.answer


def make_ctx(tmp_path: Path, asker=None) -> ToolContext:
    return ToolContext(cwd=tmp_path, session=SessionState("s", tmp_path / "s"), asker=asker)


async def present(ctx: ToolContext, payload: dict):
    return await ExitPlanModeTool().run(ExitPlanModeInput.model_validate(payload), ctx)


async def test_approved_plan(tmp_path):
    asker = FakeAsker(Answer("allow"))
    result = await present(make_ctx(tmp_path, asker), {"plan": PLAN})
    assert asker.plans == [PLAN]
    assert "approved" in result.content and PLAN in result.content
    assert result.data == {"plan": PLAN, "isAgent": False, "approved": True}
    assert not result.is_error


async def test_rejected_plan_carries_feedback(tmp_path):
    asker = FakeAsker(Answer("deny", "Use a generator instead"))
    result = await present(make_ctx(tmp_path, asker), {"plan": PLAN})
    assert result.is_error
    assert "Use a generator instead" in result.content and result.data["approved"] is False


async def test_user_edited_plan_is_used(tmp_path):
    asker = FakeAsker(Answer("allow", updated_input={"plan": "Edited plan"}))
    ctx = make_ctx(tmp_path, asker)
    result = await present(ctx, {"plan": PLAN})
    assert result.data["plan"] == "Edited plan" and ctx.session.services.plan == "Edited plan"


@pytest.mark.parametrize("asker", [None, NoAsker()])
async def test_nobody_to_approve(tmp_path, asker):
    result = await present(make_ctx(tmp_path, asker), {"plan": PLAN})
    assert "not available" in result.content and result.data["approved"] is False


async def test_extra_keys_and_plan_file(tmp_path):
    plan_file = tmp_path / "plan.md"
    plan_file.write_text("From the file")
    ctx = make_ctx(tmp_path, FakeAsker(Answer("allow")))
    ctx.session.services.plan_file = str(plan_file)
    result = await present(ctx, {"allowedPrompts": [{"tool": "Bash", "prompt": "run tests"}]})
    assert result.data["plan"] == "From the file" and result.data["filePath"] == str(plan_file)


async def test_missing_plan_is_an_error(tmp_path):
    with pytest.raises(ToolError, match="plan"):
        await present(make_ctx(tmp_path, FakeAsker(Answer("allow"))), {})

"""ExitPlanMode: present the finished plan to the user for approval before any change is made."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from yoke.tools.base import Tool, ToolContext, ToolError, ToolKind, ToolResult
from yoke.tools.schema import ToolInput

DESCRIPTION = """\
In plan mode, presents your plan to the user and asks for approval to start implementing it. Call it only \
when planning work that will change code, once the plan is complete: what you will change, in which files, \
in what order, and how you will check it works. Write the plan in Markdown in `plan`, concise but specific.
- Do not call it for research-only tasks (reading, searching, explaining) that need no implementation.
- Settle open questions with AskUserQuestion before calling this; this tool is only for approval.
- If the user rejects the plan, revise it as they ask and present it again.\
"""

NOT_AVAILABLE = (
    "The user is not available to review the plan in this session (nobody is at the front-end), so it was "
    "not approved. Stay in plan mode: make no changes, and end your turn with the plan as your answer."
)


class ExitPlanModeInput(ToolInput):
    model_config = ConfigDict(extra="allow")  # newer versions send allowedPrompts and other keys

    plan: str | None = Field(default=None, description="The plan to present, in Markdown")


class ExitPlanModeTool(Tool):
    name: ClassVar[str] = "ExitPlanMode"
    kind: ClassVar[ToolKind] = "switch_mode"
    description: ClassVar[str] = DESCRIPTION
    input_model: ClassVar[type[BaseModel]] = ExitPlanModeInput
    read_only: ClassVar[bool] = True  # presenting a plan changes nothing; it must run in plan mode
    timeout_s: ClassVar[float | None] = 24 * 3600.0

    async def run(self, input: ExitPlanModeInput, ctx: ToolContext) -> ToolResult:
        plan = (input.plan or "").strip() or _plan_from_file(ctx)
        if not plan:
            raise ToolError("Give the plan to present in `plan` (Markdown).")
        ctx.session.services.plan = plan
        data: dict[str, Any] = {"plan": plan, "isAgent": False}
        if ctx.session.services.plan_file:
            data["filePath"] = str(ctx.session.services.plan_file)
        answer = (
            await ctx.asker.approve_plan(plan, tool_use_id=ctx.tool_use_id) if ctx.asker is not None else None
        )
        if answer is None:
            return ToolResult(NOT_AVAILABLE, data={**data, "approved": False})
        if answer.behavior != "allow":
            ctx.refused(self.name, {"plan": plan}, answer.message)
            feedback = f" Their feedback: {answer.message}" if answer.message else ""
            text = (
                f"The user did not approve the plan.{feedback} Stay in plan mode: revise the plan "
                "accordingly and present it again with ExitPlanMode."
            )
            return ToolResult(text, is_error=True, data={**data, "approved": False})
        if ctx.set_permission_mode is not None:  # approved: leave plan mode (for the mode the user chose)
            ctx.set_permission_mode(answer.mode or "default")
        if answer.updated_input and isinstance(answer.updated_input.get("plan"), str):
            plan = answer.updated_input["plan"]  # the user may edit the plan before approving it
            ctx.session.services.plan = plan
            data["plan"] = plan
        text = (
            "The user approved your plan. You can now start implementing it; keep track of the steps with "
            f"the todo list if there are several.\n\nApproved plan:\n{plan}"
        )
        return ToolResult(text, data={**data, "approved": True})


def _plan_from_file(ctx: ToolContext) -> str:
    path = ctx.session.services.plan_file
    if not path:
        return ""
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except OSError:
        return ""

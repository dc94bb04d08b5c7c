"""AskUserQuestion: multiple-choice questions put to the user through the front-end."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from yoke.seams import Answer
from yoke.tools.base import Tool, ToolContext, ToolKind, ToolResult
from yoke.tools.schema import ToolInput

DESCRIPTION = """\
Asks the user one to four multiple-choice questions and waits for the answers. Use it when a decision is \
genuinely the user's to make (a preference, an ambiguous requirement, a choice between approaches) and a \
wrong guess would waste work; do not use it for things you can find out yourself.
- Each question has a short `header` (at most 12 characters, shown as a tag), 2-4 `options` (a `label` of a \
few words and a `description` of what choosing it means), and `multiSelect` when several may be chosen.
- The user can always answer in their own words instead ("Other"), so do not add such an option.
- Put the option you recommend first and end its label with "(Recommended)".
- In plan mode, use it to settle requirements, not to ask for approval of the plan (ExitPlanMode does that).\
"""

NOT_AVAILABLE = (
    "The user is not available to answer questions in this session (it is running without anyone at the "
    "front-end). Do not wait for an answer: go on with the most reasonable choice, say which one you made "
    "and why, or stop and explain what you need decided."
)

REFUSED = "The user declined to answer the questions."


class QuestionOption(ToolInput):
    model_config = ConfigDict(extra="allow")

    label: str = Field(description="The choice as the user sees it (1-5 words)")
    description: str = Field(description="What choosing this option means")
    preview: str | None = Field(default=None, description="Optional content to show for this option")


class Question(ToolInput):
    model_config = ConfigDict(extra="allow")

    question: str = Field(description="The full question, ending with a question mark")
    header: str = Field(description="A very short tag for the question (max 12 characters)")
    options: list[QuestionOption] = Field(min_length=2, max_length=4, description="2-4 choices")
    multiSelect: bool = Field(default=False, description="Whether several options may be chosen")


class AskUserQuestionInput(ToolInput):
    model_config = ConfigDict(extra="allow")

    questions: list[Question] = Field(min_length=1, max_length=4, description="1-4 questions to ask")
    answers: dict[str, str] | None = Field(
        default=None, description="Answers already collected (filled in by the front-end or a hook)"
    )


class AskUserQuestionTool(Tool):
    name: ClassVar[str] = "AskUserQuestion"
    kind: ClassVar[ToolKind] = "other"
    description: ClassVar[str] = DESCRIPTION
    input_model: ClassVar[type[BaseModel]] = AskUserQuestionInput
    read_only: ClassVar[bool] = True
    timeout_s: ClassVar[float | None] = 24 * 3600.0  # a person may take their time

    def input_schema(self) -> dict[str, Any]:
        schema = super().input_schema()
        schema["properties"].pop("answers", None)  # for front-ends and hooks, not for the model
        return schema

    async def run(self, input: AskUserQuestionInput, ctx: ToolContext) -> ToolResult:
        questions = [q.model_dump(exclude_none=True) for q in input.questions]
        answers = input.answers
        if answers is None and ctx.asker is not None:
            reply = await ctx.asker.ask_user(questions, tool_use_id=ctx.tool_use_id)
            if isinstance(reply, Answer):  # the user refused the questions: their words go to the model
                ctx.refused(self.name, {"questions": questions}, reply.message or REFUSED)
                return ToolResult(reply.message or REFUSED, is_error=True)
            answers = reply
        if answers is None:
            return ToolResult(NOT_AVAILABLE, data={"questions": questions, "answers": {}})
        answered = ", ".join(f'"{q}"="{a}"' for q, a in answers.items())
        if answers:
            text = f"The user answered your questions: {answered}. Go on with these answers in mind."
        else:
            text = "The user closed the questions without answering. Ask differently or carry on."
        return ToolResult(text, data={"questions": questions, "answers": dict(answers)})

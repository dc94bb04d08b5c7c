"""AskUserQuestion through a fake front-end, with nobody there, and with pre-filled answers."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from yoke.seams import NoAsker
from yoke.tools.base import SessionState, ToolContext
from yoke.tools.builtin.ask import AskUserQuestionInput, AskUserQuestionTool

QUESTIONS = [
    {
        "question": "Which database should we use?",
        "header": "Database",
        "options": [
            {"label": "SQLite (Recommended)", "description": "A file, no server"},
            {"label": "Postgres", "description": "A server"},
        ],
        "multiSelect": False,
    }
]


class FakeAsker:
    def __init__(self, answers):
        self.answers = answers
        self.asked = None

    async def ask_user(self, questions, tool_use_id=""):
        self.asked = questions
        return self.answers


def make_ctx(tmp_path: Path, asker=None) -> ToolContext:
    return ToolContext(cwd=tmp_path, session=SessionState("s", tmp_path / "s"), asker=asker)


async def ask(ctx: ToolContext, **extra):
    return await AskUserQuestionTool().run(
        AskUserQuestionInput.model_validate({"questions": QUESTIONS, **extra}), ctx
    )


async def test_answers_come_back_to_the_model(tmp_path):
    asker = FakeAsker({"Which database should we use?": "Postgres"})
    result = await ask(make_ctx(tmp_path, asker))
    assert asker.asked[0]["header"] == "Database" and len(asker.asked[0]["options"]) == 2
    assert '"Which database should we use?"="Postgres"' in result.content
    assert result.data["answers"] == {"Which database should we use?": "Postgres"}
    assert not result.is_error


@pytest.mark.parametrize("asker", [None, NoAsker()])
async def test_nobody_there_is_a_clear_result(tmp_path, asker):
    result = await ask(make_ctx(tmp_path, asker))
    assert "not available" in result.content
    assert result.data["answers"] == {}


async def test_prefilled_answers_skip_the_front_end(tmp_path):
    asker = FakeAsker({"x": "y"})
    result = await ask(
        make_ctx(tmp_path, asker), answers={"Which database should we use?": "SQLite (Recommended)"}
    )
    assert asker.asked is None
    assert "SQLite (Recommended)" in result.content


def test_schema_limits():
    too_few_options = [{**QUESTIONS[0], "options": QUESTIONS[0]["options"][:1]}]
    with pytest.raises(ValidationError):
        AskUserQuestionInput.model_validate({"questions": too_few_options})
    with pytest.raises(ValidationError):
        AskUserQuestionInput.model_validate({"questions": QUESTIONS * 5})
    schema = AskUserQuestionTool().input_schema()
    assert list(schema["properties"]) == ["questions"]

"""ReportFindings: a code review's verified findings as a typed list (Claude Code 2.1.332 offers it to the
model by default; its input schema is in tests/scheduling/cc_2_1_332_tools.json). The list is the tool's
structured output (`tool_use_result` on the stream, for a client to render); the model reads a one-line
count. Nothing else happens: it changes no file and needs no permission."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from yoke.tools.base import Tool, ToolContext, ToolKind, ToolResult
from yoke.tools.schema import ToolInput, inline_definitions

DESCRIPTION = """\
Reports a code review's findings as a typed list a client can show. Use it only when review instructions \
ask for it: once, with the verified findings, most severe first (an empty list when none held up), instead \
of writing them out as text. When re-reporting after fixes, set each finding's outcome.\
"""


class Finding(ToolInput):
    file: str = Field(description="Path of the file, relative to the repository")
    line: int | None = Field(default=None, description="1-based line the finding points at")
    summary: str = Field(description="What is wrong")
    short_summary: str | None = Field(default=None, max_length=60, description="The claim in 60 characters")
    failure_scenario: str = Field(description="Inputs or state that lead to the wrong result")
    category: str | None = Field(
        default=None, max_length=40, description="A kebab-case kind, e.g. correctness"
    )
    severity: Literal["important", "pre_existing", "nit"] | None = Field(default=None, description="How bad")
    verdict: Literal["CONFIRMED", "PLAUSIBLE"] | None = Field(default=None, description="After a verify pass")
    outcome: Literal["fixed", "skipped", "no_change_needed"] | None = Field(
        default=None, description="Only when re-reporting after fixes"
    )


class ReportFindingsInput(ToolInput):
    level: Literal["low", "medium", "high", "xhigh", "max"] | None = Field(
        default=None, description="The effort the review ran at"
    )
    findings: list[Finding] = Field(max_length=32, description="Verified findings, most severe first")


class ReportFindingsTool(Tool):
    name: ClassVar[str] = "ReportFindings"
    kind: ClassVar[ToolKind] = "think"
    description: ClassVar[str] = DESCRIPTION
    input_model: ClassVar[type[BaseModel]] = ReportFindingsInput
    read_only: ClassVar[bool] = True
    concurrency_safe: ClassVar[bool] = True

    def input_schema(self) -> dict[str, Any]:
        return inline_definitions(super().input_schema())  # self-contained, as 2.1.332 writes it

    async def run(self, input: ReportFindingsInput, ctx: ToolContext) -> ToolResult:
        findings = [f.model_dump(exclude_none=True) for f in input.findings]
        data = {"findings": findings, **({"level": input.level} if input.level else {})}
        count = len(findings)
        return ToolResult(f"Reported {count} finding{'s' if count != 1 else ''}.", data=data)

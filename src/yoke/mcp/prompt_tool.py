"""`--permission-prompt-tool mcp__<server>__<tool>`: permission questions answered by an MCP tool, as in
Claude Code. The tool gets `{tool_name, input, tool_use_id}` and answers with one text item holding JSON:
`{"behavior": "allow", "updatedInput": {...}}` or `{"behavior": "deny", "message": "..."}`."""

from __future__ import annotations

from typing import Any

from yoke.jsonsafe import loads as safe_json
from yoke.seams import Answer, NoAsker, PermissionQuestion


class McpPromptToolAsker(NoAsker):
    def __init__(self, tool: Any):
        self.tool = tool  # an McpTool

    async def ask(self, question: PermissionQuestion) -> Answer:
        arguments = {
            "tool_name": question.tool_name,
            "input": question.input,
            "tool_use_id": question.tool_use_id,
        }
        try:
            result = await self.tool.manager.call_tool(self.tool.server, self.tool.remote_name, arguments)
            texts = [c.text for c in result.content or [] if getattr(c, "type", "") == "text"]
            if result.is_error or not texts:
                raise ValueError(texts[0] if texts else "no answer")
            verdict = safe_json(texts[0])
        except Exception as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return Answer("deny", f"The permission prompt tool {self.tool.name} failed: {first}")
        if not isinstance(verdict, dict) or verdict.get("behavior") not in ("allow", "deny"):
            return Answer("deny", f"The permission prompt tool {self.tool.name} gave no allow/deny answer.")
        if verdict["behavior"] == "allow":
            updated = verdict.get("updatedInput")
            return Answer("allow", updated_input=updated if isinstance(updated, dict) else None)
        return Answer("deny", str(verdict.get("message") or f"{self.tool.name} denied the call"))

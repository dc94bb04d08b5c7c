"""The terminal's answers to the session's questions: permission prompts, AskUserQuestion, plan approval.

"Always allow" choices apply the gate's own suggested permission updates (the narrowest rules, written to
the chosen settings file) through `Session.apply_permission_update`; nothing here builds rules itself.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text

from yoke.seams import Answer, PermissionQuestion
from yoke.ui.tool_view import EDIT_TOOLS, brief, diff_body

DESTINATION_LABELS = {
    "localSettings": "this project (.claude/settings.local.json)",
    "projectSettings": "this project, shared (.claude/settings.json)",
    "userSettings": "all projects (~/.claude/settings.json)",
}


class UIAsker:
    def __init__(self, ui: Any):
        self.ui = ui

    async def ask(self, question: PermissionQuestion) -> Answer:
        ui = self.ui
        options: list[tuple[str, Any]] = [("Yes", "once"), ("Yes, allow for this session", "session")]
        for update in question.suggestions:
            options += _always_options(update)
        options.append(("No, and tell Yoke what to do differently (esc)", "deny"))
        header = ui.painter.ansi(*_describe(question, ui.cwd))
        notice = (f"Yoke needs your permission to use {question.tool_name}", "permission_prompt")
        index = await ui.choose(header, [label for label, _ in options], notify=notice)
        action = options[index][1] if index is not None else "deny-interrupt"
        if action == "once":
            return Answer("allow")
        if action == "session":
            return Answer("allow", remember=True)
        if isinstance(action, dict):
            try:
                ui.session.apply_permission_update(action)
            except (ValueError, OSError) as exc:
                ui.say(f"  ⚠ could not save the rule: {exc}", "yellow")
            return Answer("allow")
        if action == "deny-interrupt":
            return Answer("deny", "The user declined this tool call.", interrupt=True)
        message = await ui.ask_text()
        if not message:
            return Answer("deny", "The user declined this tool call.", interrupt=True)
        return Answer("deny", f"The user declined this tool call and said: {message}")

    async def approve_mcp_servers(self, servers: list[dict[str, str]]) -> dict[str, str]:
        """The project's `.mcp.json` servers nobody has approved yet, asked about once each: "all" (this
        and every server of the project's .mcp.json), "yes", "no"; Esc leaves one undecided."""
        ui = self.ui
        labels = [
            "Yes, and trust every server in this project's .mcp.json",
            "Yes, this server",
            "No, do not start it",
        ]
        answers: dict[str, str] = {}
        for server in servers:
            header = ui.painter.ansi(
                Text(
                    f'The project\'s .mcp.json asks to start the MCP server "{server["name"]}"', style="bold"
                ),
                Text(f"  {server['description']}", style="dim"),
                Text(
                    "  It runs with your permissions; start it only if you trust this project.", style="dim"
                ),
            )
            index = await ui.choose(
                header, labels, notify=("An MCP server waits for approval", "mcp_approval")
            )
            if index is None:
                continue
            answers[server["name"]] = ("all", "yes", "no")[index]
            if index == 0:
                break
        return answers

    async def ask_user(self, questions: list[dict[str, Any]], tool_use_id: str = "") -> dict[str, str] | None:
        ui = self.ui
        answers: dict[str, str] = {}
        for question in questions:
            text = str(question.get("question", ""))
            labels = [str(o.get("label", "")) for o in question.get("options") or [] if isinstance(o, dict)]
            descriptions = [
                str(o.get("description", "")) for o in question.get("options") or [] if isinstance(o, dict)
            ]
            shown = [
                f"{label} — {desc}" if desc else label
                for label, desc in zip(labels, descriptions, strict=False)
            ]
            header = Text(str(question.get("header", "")) + "\n", style="bold cyan") + Text(
                text, style="bold"
            )
            index = await ui.choose(
                ui.painter.ansi(header),
                [*shown, "Other (type an answer)"],
                notify=("Yoke has a question for you", "idle_prompt"),
            )
            if index is None:
                return None
            if index < len(labels):
                answers[text] = labels[index]
            else:
                typed = await ui.ask_text()
                if typed is None:
                    return None
                answers[text] = typed
        return answers

    async def approve_plan(self, plan: str, tool_use_id: str = "") -> Answer | None:
        from rich.markdown import Markdown

        ui = self.ui
        ui.emit(ui.painter.ansi(Text("● Plan", style="bold green"), Markdown(plan)))
        header = ui.painter.ansi(Text("Would you like to proceed with this plan?", style="bold"))
        options = ["Yes, and auto-accept edits", "Yes, and manually approve edits", "No, keep planning"]
        index = await ui.choose(
            header, options, notify=("Yoke's plan is ready for review", "permission_prompt")
        )
        if index == 0:
            return Answer("allow", mode="acceptEdits")
        if index == 1:
            return Answer("allow", mode="default")
        message = await ui.ask_text() if index == 2 else None
        return Answer("deny", message or "")


def _always_options(update: dict[str, Any]) -> list[tuple[str, Any]]:
    kind = update.get("type")
    if kind == "setMode" and update.get("mode") == "acceptEdits":
        return [("Yes, allow all edits during this session (shift+tab)", update)]
    if kind == "addDirectories":
        dirs = ", ".join(update.get("directories") or [])
        return [(f"Yes, and allow access to {dirs} for this session", update)]
    if kind == "addRules":
        rules = ", ".join(_rule_label(r) for r in update.get("rules") or [])
        if update.get("destination", "session") == "session":
            return [(f"Yes, and don't ask again for {rules} this session", update)]
        out = []
        for destination in ("localSettings", "userSettings"):
            label = f"Yes, always allow {rules} in {DESTINATION_LABELS[destination]}"
            out.append((label, {**update, "destination": destination}))
        return out
    return []


def _rule_label(rule: Any) -> str:
    if not isinstance(rule, dict):
        return str(rule)
    content = rule.get("ruleContent")
    return f"{rule.get('toolName')}({content})" if content is not None else str(rule.get("toolName"))


def _describe(question: PermissionQuestion, cwd: str) -> list[Any]:
    name, input = question.tool_name, question.input
    title = Text()
    kinds = {"Bash": "Bash command", "Edit": "Edit file", "Write": "Write file", "MultiEdit": "Edit file"}
    title.append(kinds.get(name, f"Use {name}"), style="bold")
    parts: list[Any] = [title]
    if name in EDIT_TOOLS:
        parts.append(Text(f"  {brief(name, input, cwd)}"))
        from yoke.session.views import edit_preview

        hunks = edit_preview(name, input, cwd)
        if hunks:
            parts.append(Group(*diff_body(hunks, limit=16)))
    elif name == "Bash":
        parts.append(Text(f"  {input.get('command', '')}", style="bold"))
        if input.get("description"):
            parts.append(Text(f"  {input['description']}", style="dim"))
    else:
        arg = brief(name, input, cwd)
        if arg:
            parts.append(Text(f"  {name}({arg})"))
    if question.reason and not question.reason.endswith("needs approval."):
        parts.append(Text(f"  {question.reason}", style="yellow"))
    parts.append(Text("Do you want to proceed?"))
    return parts

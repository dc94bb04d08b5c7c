"""Auto mode (`--permission-mode auto`, `permissions.defaultMode: "auto"`): a model decides the calls the
rules leave open, instead of a person.

It plugs into the gate's `classifier` hook, which the gate consults only for calls that no deny, ask or
allow rule, safety check or read-only fast path settled, and only while the mode is `auto`.

- Two stages: a fast one with a tiny output budget that answers ALLOW or BLOCK in a word; what it does not
  clearly allow goes to a reasoning stage that thinks first and ends with `DECISION: ALLOW|BLOCK` and a
  reason. Anything else is no decision.
- The classifier sees what the user asked and which tool calls the agent made, never tool results (a file
  or web page could otherwise talk it into allowing something), plus its rules: built-in ones and the
  `autoMode` setting's sections (auto_mode_rules.py; `yoke auto-mode config` prints them).
- No decision (garbage, an error, a timeout) means ask, never allow; headless, nobody is asked, so denied.
- After `MAX_CONSECUTIVE_DENIALS` blocks in a row (or `MAX_TOTAL_DENIALS` in all) it stops deciding and the
  calls are asked about again, so a confused classifier cannot silently block a whole session.
- While auto mode is on, allow rules that would let the agent run arbitrary code unseen (interpreters,
  shells, `sudo`, `eval`, whole-tool Bash, Agent) are suspended; they come back when the mode is left.
"""

from __future__ import annotations

import json
import os
import re
import weakref
from collections.abc import Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from yoke.messages import Message, text_of
from yoke.permissions.auto_mode_rules import auto_mode_config, classifier_system, effective_rules
from yoke.permissions.gate import Decision
from yoke.providers import base as pb

if TYPE_CHECKING:
    from yoke.permissions.pipeline import PermissionGate
    from yoke.permissions.rules import PermissionRule
    from yoke.tools.base import Tool, ToolContext

MAX_CONSECUTIVE_DENIALS = 3
MAX_TOTAL_DENIALS = 20
FAST_MAX_TOKENS = 16
REASONING_MAX_TOKENS = 2048
DEFAULT_TIMEOUT_S = 60.0
CONTEXT_CHARS = 12_000

RISKY_COMMANDS = frozenset(
    [
        "python",
        "python3",
        "python2",
        "node",
        "nodejs",
        "deno",
        "bun",
        "ruby",
        "perl",
        "php",
        "lua",
        "pwsh",
        "powershell",
        "bash",
        "sh",
        "zsh",
        "fish",
        "dash",
        "ksh",
        "csh",
        "tcsh",
        "sudo",
        "su",
        "doas",
        "eval",
        "exec",
        "env",
        "xargs",
        "npx",
        "uvx",
        "pipx",
        "osascript",
    ]
)

FAST_QUESTION = "Answer with one word: ALLOW if the action is clearly fine, BLOCK otherwise."
REASONING_QUESTION = (
    "Think it through briefly: what the user asked for, what this action does, what could go wrong. Then "
    "end with two lines:\nDECISION: ALLOW or DECISION: BLOCK\nREASON: one sentence"
)


class AutoMode:
    """The classifier for one session: `await auto(tool, input, ctx)` -> Decision or None (no decision)."""

    def __init__(self, provider: pb.Provider, model: str, messages: list[Message], settings: Any,
                 ledger: Any = None, env: Mapping[str, str] | None = None):  # fmt: skip
        self.provider = provider
        self.model = model
        self.messages = messages  # the session's live history
        self.ledger = ledger
        self.system = classifier_system(effective_rules(auto_mode_config(settings)))
        self.consecutive = 0
        self.total = 0
        # the risky allow rules taken out of each gate while it is in auto mode (a sub-agent's own mode is a
        # copy of the session's gate); gone with the gate
        self.suspended: weakref.WeakKeyDictionary[PermissionGate, list[PermissionRule]] = (
            weakref.WeakKeyDictionary()
        )
        self.timeout_s = _env_float(env or os.environ, "YOKE_AUTO_MODE_TIMEOUT", DEFAULT_TIMEOUT_S)

    # ---- the gate's hook --------------------------------------------------------------------------------

    async def __call__(self, tool: Tool, input: dict[str, Any], ctx: ToolContext) -> Decision | None:
        """Consulted only while the gate's mode is auto (`gate_options`: `classifier_mode`)."""
        if self.consecutive >= MAX_CONSECUTIVE_DENIALS or self.total >= MAX_TOTAL_DENIALS:
            return None  # back to asking
        try:
            verdict, reason = await self.classify(tool.name, input)
        except (pb.ProviderError, OSError, ValueError):
            return None
        if verdict == "allow":
            self.consecutive = 0
            return Decision("allow", reason, "classifier")
        if verdict == "block":
            self.consecutive += 1
            self.total += 1
            text = (
                f"Auto mode blocked this {tool.name} call: {reason or 'not clearly what the user asked for'}"
            )
            return Decision("deny", text, "classifier")
        return None

    async def classify(self, tool_name: str, input: dict[str, Any]) -> tuple[str | None, str]:
        """("allow" | "block" | None, reason)."""
        context = self._context(tool_name, input)
        fast = await self._ask(context, FAST_QUESTION, FAST_MAX_TOKENS, ["\n"])
        if _first_word(fast) == "ALLOW":
            return "allow", "allowed by the auto mode classifier"
        reasoning = await self._ask(context, REASONING_QUESTION, REASONING_MAX_TOKENS, [])
        return _decision(reasoning)

    # ---- the requests -----------------------------------------------------------------------------------

    def _context(self, tool_name: str, input: dict[str, Any]) -> str:
        lines: list[str] = []
        for message in self.messages:
            if message["role"] == "user":
                text = _user_text(message)
                if text:
                    lines.append(f"User: {text}")
            else:
                for block in message["content"] if isinstance(message["content"], list) else []:
                    if isinstance(block, dict) and block.get("type") == "tool_use":
                        lines.append(f"Agent called {block.get('name')}: {_compact(block.get('input'))}")
        history = "\n".join(lines)[-CONTEXT_CHARS:]
        action = f"{tool_name}: {_compact(input)}"
        return f"<transcript>\n{history}\n</transcript>\n\n<action>\n{action}\n</action>"

    async def _ask(self, context: str, question: str, max_tokens: int, stops: list[str]) -> str:
        request = pb.ModelRequest(
            model=self.model,
            messages=[{"role": "user", "content": f"{context}\n\n{question}"}],
            system=[{"type": "text", "text": self.system}],
            max_tokens=max_tokens,
            stop_sequences=stops,
            effort="low",  # a quick judgement: models that think by default think least at low effort
        )
        async with aclosing(self.provider.stream(request)) as stream:
            async for event in stream:
                if isinstance(event, pb.MessageStop):
                    if self.ledger is not None:
                        self.ledger.add(event.model or self.model, event.usage, "auto_mode_classifier")
                    return text_of(event.message)
        raise pb.ProviderError("connection", "the classifier request ended without an answer")

    # ---- risky allow rules --------------------------------------------------------------------------------

    def sync_rules(self, gate: PermissionGate) -> None:
        """The gate's mode changed: suspend its risky allow rules while in auto mode; put them back when it
        is left."""
        suspended = self.suspended.get(gate)
        if gate.mode == "auto" and not suspended:
            self.suspended[gate] = [r for r in gate.allow if is_risky_rule(r)]
            gate.allow = [r for r in gate.allow if not is_risky_rule(r)]
        elif gate.mode != "auto" and suspended:
            gate.allow = [*gate.allow, *suspended]
            del self.suspended[gate]

    def gate_options(self) -> dict[str, Any]:
        """What the gate is built with to consult this classifier (`permissions.build_gate`): it decides
        only in auto mode, within its deadline, and hears of every mode change."""
        return {
            "classifier": self,
            "classifier_deadline_s": self.timeout_s,
            "classifier_mode": "auto",
            "mode_listeners": [self.sync_rules],
        }


def is_risky_rule(rule: PermissionRule) -> bool:
    """An allow rule that would let code run unseen: whole Bash or Agent, or a prefix naming an interpreter,
    a shell, sudo or eval (`Bash(python:*)`, `Bash(sudo *)`)."""
    tool = rule.tool
    if tool in ("Agent", "Task"):
        return True
    if tool not in ("Bash", "PowerShell"):
        return False
    spec = rule.specifier
    if spec is None or spec.strip() in ("*", ""):
        return True
    first = re.split(r"[\s:*]", spec.strip(), maxsplit=1)[0]
    return os.path.basename(first) in RISKY_COMMANDS or bool(re.fullmatch(r"python\d(\.\d+)?", first))


# ---- parsing ------------------------------------------------------------------------------------------


def _first_word(text: str) -> str:
    match = re.match(r"\W*([A-Za-z]+)", text or "")
    return match.group(1).upper() if match else ""


def _decision(text: str) -> tuple[str | None, str]:
    decisions = re.findall(r"DECISION:\s*\**\s*(ALLOW|BLOCK)\b", text or "", flags=re.IGNORECASE)
    if not decisions:
        return None, ""
    reasons = re.findall(r"REASON:\s*(.+)", text)
    reason = reasons[-1].strip() if reasons else ""
    return ("allow" if decisions[-1].upper() == "ALLOW" else "block"), reason[:300]


def _user_text(message: Message) -> str:
    content = message["content"]
    if isinstance(content, str):
        text = content
    else:
        text = "\n".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )  # tool results are left out on purpose
    text = text.strip()
    return "" if text.startswith("<system-reminder>") else text[:2000]


def _compact(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 2000 else text[:2000] + "…"


def _env_float(env: Mapping[str, str], name: str, default: float) -> float:
    try:
        value = float(env.get(name) or default)
    except ValueError:
        return default
    return value if value > 0 else default

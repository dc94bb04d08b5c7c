"""A hook's answer (exit code, stdout JSON, model verdict) turned into a `LifecycleOutcome`.

Exit 2 is a blocking error on the events that can block, with its reason (stderr unless the JSON gave
one) going where Claude Code sends it: to the model for tool events and Stop, to the user for
UserPromptSubmit. Other non-zero exits are non-blocking errors the user sees as one line; a JSON object on
stdout decides instead of the exit code. Long strings are capped at `MAX_TEXT` characters (the full text
is saved to a file when the listener has somewhere to put it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from yoke.hooks.runners import HookRun
from yoke.loop.lifecycle import LifecycleOutcome

MAX_TEXT = 10_000
# Events where exit 2 (or `decision: "block"`) blocks; the value says who reads the reason.
BLOCKING_EVENTS: dict[str, str] = {
    "PreToolUse": "model",  # the call is denied; the model reads why
    "UserPromptSubmit": "user",  # the prompt is rejected and erased; only the user is told
    "UserPromptExpansion": "user",
    "PostToolUse": "model",  # the tool already ran; the reason sits next to its result
    "PostToolUseFailure": "model",
    "PostToolBatch": "model",  # the loop stops before the next model call
    "Stop": "model",  # the model keeps going with the reason as its next instruction
    "SubagentStop": "model",
    "TaskCreated": "model",
    "TaskCompleted": "model",
    "TeammateIdle": "model",
    "ConfigChange": "user",
    "PreCompact": "user",
    "PreModelSwitch": "user",  # the switch is cancelled; the user is told why
    "WorktreeCreate": "user",
    "Elicitation": "user",
    "ElicitationResult": "user",
}
# Events whose plain (non-JSON) stdout on exit 0 becomes context for the model.
STDOUT_CONTEXT_EVENTS = frozenset({"UserPromptSubmit", "UserPromptExpansion", "SessionStart"})
_VERDICTS = ("allow", "deny", "ask", "defer")
_HANDLED_SPECIFIC = {
    "hookEventName",
    "permissionDecision",
    "permissionDecisionReason",
    "updatedInput",
    "additionalContext",
    "updatedToolOutput",
    "updatedMCPToolOutput",
}

Capper = Callable[[str, str], str]  # (text, what) -> text no longer than MAX_TEXT


def cap_text(text: str, what: str = "hook output") -> str:
    if len(text) <= MAX_TEXT:
        return text
    return text[:MAX_TEXT] + f"\n[{what} cut: {len(text) - MAX_TEXT} more characters]"


def translate(run: HookRun, cap: Capper = cap_text) -> LifecycleOutcome:
    """The effect of one finished (or backgrounded) hook run on the announced moment."""
    event = run.event
    if run.backgrounded:
        return LifecycleOutcome()
    if run.outcome != "success":
        return _failure(run)
    if run.handler.type in ("prompt", "agent"):
        return _verdict(run, cap)
    output = run.output
    code = run.exit_code or 0
    if code == 2:
        return _blocking(run, output, cap)
    if output is not None:
        return from_json(output, event, cap)
    stdout = run.stdout.strip()
    if event == "WorktreeCreate" and stdout:
        return LifecycleOutcome(extras={"worktreePath": stdout.splitlines()[-1]})
    if event in STDOUT_CONTEXT_EVENTS and stdout:
        return LifecycleOutcome(additional_context=cap(stdout, f"{run.hook_name} hook output"))
    return LifecycleOutcome()


def _failure(run: HookRun) -> LifecycleOutcome:
    """A hook that failed to give an answer: reported to the user, the action proceeds, except where Claude
    Code fails closed (WorktreeCreate on any failure; an SDK callback timing out on PreToolUse or
    UserPromptSubmit, or failing in any way with `onFailure: "block"`)."""
    message = f"{run.hook_name} hook error: {run.error}"
    if run.event == "WorktreeCreate":
        return LifecycleOutcome(block=True, reason=message, system_message=message)
    if run.handler.type == "callback" and (run.handler.fail_closed or "timed out" in run.error):
        if run.event == "PreToolUse":
            return LifecycleOutcome(decision="deny", reason=message, system_message=message)
        if run.event == "UserPromptSubmit" or (run.handler.fail_closed and run.event in BLOCKING_EVENTS):
            return LifecycleOutcome(block=True, reason=message, system_message=message)
    return LifecycleOutcome(system_message=message)


def _blocking(run: HookRun, output: dict[str, Any] | None, cap: Capper) -> LifecycleOutcome:
    """Exit 2: block where the event can be blocked (JSON cannot override it); elsewhere stderr is shown."""
    event = run.event
    base = from_json(output, event, cap) if output is not None else LifecycleOutcome()
    json_reason = base.reason if (base.block or base.decision in ("deny", "ask", "defer")) else ""
    text = cap(json_reason or run.stderr.strip() or run.stdout.strip(), f"{run.hook_name} hook message")
    text = text or f"{run.hook_name} hook exited with status 2"
    if event == "PreToolUse":
        base.decision, base.reason = "deny", text
    elif event == "PermissionRequest":
        return base  # exit 2 is not honoured here; the JSON (if any) still counts
    elif event in ("Elicitation", "ElicitationResult"):
        base.block, base.reason = True, text
        base.extras["action"] = "decline"
    elif event in BLOCKING_EVENTS:
        base.block, base.reason = True, text
    else:
        base.system_message = "\n".join(filter(None, [base.system_message, f"{run.hook_name} hook: {text}"]))
    return base


def from_json(output: dict[str, Any], event: str, cap: Capper = cap_text) -> LifecycleOutcome:
    """Claude Code's JSON hook output (universal fields, `decision`, `hookSpecificOutput`) for `event`."""
    out = LifecycleOutcome()
    if output.get("continue") is False:
        out.stop = True
        out.stop_reason = str(output.get("stopReason") or "")
    out.suppress_output = output.get("suppressOutput") is True
    if isinstance(output.get("systemMessage"), str):
        out.system_message = cap(output["systemMessage"], "hook systemMessage")
    decision = output.get("decision")
    reason = output.get("reason")
    reason = cap(reason, "hook reason") if isinstance(reason, str) else ""
    if event == "PreToolUse" and decision in ("approve", "block"):  # the deprecated spelling
        out.decision = "allow" if decision == "approve" else "deny"
        out.reason = reason
    elif decision == "block":
        out.block, out.reason = True, reason
    elif reason and out.stop:
        out.reason = reason
    specific = output.get("hookSpecificOutput")
    if isinstance(specific, dict) and specific.get("hookEventName", event) == event:
        _specific(specific, event, out, cap)
    return out


def _specific(specific: dict[str, Any], event: str, out: LifecycleOutcome, cap: Capper) -> None:
    verdict = specific.get("permissionDecision")
    if verdict in _VERDICTS:
        out.decision = verdict
        why = specific.get("permissionDecisionReason")
        out.reason = cap(why, "hook reason") if isinstance(why, str) else ""
    if isinstance(specific.get("updatedInput"), dict):
        out.updated_input = specific["updatedInput"]
    context = specific.get("additionalContext")
    if isinstance(context, str) and context:
        out.additional_context = cap(context, "hook additionalContext")
    for key in ("updatedToolOutput", "updatedMCPToolOutput"):
        if key in specific and specific[key] is not None:
            out.updated_output = specific[key]
    if event == "PermissionRequest" and isinstance(specific.get("decision"), dict):
        _permission_request(specific["decision"], out)
    for key, value in specific.items():
        if key not in _HANDLED_SPECIFIC and not (event == "PermissionRequest" and key == "decision"):
            out.extras[key] = value


def _permission_request(decision: dict[str, Any], out: LifecycleOutcome) -> None:
    behavior = decision.get("behavior")
    if behavior in ("allow", "deny"):
        out.decision = behavior
    if behavior == "allow" and isinstance(decision.get("updatedInput"), dict):
        out.updated_input = decision["updatedInput"]
    if behavior == "allow" and isinstance(decision.get("updatedPermissions"), list):
        out.extras["updatedPermissions"] = decision["updatedPermissions"]
    if behavior == "deny":
        out.reason = str(decision.get("message") or "")
        if decision.get("interrupt") is True:
            out.extras["interrupt"] = True
            out.stop, out.stop_reason = True, out.reason


def _verdict(run: HookRun, cap: Capper) -> LifecycleOutcome:
    """A prompt/agent hook's {ok, reason, impossible?}: ok false blocks the moment as that event allows."""
    verdict = run.output or {}
    if verdict.get("ok") is True:
        return LifecycleOutcome()
    reason = cap(str(verdict.get("reason") or "the hook's model said no"), "hook reason")
    event = run.event
    if event in ("PreToolUse", "PermissionRequest"):
        out = LifecycleOutcome(decision="deny", reason=reason)
        if event == "PreToolUse" and not run.handler.continue_on_block:
            out.stop, out.stop_reason = True, reason
        return out
    if event in ("Stop", "SubagentStop") and verdict.get("impossible") is True:
        return LifecycleOutcome(system_message=f"{run.hook_name} hook: {reason}")
    if event in BLOCKING_EVENTS:
        return LifecycleOutcome(block=True, reason=reason)
    return LifecycleOutcome(system_message=f"{run.hook_name} hook: {reason}")

"""The shapes of Claude Code's stream-json messages that do not depend on what came before: the result
object, a provider event as the Anthropic SSE event it mirrors, an assistant API message of one block, and
the `system/init` message."""

from __future__ import annotations

from typing import Any

from yoke import __version__
from yoke import events as ev
from yoke.ids import new_uuid
from yoke.providers import base as pb

# The Claude Code release whose headless protocol Yoke speaks (the Agent SDKs check it is at least 2.0.0).
COMPAT_VERSION = "2.1.330"
# Claude Code writes `is_error: false` on a successful tool result only for these tools; the rest leave it out.
KEEPS_IS_ERROR_FALSE = frozenset({"Bash"})

# Notices Claude Code writes no stream-json line for (an MCP server's state is reported by `mcp_status`
# control requests and the init line's `mcp_servers`; a model switch by set_model's answer; an edit's
# diagnostics summary is the terminal's: the model reads them in the tool result).
SILENT_NOTICES = frozenset({"mcp_status", "model_switch", "diagnostics", "attachment"})

# A denial's source (permissions.gate Decision.source, up to its first ":") -> permission_denied's
# decision_reason_type, where 2.1.330 wrote one on the same script (tests/cli/cc_2_1_330/denied_*): a mode, the
# classifier, a PermissionRequest hook; none when nobody could be asked.
DENIAL_KINDS = {"mode": "mode", "classifier": "classifier", "hook:PermissionRequest": "hook"}
# 2.1.330 judges Bash's deny rules per subcommand; the file tools check `Read(...)`/`Edit(...)` path rules
# before any permission step (a tool_use_error, no permission_denied line; a `Write(...)` rule is no path
# rule there), and a PreToolUse hook's denial writes no line either.
RULES_CHECKED_BY_TOOL = ("Read(", "Edit(")


def denial_kind(source: str, tool_name: str) -> str | None:
    """permission_denied's `decision_reason_type` for a denial from `source` (Decision.source)."""
    if source.startswith("deny:"):
        return "subcommandResults" if tool_name == "Bash" else None
    return DENIAL_KINDS.get(source) or DENIAL_KINDS.get(source.split(":", 1)[0])


def denial_written(source: str) -> bool:
    """Whether 2.1.330 writes a permission_denied line for a denial from `source`."""
    if source in ("hook", "user:refused"):  # PreToolUse; a question or plan the user refused (tools/base.py)
        return False
    return not source.startswith(tuple(f"deny:{rule}" for rule in RULES_CHECKED_BY_TOOL))


RESULT_SUBTYPES = {
    "completed": "success",
    "max_turns": "error_max_turns",
    "budget_exceeded": "error_max_budget_usd",
    "model_error": "success",  # Claude Code reports API errors as success + is_error, with the message
    "prompt_too_long": "success",
    "structured_output_retries": "error_max_structured_output_retries",
}


def result_object(result: ev.Result, session_id: str) -> dict[str, Any]:
    subtype = RESULT_SUBTYPES.get(result.reason, "error_during_execution")
    usage: dict[str, Any] = {
        **result.usage.as_dict(),
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
    }
    obj: dict[str, Any] = {
        "type": "result",
        "subtype": subtype,
        "is_error": result.is_error,
        "api_error_status": result.api_error_status,
        "duration_ms": result.duration_ms,
        "duration_api_ms": result.duration_api_ms,
        "num_turns": result.num_turns,
    }
    if subtype == "success":
        obj["result"] = result.text
    obj.update(
        {
            "stop_reason": result.stop_reason,
            "session_id": session_id,
            "total_cost_usd": round(result.total_cost_usd, 8),
            "usage": usage,
            "modelUsage": {
                model: {
                    "inputTokens": m.input_tokens,
                    "outputTokens": m.output_tokens,
                    "cacheReadInputTokens": m.cache_read_input_tokens,
                    "cacheCreationInputTokens": m.cache_creation_input_tokens,
                    "webSearchRequests": 0,
                    "costUSD": round(m.cost_usd, 8),
                    "contextWindow": _context_window(model),
                }
                for model, m in result.model_usage.items()
            },
            "permission_denials": result.permission_denials,
            "terminal_reason": result.reason,
            "uuid": new_uuid(),
        }
    )
    if result.structured_output is not None:
        obj["structured_output"] = result.structured_output
    if subtype != "success":
        obj["errors"] = result.errors
    return obj


def _context_window(model: str) -> int:
    from yoke.providers.tokens import context_window

    return context_window(model)


def raw_stream_event(event: pb.ProviderEvent) -> dict[str, Any] | None:
    """A provider event as the Anthropic SSE event it mirrors (for stream_event lines)."""
    if isinstance(event, pb.MessageStart):
        return {
            "type": "message_start",
            "message": {
                "id": event.id,
                "type": "message",
                "role": "assistant",
                "model": event.model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": event.usage.as_dict(),
            },
        }
    if isinstance(event, pb.BlockStart):
        return {"type": "content_block_start", "index": event.index, "content_block": event.block}
    if isinstance(event, pb.TextDelta):
        return block_delta(event.index, {"type": "text_delta", "text": event.text})
    if isinstance(event, pb.ThinkingDelta):
        return block_delta(event.index, {"type": "thinking_delta", "thinking": event.thinking})
    if isinstance(event, pb.SignatureDelta):
        return block_delta(event.index, {"type": "signature_delta", "signature": event.signature})
    if isinstance(event, pb.ToolInputDelta):
        return block_delta(event.index, {"type": "input_json_delta", "partial_json": event.partial_json})
    if isinstance(event, pb.BlockStop):
        return {"type": "content_block_stop", "index": event.index}
    if isinstance(event, pb.MessageDelta):
        return {
            "type": "message_delta",
            "delta": {"stop_reason": event.stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": event.usage.output_tokens},
        }
    if isinstance(event, pb.MessageStop):
        return {"type": "message_stop"}
    return None


def api_message(event: ev.AssistantMessage, block: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": event.id,
        "type": "message",
        "role": "assistant",
        "model": event.model,
        "content": [block],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": event.usage.as_dict(),
    }


def block_delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


def init_message(
    event: ev.SessionStarted, extra: dict[str, Any], *, yoke_version: bool = True
) -> dict[str, Any]:
    """`system/init`: the session's tools, model and mode, with `extra` (the session's `init_fields`:
    slash_commands, skills, output_style, plugins, agents; and apiKeySource) laid over the defaults."""
    obj: dict[str, Any] = {
        "type": "system",
        "subtype": "init",
        "cwd": event.cwd,
        "session_id": event.session_id,
        "tools": event.tools,
        "mcp_servers": list(event.mcp_servers),
        "model": event.model,
        "permissionMode": event.permission_mode,
        "slash_commands": [],
        "apiKeySource": extra.get("apiKeySource", "none"),
        "claude_code_version": COMPAT_VERSION,
        # the CLI says which Yoke wrote the stream; the SDK's message never carried it
        **({"yoke_version": __version__} if yoke_version else {}),
        "output_style": "default",
        "agents": [],
        "skills": [],
        "plugins": [],
        "uuid": new_uuid(),
    }
    obj.update({k: v for k, v in extra.items() if k != "apiKeySource"})
    return obj

"""What a paired device may ask the host (docs/remote.md, "Scopes"): every request a page sends passes here
first. A device's credential names one scope, each allowing what the one before it does and more:

- `watch`: look (list, attach as a watcher, detach); a share link is `watch` bound to one session id;
- `approve`: also answer a permission prompt with allow or deny (no changed input, no rule kept) and
  interrupt;
- `drive` (what pairing gives by default): also prompt, steer (ops, control requests) and answer with a
  changed input or a kept rule, and start one of the user's own presets (host/presets.py);
- `admin`: also start, respawn, stop, kill, remove sessions and shut the host down, and turn permission
  checks off. Only a page served with `--scope admin` pairs admins.

Unknown methods, ops and scopes are refused: a leaked `drive` cookie cannot start a session with
`--settings` hooks or `--dangerously-skip-permissions`, nor end anything."""

from __future__ import annotations

import json
from typing import Any

from yoke import jsonsafe

SCOPES = ("watch", "approve", "drive", "admin")
DEFAULT_SCOPE = "drive"

_WATCH = {"hello", "list", "attach", "detach"}
_APPROVE = _WATCH | {"answer", "interrupt"}
_DRIVE = _APPROVE | {"prompt", "op", "control", "message"}  # message: release a held message (messages.py)
_DRIVE |= {"presets", "start_preset"}  # the user's own presets only (presets.py); `start` stays admin
_ADMIN = _DRIVE | {"start", "respawn", "stop", "kill", "rm", "shutdown"}
METHODS = {"watch": _WATCH, "approve": _APPROVE, "drive": _DRIVE, "admin": _ADMIN}
# modes only an admin may turn on from a page: they switch permission checks (and the sandbox) off
ADMIN_MODES = ("bypassPermissions",)


def scope_of(device: dict[str, Any] | None) -> str:
    """A device row's scope: a share link's is `watch`; a row from before scopes existed is `drive` (never
    more); anything unknown is `watch`."""
    if device is None:
        return "watch"
    if device.get("session"):
        return "watch"
    scope = device.get("scope", DEFAULT_SCOPE)
    return scope if scope in SCOPES else "watch"


def at_least(scope: str, wanted: str) -> bool:
    return SCOPES.index(scope) >= SCOPES.index(wanted)


def screen(text: str, device: dict[str, Any]) -> tuple[str, str]:
    """A page's request as sent on to the host, or the error that refuses it."""
    scope, bound = scope_of(device), device.get("session")
    try:
        message = jsonsafe.loads(text)
        payload = message["payload"]
        method, params = str(payload["method"]), dict(payload.get("params") or {})
    except (ValueError, KeyError, TypeError, AttributeError):
        if at_least(scope, "drive"):
            return text, ""  # the host says what is wrong with it
        return "", _refusal(None, "invalid_request", "not a request")
    ident = message.get("id") if isinstance(message, dict) else None
    why = _why_not(scope, bound, method, params)
    if why:
        return "", _refusal(ident, "forbidden", why)
    if method == "attach" and not at_least(scope, "drive"):
        params["role"] = "watcher"
    message["payload"] = {"method": method, "params": params}
    return json.dumps(message), ""


def held_to(scope: str, method: str, params: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """A `--tcp`/`--ws` token client's request under its token's scope (host/tokens.py): the params as
    passed on (an attach below `drive` made `watcher`), or why it is refused. `admin` is the host's own token's
    power: everything."""
    if scope == "admin":
        return params, ""
    why = _why_not(scope, None, method, params, "token")
    if not why and method == "attach" and not at_least(scope, "drive"):
        params = {**params, "role": "watcher"}
    return params, why


def _why_not(scope: str, bound: str | None, method: str, params: dict[str, Any], who: str = "device") -> str:
    if method == "remote_control" and who == "device":
        return "a page cannot serve more pages"
    if method not in METHODS[scope]:
        return f"this {who}'s scope ({scope}) does not allow {method}"
    if bound is not None and (method not in ("attach", "detach") or params.get("session") != bound):
        return "a share link only watches its session"
    if method == "answer" and not at_least(scope, "drive"):
        response = params.get("response")
        if not isinstance(response, dict) or set(response) - {"behavior", "message", "interrupt"}:
            return "changing a tool's input or keeping a rule needs the drive scope"
    if method == "start" or method == "respawn":
        return ""  # admin only, above
    if method == "control":
        request = params.get("request")
        mode = request.get("mode") if isinstance(request, dict) else None
        if mode in ADMIN_MODES and scope != "admin":
            return f"the {mode} mode needs the admin scope"
    if method == "op":
        op = params.get("op")
        mode = op.get("mode") if isinstance(op, dict) else None
        if mode in ADMIN_MODES and scope != "admin":
            return f"the {mode} mode needs the admin scope"
    return ""


def _refusal(ident: Any, code: str, why: str) -> str:
    return json.dumps({"id": ident, "type": "error", "payload": {"code": code, "message": why}})

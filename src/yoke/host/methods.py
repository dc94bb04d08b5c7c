"""The host's methods (docs/wire.md): what a client's request names (`hello`, `list`, `start`, `attach`,
`prompt`, `answer`, ...), each a handler of (host, client, id, params); `server.Host.serve` dispatches them."""

from __future__ import annotations

import os
import uuid
from typing import Any

from yoke.host import messages, one_entry, records
from yoke.host.hosted import HostedSession, pending_queue
from yoke.host.limits import queued_previews
from yoke.host.presets import METHODS as PRESETS  # the user's own presets, started from the page
from yoke.host.protocol import ProtocolError, encode
from yoke.host.registered import METHODS as REGISTERED  # a terminal's session lent to the host


async def _hello(host, client, ident, params):
    return {"host": os.getpid(), "version": _version()}


async def _list(host, client, ident, params):
    """`agents --json --all` rows, with what a remote page shows beside them (docs/wire.md)."""
    from yoke.host.schedules import next_runs

    rows = []
    for record in records.all_records():
        running = host.sessions.get(record["id"])
        live = running.record if running is not None else record
        row = records.public_row(live)
        row["costUsd"] = float(live.get("costUsd") or 0)
        row["lastActivityAt"] = (running.last_activity if running is not None else None) or live.get(
            "lastActivityAt"
        )
        row["permissionMode"] = live.get("permissionMode")
        row["queued"] = len(running.queued) if running is not None and running.live else 0
        row["nextRuns"] = next_runs(live, running=running is not None and running.live)  # its schedule
        rows.append(row)
    return {"sessions": rows}


async def _start(host, client, ident, params):
    session = await start_session(host, params)
    record = session.record
    return {"id": record["id"], "sessionId": record["sessionId"], "pid": record["pid"]}


async def start_session(host, params) -> HostedSession:
    """`start`'s work (also the host's own, for a durable task: host/schedules.py)."""
    cwd = str(params.get("cwd") or os.getcwd())
    if not os.path.isdir(cwd):
        raise ValueError(f"{cwd} is not a folder")
    resume = params.get("resume")
    session_id, resume_path = one_entry.resume_target(resume) if resume else (str(uuid.uuid4()), None)
    prompt = params.get("prompt")
    short = session_id[:8]
    if resume:
        one_entry.refuse_if_running(host, short, session_id, cwd, _env(params))
    record: dict[str, Any] = {
        "id": short,
        "cwd": cwd,
        "kind": "background",
        "sessionId": session_id,
        "name": str(params.get("name") or (prompt or short))[:80],
        "args": [str(a) for a in params.get("args") or []],
    } | ({"unattended": "deny"} if params.get("unattended") == "deny" else {})  # an ask nobody sees: denied
    if params.get("holdMessages") is True:  # messages from other sessions wait for a person (messages.py)
        record["holdMessages"] = True
    first = ["--resume", resume_path] if resume_path else []  # this start only: later ones go by the id
    session = await _launch(host, record, _env(params), resume=bool(resume), first=first)
    if prompt:
        session.prompt(str(prompt))
    return session


CONTINUE_PROMPT = (
    "The session was stopped in the middle of this task and has been restarted. Carry on with the task "
    "from where it stopped; a tool call that was cut off has no result."
)


async def _respawn(host, client, ident, params):
    """Start a stopped session again on its transcript. A turn it was killed in continues to its answer
    (unless `continue` is false: only restored), then the prompts it had accepted and not begun are sent
    again, in order, and then the respawn's own prompt."""
    query = str(params.get("session") or "")
    record = records.find(query)
    if record is None:
        raise KeyError(f"no session {query!r} (yoke agents --all lists them)")
    if record.get("kind") == "terminal":  # its terminal owns it (host/registered.py): one writer
        raise ValueError(f"session {record['id']} runs in a terminal; resume it there (yoke --resume)")
    running = host.sessions.get(record["id"])
    if running is not None and running.live:
        await running.stop(force=False)
    mid_turn = bool(record.get("midTurn")) or record.get("state") in ("working", "blocked")
    owed = pending_queue(record["id"])
    record.pop("midTurn", None)
    one_entry.refuse_if_running(host, record["id"], record["sessionId"], record["cwd"], _env(params))
    session = await _launch(host, record, _env(params), resume=True)
    mid_turn = mid_turn and params.get("continue", True) is not False
    if mid_turn:
        session.prompt(CONTINUE_PROMPT)
    for prompt_id, content in owed:
        session.prompt(content, prompt_id)
    if params.get("prompt"):
        session.prompt(str(params["prompt"]))
    return {"id": record["id"], "pid": record["pid"], "continued": mid_turn, "resent": len(owed)}


async def _launch(host, record, env, resume: bool, first: list[str] | None = None) -> HostedSession:
    session = HostedSession(record, env)
    session.on_change = lambda s: host.broadcast("session.state", _state(s))
    session.on_request = lambda s, message: messages.handle(host, s, message)
    session.on_message = host.notifier.observe  # blocked, finished, failed: told (notifier.py)
    host.sessions[record["id"]] = session
    await session.start([*(record.get("args") or []), *(first or [])], resume=resume)
    return session


async def _attach(host, client, ident, params):
    session = host._session(params)
    since = params.get("since")
    driving = session.attach(client, ident, drive=params.get("role", "driver") == "driver")
    backlog = session.replay(int(since)) if isinstance(since, int) else []
    paced = getattr(client, "replay", None)  # a socket client is sent its backlog at the pace it reads
    if paced is not None:
        await paced([encode("stream", ident, entry) for entry in backlog])
    for entry in backlog if paced is None else ():
        client.send(encode("stream", ident, entry))
    return {
        "session": session.ident,
        "name": str(session.record.get("name") or ""),  # the page's header names the session
        "seq": session.seq,
        "driver": driving,
        "state": session.record["state"],
        "pending": list(session.pending.values()),
        "queued": queued_previews(session.queued),
        "permissionMode": session.record.get("permissionMode"),
        "heldMessages": messages.held_for(session.ident),
    }


def _state(session: HostedSession) -> dict[str, Any]:
    """A `session.state` notification's params."""
    record = session.record
    return {"session": session.ident, "status": record["status"], "state": record["state"],
            "queued": queued_previews(session.queued), "permissionMode": record.get("permissionMode"),
            "costUsd": float(record.get("costUsd") or 0), "lastActivityAt": session.last_activity or None}  # fmt: skip


def _only_the_driver(session: HostedSession, client: Any) -> None:
    """The driver, anyone when none drives, or a page served for `--remote-control` of this session (the
    terminal UI beside it drives too: both are the one user at that terminal)."""
    if session.ident in getattr(client, "co_drives", ()):
        return
    if session.driver is not None and session.driver is not client:
        raise ProtocolError(
            "not_driver", "another client drives this session; watchers may answer and interrupt"
        )


async def _detach(host, client, ident, params):
    host._session(params).detach(client)
    return {}


# ops that change the session's course are the driver's; any client may interrupt, answer and look
OPEN_OPS = ("interrupt", "reply", "describe")


async def _op(host, client, ident, params):
    """The session port's one method: `{session, op}` with `op` as `yoke.wire.ops` writes it."""
    op = params.get("op")
    if not isinstance(op, dict):
        raise ProtocolError("invalid_params", "op is an object ({op: prompt|interrupt|reply|..., ...})")
    session = host._session(params)
    if op.get("op") not in OPEN_OPS:
        _only_the_driver(session, client)
    return await session.op(op)


# ---- deprecated aliases (docs/wire.md): each builds the op it stands for and goes through `_op` ---------

# a control request's subtype -> the op it is, and how its fields become the op's
CONTROL_OPS: dict[str, tuple[str, dict[str, str]]] = {
    "interrupt": ("interrupt", {}),
    "set_permission_mode": ("set_mode", {"mode": "mode"}),
    "set_model": ("set_model", {"model": "model"}),
    "rewind_files": ("rewind", {"user_message_id": "user_message_id"}),
    "stop_task": ("stop_task", {"task_id": "task_id"}),
    "mcp_reconnect": ("mcp_reconnect", {"server": "serverName"}),
    "mcp_toggle": ("mcp_enable", {"server": "serverName", "enabled": "enabled"}),
    "yoke_describe": ("describe", {"what": "what"}),
}


async def _prompt(host, client, ident, params):
    """`prompt {session, text}`: the op `prompt` (its answer, `{id, position}`, as the op's)."""
    return await _op(
        host, client, ident, {**params, "op": {"op": "prompt", "content": str(params.get("text") or "")}}
    )


async def _control(host, client, ident, params):
    """`control {session, request}`: the op the request's subtype stands for (`CONTROL_OPS`)."""
    request = params.get("request")
    if not isinstance(request, dict) or request.get("subtype") not in CONTROL_OPS:
        raise ProtocolError(
            "invalid_params",
            f"request is a control request object whose subtype is one of {', '.join(CONTROL_OPS)}",
        )
    name, fields = CONTROL_OPS[request["subtype"]]
    op = {"op": name, **{field: request[key] for field, key in fields.items() if key in request}}
    return await _op(host, client, ident, {**params, "op": op})


async def _answer(host, client, ident, params):
    """`answer {session, request_id, response}`: the op `reply`, its answer the response object whole."""
    response = params.get("response")
    if not isinstance(response, dict):
        raise ProtocolError("invalid_params", "response is the can_use_tool answer object")
    op = {"op": "reply", "request_id": str(params.get("request_id")), "answer": response}
    return await _op(host, client, ident, {**params, "op": op})


async def _interrupt(host, client, ident, params):
    """`interrupt {session}`: the op `interrupt`."""
    return await _op(host, client, ident, {**params, "op": {"op": "interrupt"}})


async def _stop(host, client, ident, params, force: bool = False):
    try:
        session = host._session(params)
    except KeyError:  # run by another host (same home, another runtime folder): its process is ended
        stopped = await one_entry.stop_foreign(str(params.get("session") or ""), force)
        if stopped is None:
            raise
        return {"id": stopped}
    from yoke.host.schedules import end_schedules, next_runs

    jobs = next_runs(session.record, running=session.live)  # its schedules end with it (and say so)
    await session.stop(force=force)
    return {"id": session.ident, **end_schedules(session.record, jobs)}


async def _kill(host, client, ident, params):
    return await _stop(host, client, ident, params, force=True)


async def _rm(host, client, ident, params):
    query = str(params.get("session") or "")
    record = records.find(query)
    if record is None:
        raise KeyError(f"no session {query!r}")
    session = host.sessions.pop(record["id"], None)
    if session is not None:
        session.removed = True
        await session.stop(force=False)
    records.remove(record["id"])
    return {"id": record["id"]}


async def _remote_control(host, client, ident, params):
    from yoke.host.webpage import serve_page_for

    return await serve_page_for(host, client, params)


async def _shutdown(host, client, ident, params):
    host.done.set()
    return {}


METHODS = {
    "hello": _hello,
    "list": _list,
    "start": _start,
    "respawn": _respawn,
    "attach": _attach,
    "detach": _detach,
    "op": _op,
    "prompt": _prompt,
    "answer": _answer,
    "interrupt": _interrupt,
    "control": _control,
    "stop": _stop,
    "kill": _kill,
    "rm": _rm,
    "remote_control": _remote_control,
    "message": messages.release,
    "shutdown": _shutdown,
    **PRESETS,
    **REGISTERED,
}


def _env(params: dict[str, Any]) -> dict[str, str]:
    """A session runs with the environment of the command that started it."""
    env = params.get("env")
    if isinstance(env, dict):
        return {str(k): str(v) for k, v in env.items()}
    return dict(os.environ)


def _version() -> str:
    from yoke import __version__

    return __version__

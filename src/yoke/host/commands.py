"""Claude Code's background-session commands: `yoke --bg`, `agents`, `attach`, `logs`, `stop`, `kill`, `rm`,
`respawn`, and `yoke host` itself. Output shapes follow Claude Code 2.1.330 (`backgrounded · <id>`,
`stopped <id>`, `restarted <id>`, `removed <id>`, the `agents --json` rows)."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from yoke.host import records
from yoke.host.client import HostClient, HostError

_DROPPED_WITH_VALUE = (
    "--output-format",
    "--input-format",
    "--resume",
    "-r",
    "--session-id",
    "--permission-prompt-tool",
)
_DROPPED = ("--bg", "-p", "--print", "--verbose")


def _fail(command: str, message: str) -> int:
    print(f"yoke {command}: {message}", file=sys.stderr)
    return 1


def background_start(rest: list[str], prompt: str | None, resume: str | None, name: str = "") -> int:
    """`yoke --bg [flags] "prompt"` (or `--bg --resume ID`): the session runs in the host; prints its id.
    `rest` is the command line without `--bg`, already parsed by the CLI into `prompt` and `resume`."""
    if not prompt and not resume:
        return _fail("--bg", 'give a prompt (yoke --bg "fix the tests") or --resume ID')
    try:
        started = start_hosted(rest, prompt, resume, name)
    except HostError as exc:
        return _fail("--bg", str(exc))
    ident = started["id"]
    print(f"backgrounded · {ident}")
    print(f"  yoke agents          list sessions\n  yoke attach {ident}   open in this terminal")
    print(f"  yoke logs {ident}     show recent output\n  yoke stop {ident}     stop this session")
    return 0


def start_hosted(rest: list[str], prompt: str | None, resume: str | None, name: str = "") -> dict[str, Any]:
    """Start a session in the host (starting the host if none runs): `{id, sessionId, pid}`; HostError."""
    client = HostClient.connect()
    try:
        params = {"prompt": prompt, "resume": resume, "cwd": os.getcwd(), "args": _child_args(rest, prompt),
                  "env": dict(os.environ)} | ({"name": name} if name else {})  # fmt: skip
        return client.request("start", params)
    finally:
        client.close()


def _child_args(argv: list[str], prompt: str | None) -> list[str]:
    """The flags the session itself takes: everything but the prompt and what the host decides."""
    out: list[str] = []
    skip = False
    prompt_dropped = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in _DROPPED or arg.split("=", 1)[0] in _DROPPED_WITH_VALUE and "=" in arg:
            continue
        if arg in _DROPPED_WITH_VALUE:
            skip = True
            continue
        if prompt is not None and arg == prompt and not prompt_dropped:
            prompt_dropped = True
            continue
        out.append(arg)
    return out


def agents(argv: list[str]) -> int:
    """`yoke agents [--json] [--all] [--cwd DIR]`: hosted sessions; `--definitions` lists agent definitions."""
    if "--definitions" in argv:
        from yoke.host.agent_definitions import agents_command

        return agents_command([a for a in argv if a != "--definitions"])
    if argv and argv[0] in ("-h", "--help"):
        print("usage: yoke agents [--json] [--all] [--cwd DIR] | yoke agents --definitions")
        return 0
    show_all = "--all" in argv
    cwd = None
    if "--cwd" in argv:
        index = argv.index("--cwd")
        if index + 1 >= len(argv):
            return _fail("agents", "--cwd needs a folder")
        cwd = os.path.realpath(argv[index + 1])
    unknown = [a for a in argv if a.startswith("-") and a not in ("--json", "--all", "--cwd")]
    if unknown:
        return _fail("agents", f"unknown option {unknown[0]} (see yoke agents --help)")
    recorded = records.all_records()
    rows = [records.public_row(r) for r in recorded]
    rows = [r for r in rows if (show_all or r["state"] != "stopped") and (cwd is None or r["cwd"] == cwd)]
    if rows:
        from yoke.host.schedules import next_run_lines, next_runs
    by_id = {r["id"]: r for r in recorded}
    for row in rows:  # a session's scheduled jobs: their next run times (issue 46)
        runs = next_runs(by_id.get(row["id"]) or row, running=row["state"] != "stopped")
        if runs:
            row["nextRuns"] = runs
    if "--json" in argv:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("No background sessions." + ("" if show_all else " (--all includes stopped ones)"))
    for row in rows:
        profile = f"  [profile {row['profile']}]" if row.get("profile") else ""
        print(f"{row['id']}  {row['state']:<8}  {row['name']}  ({row['cwd']}){profile}")
        for line in next_run_lines(row.get("nextRuns") or []):
            print(f"    {line}")
    return 0


def _record(command: str, argv: list[str]) -> dict[str, Any] | None:
    if not argv or argv[0].startswith("-"):
        print(f"usage: yoke {command} <id|name>", file=sys.stderr)
        return None
    try:
        record = records.find(argv[0])
    except LookupError as exc:
        _fail(command, f"{exc.args[0]}; give the id")
        return None
    if record is None:
        _fail(command, f"no background session {argv[0]!r} (yoke agents --all lists them)")
    return record


def logs(argv: list[str]) -> int:
    record = _record("logs", argv)
    if record is None:
        return 1
    from yoke.host.hosted import read_stream_log
    from yoke.host.render import render_log

    entries = read_stream_log(record["id"])
    previous = None
    for entry in entries[-400:]:
        text = render_log(entry["message"])
        if text and not (text == previous == "(session ended)"):  # the host and the session both record it
            print(text)
            previous = text
    last = entries[-1]["message"] if entries else {}
    if not entries or (last.get("subtype") == "session_ended" and last.get("exit_code")):
        stderr = records.stream_log_path(record["id"]).with_suffix(".stderr")
        try:  # the session could not start or failed: what it said about why
            print("\n".join(stderr.read_text(errors="replace").splitlines()[-20:]))
        except OSError:
            pass
    return 0


def stop(argv: list[str], method: str = "stop") -> int:
    record = _record(method, argv)
    if record is None:
        return 1
    from yoke.host.schedules import end_schedules, say_ended

    done: dict[str, Any] = {}
    if records.public_row(record)["state"] != "stopped":
        try:
            client = HostClient.connect(start=False)
            done = client.request(method, {"session": record["id"]}) or {}
            client.close()
        except HostError as exc:
            # its host cannot be reached (its runtime folder was removed): the session's process is ended
            # directly, so `stopped` is still true
            import asyncio

            from yoke.host.one_entry import stop_foreign

            if asyncio.run(stop_foreign(record["id"], force=method == "kill")) is None:
                return _fail(method, str(exc))
    if "schedulesEnded" not in done:  # stopped already (or by its process): its durable tasks still end
        done = end_schedules(record, [])
    print(f"stopped {record['id']}")
    say_ended(done)
    return 0


def kill(argv: list[str]) -> int:
    return stop(argv, "kill")


def rm(argv: list[str]) -> int:
    record = _record("rm", argv)
    if record is None:
        return 1
    try:
        client = HostClient.connect(start=False)
        client.request("rm", {"session": record["id"]})
        client.close()
    except HostError:
        records.remove(record["id"])  # no host: nothing runs it, the files are all there is
    print(f"removed {record['id']}")
    return 0


def respawn(argv: list[str]) -> int:
    if "--all" in argv:  # every stopped session
        targets = [r for r in records.all_records() if records.public_row(r)["state"] == "stopped"]
        if not targets:
            return 0  # nothing stopped: no host is needed
    else:
        record = _record("respawn", argv)
        if record is None:
            return 1
        targets = [record]
    try:
        client = HostClient.connect()
        go_on = "--no-continue" not in argv  # a turn it was killed in: continued, or only restored
        for record in targets:
            params = {"session": record["id"], "env": dict(os.environ), "continue": go_on}
            done = client.request("respawn", params) or {}
            said = [f"{done['resent']} queued prompt(s) sent again"] if done.get("resent") else []
            if done.get("continued"):
                said.insert(0, "continuing the turn it was stopped in")
            print(f"restarted {record['id']}" + (f" ({', '.join(said)})" if said else ""))
        client.close()
    except HostError as exc:
        return _fail("respawn", str(exc))
    return 0


def attach(argv: list[str]) -> int:
    record = _record("attach", argv)
    if record is None:
        return 1
    if records.public_row(record)["state"] == "stopped":
        return _fail("attach", f"{record['id']} is stopped (yoke respawn {record['id']} restarts it)")
    if "--lines" not in argv and sys.stdin.isatty() and sys.stdout.isatty():
        from yoke.host.attach import run_attach_ui

        return run_attach_ui(record)
    from yoke.host.attach import run_attach  # a pipe, or --lines: the line client

    return run_attach(record)


def host(argv: list[str]) -> int:
    """`yoke host [--tcp HOST:PORT] [--ws HOST:PORT] [--idle-stop SECONDS]`: serve in the foreground."""
    if argv and argv[0] in ("-h", "--help"):
        print(
            "usage: yoke host [--tcp HOST:PORT] [--ws HOST:PORT] [--idle-stop SECONDS]\n       yoke host token [--scope watch|approve|drive|admin] [--ttl SECONDS] [--json]\n\nRun the session host "
            "(started on demand by yoke --bg). TCP and WebSocket clients authenticate with the token in the "
            "runtime folder's host.token (docs/wire.md), or a scoped one from `yoke host token --scope SCOPE`."
        )
        return 0
    if argv and argv[0] == "token":  # scoped tokens for --tcp/--ws clients
        from yoke.host.tokens import token_command

        return token_command(argv[1:])
    idle = float(os.environ.get("YOKE_HOST_IDLE_STOP") or 60)
    try:
        tcp, ws = _address(argv, "--tcp"), _address(argv, "--ws")
        if "--idle-stop" in argv:
            idle = float(argv[argv.index("--idle-stop") + 1])
    except (IndexError, ValueError):
        return _fail("host", "--tcp and --ws take HOST:PORT, --idle-stop a number of seconds")
    import asyncio

    from yoke.host.server import run_host

    return asyncio.run(run_host(idle, tcp, ws))


def _address(argv: list[str], flag: str) -> tuple[str, int] | None:
    if flag not in argv:
        return None
    name, _, port = argv[argv.index(flag) + 1].rpartition(":")
    return (name or "127.0.0.1", int(port))

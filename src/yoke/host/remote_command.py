"""`yoke remote-control [name] [--json] [--host ADDR] [--port N] [--public-url URL]`: serve the remote page (webpage.py) until
interrupted; `yoke remote-control devices` / `revoke ID|--all`: the paired browsers (pairing.py). It keeps one connection to the host open, so the host does not stop while the page is served."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import sys
import time
import urllib.parse
from collections.abc import Callable
from typing import Any


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"yoke remote-control: {message}", file=sys.stderr)
        raise SystemExit(2)


def remote_control(argv: list[str]) -> int:
    if argv and argv[0] in ("devices", "revoke"):
        return _devices(argv[0], argv[1:])
    parser = _Parser(
        prog="yoke remote-control",
        description="Watch and steer sessions from a browser.",
        epilog="Paired browsers: yoke remote-control devices [--json]; yoke remote-control revoke ID... | --all",
    )
    parser.add_argument("name", nargs="?", help="open this session's page (an id or part of its name)")
    parser.add_argument("--json", action="store_true", help='print {"url", "code"} as one JSON line first')
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; any other: HTTPS)"
    )
    parser.add_argument(
        "--public-url", default="", metavar="URL",
        help="the page's address through your own tunnel or reverse proxy: printed, in the QR code, and "
        "accepted by the Host/Origin checks",
    )  # fmt: skip
    parser.add_argument("--share", action="store_true", help="also print a one-time read-only link to NAME")
    parser.add_argument("--port", type=int, default=0, help="port for the page (default: any free one)")
    parser.add_argument(
        "--scope", choices=("watch", "approve", "drive", "admin"), default="drive",
        help="what a browser paired now may do (default drive; admin also starts and ends sessions)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.share and not args.name:
        print("yoke remote-control: --share needs the session to share (yoke remote-control NAME --share)",
              file=sys.stderr)  # fmt: skip
        return 2
    if args.public_url:
        from yoke.host.guard import public_origin

        try:
            public_origin(args.public_url)
        except ValueError as exc:
            print(f"yoke remote-control: {exc}", file=sys.stderr)
            return 2
    from yoke.host.client import HostClient, HostError

    try:
        HostClient.connect().close()  # starts the host if none runs; the page's own connection keeps it
        with contextlib.suppress(KeyboardInterrupt):
            return asyncio.run(serve_page(args.host, args.port, args.name, args.json, args.share, args.scope,
                                          args.public_url))  # fmt: skip
    except HostError as exc:
        print(f"yoke remote-control: {exc}", file=sys.stderr)
        return 1
    return 0


async def serve_page(
    host: str,
    port: int,
    name: str | None,
    as_json: bool,
    share_link: bool = False,
    scope: str = "drive",
    public_url: str = "",
) -> int:
    """Have the host serve the page, print its URL and pairing code (one JSON line for scripts), and keep
    it served until cancelled (or 1 when the host goes)."""
    url = ""

    def announce(code: str) -> None:
        if not as_json:  # --json prints one line; scripts pair once
            print(f"Paired. Next pairing code: {code}\n{qr_text(pairing_url(url, code))}", end="", flush=True)

    page, listening = await open_page(host, port, name if share_link else None, announce, scope=scope,
                                      public_url=public_url)  # fmt: skip
    url = page["url"] + (f"s/{urllib.parse.quote(name)}" if name else "")
    if as_json:
        line = {"url": url, "code": page["code"], "pair_url": pairing_url(url, page["code"])}
        line |= {key: page[key] for key in ("share", "fingerprint", "note") if page.get(key)}
        print(json.dumps(line), flush=True)
    else:
        print(_describe(page, url), end="", flush=True)
    await listening
    print("yoke remote-control: the session host stopped", file=sys.stderr)
    return 1


async def open_page(
    bind: str,
    port: int,
    share: str | None,
    announce: Callable[[str], None],
    drive: str = "",
    scope: str = "drive",
    public_url: str = "",
) -> tuple[dict[str, Any], asyncio.Task]:
    """Ask the running host to serve the page (`remote_control`, docs/wire.md): its `{url, code,
    fingerprint, share}`, and a task that tells `announce` each next code and ends when the host goes. The
    page is served while this connection stays open."""
    from yoke.host.client import HostError
    from yoke.host.paths import socket_path
    from yoke.host.protocol import MAX_MESSAGE, REQUEST_TIMEOUT
    from yoke.jsonsafe import loads

    try:
        reader, writer = await asyncio.open_unix_connection(str(socket_path()), limit=MAX_MESSAGE + 1)
    except OSError as exc:
        raise HostError(f"cannot reach the session host: {exc.strerror or exc}") from None
    params = (
        {"bind": bind, "port": port, "scope": scope}
        | ({"share": share} if share else {})
        | ({"drive": drive} if drive else {})
        | ({"public_url": public_url} if public_url else {})
    )
    request = {"id": "rc", "type": "request", "payload": {"method": "remote_control", "params": params}}
    writer.write((json.dumps(request) + "\n").encode())
    while True:
        try:
            line = await asyncio.wait_for(reader.readline(), REQUEST_TIMEOUT)
        except (TimeoutError, ValueError, OSError) as exc:  # ValueError: a line longer than the limit
            raise HostError(f"the session host did not answer: {exc or 'timed out'}") from None
        if not line:
            raise HostError("the session host closed the connection")
        try:
            reply = loads(line)
        except ValueError:
            raise HostError("the session host sent a line that is not JSON") from None
        if isinstance(reply, dict) and reply.get("id") == "rc":
            break
    if reply.get("type") == "error":
        raise HostError(str((reply.get("payload") or {}).get("message")))

    async def listen() -> None:
        try:
            while line := await reader.readline():
                payload = loads(line).get("payload") or {}
                if payload.get("method") == "remote.code":
                    announce(str(payload["params"]["code"]))
        finally:
            writer.close()

    return reply["payload"], asyncio.get_running_loop().create_task(listen())


def _describe(page: dict[str, Any], url: str) -> str:
    """What the terminal shows: the URL, the code, the share link and certificate if any, the QR code."""
    code = page["code"]
    if page.get("note"):  # 0.0.0.0 with no LAN address: a loopback URL would mislead a phone (lan.py)
        return f"Remote control: {page['note']}\nPairing code: {code} (one use; Ctrl-C stops)\n"
    text = f"Remote control: {url}\nPairing code: {code} (one use; Ctrl-C stops)\n"
    if page.get("share"):
        text += f"Read-only link (one use): {page['share']}\n"
    if page.get("fingerprint"):
        text += f"Self-signed certificate, SHA-256 fingerprint:\n  {page['fingerprint']}\n"
    return text + qr_text(pairing_url(url, code))


def pairing_url(url: str, code: str) -> str:
    """The page's URL with the code in its fragment (a browser never sends a fragment to the server): what
    the QR code holds, so scanning it pairs."""
    return f"{url}#pair={code}"


def qr_text(data: str) -> str:
    """`data` as a QR code drawn in text ("" without the optional qrcode package)."""
    try:
        import qrcode  # type: ignore[import-untyped]  # optional: the terminal QR code
    except ImportError:
        return ""
    code = qrcode.QRCode(border=1)
    code.add_data(data)
    out = io.StringIO()
    code.print_ascii(out=out, invert=True)
    return out.getvalue()


def remote_control_session(argv: list[str], prompt: str | None, resume: str | None, name: str) -> int:
    """`yoke --remote-control [NAME] ["prompt"]` (Claude Code's flag): the session runs in the host, as with
    `--bg`, and this process serves the page for it. In a terminal the terminal UI drives it too (leaving
    the UI stops the page; the session keeps running); otherwise the URL and code are printed and the page
    is served until interrupted."""
    from yoke.host import records
    from yoke.host.client import HostError
    from yoke.host.commands import start_hosted

    try:
        started = start_hosted(_without_flag(argv, name), prompt, resume, name)
    except HostError as exc:
        print(f"yoke --remote-control: {exc}", file=sys.stderr)
        return 1
    ident = started["id"]
    record = records.read_record(ident) or {
        "id": ident,
        "sessionId": started["sessionId"],
        "cwd": os.getcwd(),
    }
    try:
        if sys.stdin.isatty() and sys.stdout.isatty():
            return asyncio.run(_ui_with_page(record))
        print(f"Session {ident} runs in the host (yoke attach {ident}; yoke stop {ident})", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            return asyncio.run(serve_page("127.0.0.1", 0, ident, as_json=False))
        return 0
    except HostError as exc:
        print(f"yoke --remote-control: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


async def _ui_with_page(record: dict[str, Any]) -> int:
    from yoke.host.attach import attach_ui

    url = ""
    shown: list[Any] = []  # the terminal UI, once it exists

    def announce(code: str) -> None:
        for ui in shown:
            ui.emit(f"Paired. Next pairing code: {code}\n{qr_text(pairing_url(url, code))}")

    page, listening = await open_page("127.0.0.1", 0, None, announce, drive=record["id"])
    url = f"{page['url']}s/{urllib.parse.quote(record['id'])}"

    def banner(ui: Any) -> str:
        shown.append(ui)
        return _describe(page, url).replace("Ctrl-C stops", "leaving this UI stops the page")

    try:
        return await attach_ui(record, banner)
    finally:
        listening.cancel()  # the connection closes: the host stops serving the page


def _without_flag(argv: list[str], name: str) -> list[str]:
    """The command line without `--remote-control [NAME]`, for the session's own flags."""
    out: list[str] = []
    skip = False
    for index, arg in enumerate(argv):
        if skip:
            skip = False
        elif arg == "--remote-control":
            skip = bool(name) and index + 1 < len(argv) and argv[index + 1] == name
        elif not arg.startswith("--remote-control="):
            out.append(arg)
    return out


def _devices(command: str, argv: list[str]) -> int:
    """`yoke remote-control devices [--json]` and `yoke remote-control revoke ID... | --all`."""
    try:
        return _device_command(command, argv)
    except OSError as exc:  # the host's runtime folder cannot be made or read
        print(
            f"yoke remote-control: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), file=sys.stderr
        )
        return 1


def _device_command(command: str, argv: list[str]) -> int:
    from yoke.host.pairing import printable, read_devices, revoke

    if command == "devices":
        if [a for a in argv if a != "--json"]:
            print("usage: yoke remote-control devices [--json]", file=sys.stderr)
            return 2
        rows = [{k: v for k, v in row.items() if k != "hash"} for row in read_devices()]
        if "--json" in argv:
            print(json.dumps(rows, indent=2))
        elif not rows:
            print("No paired devices.")
        for row in rows if "--json" not in argv else []:
            paired = row.get("paired")
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(paired if isinstance(paired, int) else 0))
            only = (
                f"  (read-only: {row['session']})"
                if row.get("session")
                else f"  ({row.get('scope', 'drive')})"
            )
            print(f"{row['id']}  {when}  {printable(str(row.get('label', '')))}{only}")
        return 0
    if not argv or (argv != ["--all"] and any(a.startswith("-") for a in argv)):
        print("usage: yoke remote-control revoke ID... | --all  (yoke remote-control devices lists them)",
              file=sys.stderr)  # fmt: skip
        return 2
    try:
        gone = revoke(None if argv == ["--all"] else argv)
    except KeyError as exc:
        print(f"yoke remote-control: no paired device {exc.args[0]!r} (yoke remote-control devices lists them)",
              file=sys.stderr)  # fmt: skip
        return 1
    for row in gone:
        print(f"revoked {row['id']}  {printable(str(row.get('label', '')))}")
    if not gone:
        print("No paired devices.")
    return 0

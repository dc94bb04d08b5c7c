"""`yoke remote-control [name] [--json] [--host ADDR] [--port N]`: serve the remote page (webpage.py) until
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
from typing import Any


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"yoke remote-control: {message}", file=sys.stderr)
        raise SystemExit(2)


def remote_control(argv: list[str]) -> int:
    if argv and argv[0] in ("devices", "revoke"):
        return _devices(argv[0], argv[1:])
    parser = _Parser(prog="yoke remote-control", description="Watch and steer sessions from a browser.")
    parser.add_argument("name", nargs="?", help="open this session's page (an id or part of its name)")
    parser.add_argument("--json", action="store_true", help='print {"url", "code"} as one JSON line first')
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; any other: HTTPS)"
    )
    parser.add_argument("--share", action="store_true", help="also print a one-time read-only link to NAME")
    parser.add_argument("--port", type=int, default=0, help="port for the page (default: any free one)")
    args = parser.parse_args(argv)
    if args.share and not args.name:
        print("yoke remote-control: --share needs the session to share (yoke remote-control NAME --share)",
              file=sys.stderr)  # fmt: skip
        return 2
    from yoke.host.client import HostClient, HostError

    try:
        keep_alive = HostClient.connect()
    except HostError as exc:
        print(f"yoke remote-control: {exc}", file=sys.stderr)
        return 1
    from yoke.host.tls import CertificateError

    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(_serve(args))
    except CertificateError as exc:
        print(f"yoke remote-control: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(
            f"yoke remote-control: cannot listen on {args.host}:{args.port}: {exc.strerror}", file=sys.stderr
        )
        return 1
    finally:
        keep_alive.close()
    return 0


async def _serve(args: argparse.Namespace) -> None:
    await serve_page(args.host, args.port, args.name, args.json, args.share)


async def serve_page(host: str, port: int, name: str | None, as_json: bool, share_link: bool = False) -> None:
    """Serve the page until cancelled, after printing its URL and pairing code (one JSON line for scripts)."""
    url = ""

    def announce(code: str) -> None:
        if not as_json:  # --json prints one line; scripts pair once
            print(f"Paired. Next pairing code: {code}\n{qr_text(pairing_url(url, code))}", end="", flush=True)

    server = await _open_page(host, port, announce)
    url = server.url + (f"s/{urllib.parse.quote(name)}" if name else "")
    code = server.pairing.code
    share = f"{server.url}share/{server.pairing.share(name)}" if share_link and name else ""
    if as_json:
        line = {"url": url, "code": code, "pair_url": pairing_url(url, code)} | (
            {"share": share} if share else {}
        )
        print(
            json.dumps(line | ({"fingerprint": server.fingerprint} if server.fingerprint else {})), flush=True
        )
    else:
        print(_describe(server, url, share), end="", flush=True)
    await asyncio.Event().wait()


async def _open_page(host: str, port: int, announce: Any) -> Any:
    from yoke.host.webpage import RemoteControl

    server = RemoteControl(host, port, on_new_code=announce)
    await server.start()
    return server


def _describe(server: Any, url: str, share: str = "") -> str:
    """What the terminal shows: the URL, the code, the share link and certificate if any, the QR code."""
    code = server.pairing.code
    text = f"Remote control: {url}\nPairing code: {code} (one use; Ctrl-C stops)\n"
    if share:
        text += f"Read-only link (one use): {share}\n"
    if server.fingerprint:
        text += f"Self-signed certificate, SHA-256 fingerprint:\n  {server.fingerprint}\n"
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
    from yoke.host.client import HostClient, HostError
    from yoke.host.commands import start_hosted

    try:
        started = start_hosted(_without_flag(argv, name), prompt, resume, name)
        keep_alive = HostClient.connect()  # the host stays while the page is served
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
            asyncio.run(serve_page("127.0.0.1", 0, ident, as_json=False))
        return 0
    except KeyboardInterrupt:
        return 130
    finally:
        keep_alive.close()


async def _ui_with_page(record: dict[str, Any]) -> int:
    from yoke.host.attach import attach_ui

    url = ""
    shown: list[Any] = []  # the terminal UI, once it exists

    def announce(code: str) -> None:
        for ui in shown:
            ui.emit(f"Paired. Next pairing code: {code}\n{qr_text(pairing_url(url, code))}")

    server = await _open_page("127.0.0.1", 0, announce)
    url = f"{server.url}s/{urllib.parse.quote(record['id'])}"

    def banner(ui: Any) -> str:
        shown.append(ui)
        return _describe(server, url).replace("Ctrl-C stops", "leaving this UI stops the page")

    try:
        return await attach_ui(record, banner)
    finally:
        server.close()


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
    from yoke.host.pairing import read_devices, revoke

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
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(int(row.get("paired") or 0)))
            only = f"  (read-only: {row['session']})" if row.get("session") else ""
            print(f"{row['id']}  {when}  {row.get('label', '')}{only}")
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
        print(f"revoked {row['id']}  {row.get('label', '')}")
    if not gone:
        print("No paired devices.")
    return 0

"""`yoke remote-control [name] [--json] [--host ADDR] [--port N]`: serve the remote page (webpage.py) until
interrupted. It keeps one connection to the host open, so the host does not stop while the page is served."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import urllib.parse


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"yoke remote-control: {message}", file=sys.stderr)
        raise SystemExit(2)


def remote_control(argv: list[str]) -> int:
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
    from yoke.host.webpage import RemoteControl

    def announce(code: str) -> None:
        if not args.json:  # --json prints one line; scripts pair once
            print(f"Paired. Next pairing code: {code}", flush=True)

    server = RemoteControl(args.host, args.port, on_new_code=announce)
    await server.start()
    url = server.url + (f"s/{urllib.parse.quote(args.name)}" if args.name else "")
    share = f"{server.url}share/{server.pairing.share(args.name)}" if args.share else ""
    if args.json:
        line = {"url": url, "code": server.pairing.code} | ({"share": share} if share else {})
        print(
            json.dumps(line | ({"fingerprint": server.fingerprint} if server.fingerprint else {})), flush=True
        )
    else:
        print(
            f"Remote control: {url}\nPairing code: {server.pairing.code} (one use; Ctrl-C stops)", flush=True
        )
        if share:
            print(f"Read-only link (one use): {share}", flush=True)
        if server.fingerprint:
            print(f"Self-signed certificate, SHA-256 fingerprint:\n  {server.fingerprint}", flush=True)
        _print_qr(url)
    await asyncio.Event().wait()


def _print_qr(url: str) -> None:
    try:
        import qrcode  # type: ignore[import-untyped]  # optional: the terminal QR code
    except ImportError:
        return
    code = qrcode.QRCode(border=1)
    code.add_data(url)
    code.print_ascii(invert=True)

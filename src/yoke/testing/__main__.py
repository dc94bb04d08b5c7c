"""`python -m yoke.testing --script turns.json [--port N]`: run the scripted server as a process.

The first line on stdout is `YOKE_TEST_SERVER http://127.0.0.1:PORT`, so a parent process can read the
address before sending requests. Recorded requests are at GET /_yoke/requests; POST /_yoke/turns appends.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Any


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m yoke.testing",
        description=(
            "Serve scripted model turns over the Anthropic, OpenAI (Chat Completions and Responses) and "
            "Gemini wire formats on 127.0.0.1."
        ),
    )
    parser.add_argument("--script", help="JSON (list, or {turns, default_turn}) or JSONL file of turns")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default: any free port)")
    args = parser.parse_args(argv)

    from yoke.testing.script import ScriptError, load_script
    from yoke.testing.server import ScriptedServer

    turns: list[dict[str, Any]] = []
    default_turn: dict[str, Any] | None = None
    if args.script:
        try:
            turns, default_turn = load_script(args.script)
        except ScriptError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    try:
        server = ScriptedServer(turns, default_turn, port=args.port).start()
    except OSError as exc:
        print(f"error: cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"YOKE_TEST_SERVER {server.url}", flush=True)

    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        done.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A minimal language server for the fault tests: `python fake_server.py MODE [MARKER]`.

crash: exits at once with status 3. hang: reads its input and never answers. marker: says its pid on
stderr and appends it to MARKER (where it may write) when started, answers `initialize` and `shutdown`, publishes one error for every opened or changed
file whose text contains "BROKEN" (none otherwise), and exits (a crash) on a text containing "DIE".
parts: marker, reporting as typescript-language-server does (publish_in_parts). Other requests are
answered with null. probe: marker, after saying on stderr whether it could write in its folder and read ~/.aws/credentials.
"""

import json
import sys
from pathlib import Path


def read():
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line == b"\r\n":
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))


def send(message):
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


LAST = {}  # uri -> whether its last report had an error ("parts" mode)


def publish_in_parts(uri, text):
    """As typescript-language-server reports: no version, nothing when nothing changed, and a breaking change
    in two parts (the first without the error)."""
    import time

    broken = "BROKEN" in text
    if not broken and not LAST.get(uri):
        return
    params = {"uri": uri, "diagnostics": []}
    send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": params})
    if broken:
        time.sleep(0.1)
        start = {"line": 0, "character": 0}
        items = [{"range": {"start": start, "end": start}, "message": "broken here", "severity": 1}]
        send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
              "params": {"uri": uri, "diagnostics": items}})  # fmt: skip
    LAST[uri] = broken


def publish(uri, text, version):
    if "DIE" in text:
        sys.exit(4)
    if sys.argv[1] == "parts":
        return publish_in_parts(uri, text)
    items = []
    if "BROKEN" in text:
        start = {"line": 0, "character": 0}
        items.append(
            {
                "range": {"start": start, "end": start},
                "message": "broken here",
                "severity": 1,
                "code": "E1",
                "source": "fake",
            }
        )
    send(
        {
            "jsonrpc": "2.0",
            "method": "textDocument/publishDiagnostics",
            "params": {"uri": uri, "version": version, "diagnostics": items},
        }
    )


def main():
    mode = sys.argv[1]
    if mode == "crash":
        sys.exit(3)
    import os

    print(f"pid {os.getpid()}", file=sys.stderr, flush=True)  # the session's lsp/<name>.log has it
    if mode == "probe":  # what the sandbox lets it do, said on stderr
        try:
            (Path.cwd() / "written-by-server").write_text("x")
            print("write: allowed", file=sys.stderr, flush=True)
        except OSError:
            print("write: denied", file=sys.stderr, flush=True)
        try:
            (Path.home() / ".aws" / "credentials").read_text()
            print("secret: read", file=sys.stderr, flush=True)
        except OSError:
            print("secret: hidden", file=sys.stderr, flush=True)
    if len(sys.argv) > 2:
        try:
            with Path(sys.argv[2]).open("a") as marker:
                marker.write(f"{os.getpid()}\n")
        except OSError:
            pass  # sandboxed: the log has the pid
    while True:
        message = read()
        if message is None:
            return
        if mode == "hang":
            continue
        method = message.get("method")
        params = message.get("params") or {}
        if method == "initialize":
            capabilities = {"textDocumentSync": 1, "documentSymbolProvider": True}
            send({"jsonrpc": "2.0", "id": message["id"], "result": {"capabilities": capabilities}})
        elif method == "shutdown":
            send({"jsonrpc": "2.0", "id": message["id"], "result": None})
        elif method == "exit":
            return
        elif method == "textDocument/didOpen":
            doc = params["textDocument"]
            publish(doc["uri"], doc["text"], doc["version"])
        elif method == "textDocument/didChange":
            doc = params["textDocument"]
            publish(doc["uri"], params["contentChanges"][-1]["text"], doc["version"])
        elif "id" in message:  # any other request: nothing to say
            send({"jsonrpc": "2.0", "id": message["id"], "result": None})


if __name__ == "__main__":
    main()

"""Issue 29, item 11: a content block type the API does not know (a proxy's, a newer API's) is dropped as it
arrives, not stored and sent back on the next turn; unknown stream events are ignored."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


def _sse(kind: str, data: dict) -> bytes:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()


ANSWER = b"".join(
    [
        _sse("message_start", {"message": {"id": "msg_1", "type": "message", "role": "assistant",
                                           "model": "claude-test", "content": [], "usage": {"input_tokens": 5}}}),
        _sse("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
        _sse("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": "hi"}}),
        _sse("content_block_stop", {"index": 0}),
        _sse("content_block_start", {"index": 1, "content_block": {"type": "future_block", "payload": {}}}),
        _sse("content_block_delta", {"index": 1, "delta": {"type": "future_delta", "more": "x"}}),
        _sse("content_block_stop", {"index": 1}),
        _sse("future_event", {"anything": True}),
        _sse("message_delta", {"delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}}),
        _sse("message_stop", {}),
    ]
)  # fmt: skip


class _Handler(BaseHTTPRequestHandler):
    bodies: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("content-length") or 0)
        type(self).bodies.append(json.loads(self.rfile.read(length)))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(ANSWER)))
        self.end_headers()
        self.wfile.write(ANSWER)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def proxy_server():
    _Handler.bodies = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def test_unknown_block_type_is_not_stored_or_resent(yoke, home, proxy_server):
    env = {"ANTHROPIC_BASE_URL": f"http://127.0.0.1:{proxy_server.server_port}", "ANTHROPIC_API_KEY": "sk"}
    run = yoke("-p", "hello", env=env)
    assert run.code == 0, run.stderr
    assert run.stdout.strip() == "hi"
    resumed = yoke("-p", "more", "-c", env=env)
    assert resumed.code == 0, resumed.stderr
    assert len(_Handler.bodies) == 2
    assert "future" not in json.dumps(_Handler.bodies[-1]["messages"])
    assert [m["role"] for m in _Handler.bodies[-1]["messages"]] == ["user", "assistant", "user"]
    (path,) = (home / ".yoke" / "projects").glob("*/*.jsonl")
    assert "future" not in path.read_text()

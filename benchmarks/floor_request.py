"""The floor for a one-turn run: the same streaming Messages request as `yoke -p hi`, made with the standard
library alone (no event loop, no harness). Run by bench_targets.py as `python floor_request.py BASE_URL`;
prints the answer's text. Whatever Yoke spends above this script's time is the harness's own."""

from __future__ import annotations

import http.client
import json
import sys
from urllib.parse import urlsplit


def main(base_url: str) -> None:
    url = urlsplit(base_url)
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 32000,
        "stream": True,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    }
    conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port or 80)
    headers = {"content-type": "application/json", "x-api-key": "floor", "anthropic-version": "2023-06-01"}
    conn.request("POST", "/v1/messages", json.dumps(body), headers)
    response = conn.getresponse()
    text = []
    for raw in response:
        line = raw.decode().strip()
        if line.startswith("data:"):
            event = json.loads(line[5:])
            if event.get("type") == "content_block_delta":
                text.append(event["delta"].get("text", ""))
    print("".join(text))


if __name__ == "__main__":
    main(sys.argv[1])

"""What the language server tests share: where the real servers are (the dev extra's basedpyright, the
npm-installed typescript-language-server in .venv/node), an environment that finds them, and runs of Yoke
on a script against the scripted server."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
NODE_BIN = ROOT / ".venv" / "node" / "node_modules" / ".bin"
YOKE = f"{sys.executable} -m yoke"
FAKE = Path(__file__).with_name("fake_server.py")


def server_path(base: dict[str, str]) -> str:
    return f"{VENV_BIN}:{NODE_BIN}:{base.get('PATH', '')}"


def need(program: str) -> str:
    found = shutil.which(program, path=f"{VENV_BIN}:{NODE_BIN}")
    if found is None:
        pytest.skip(f"{program} is not installed (make test installs it: the dev extra, .venv/node)")
    return found


@pytest.fixture
def lsp_env(base_env: dict[str, str]) -> dict[str, str]:
    return {**base_env, "PATH": server_path(base_env)}


def tool_results(request: dict) -> dict[str, str]:
    """tool_use_id -> the text of its result, over a request's whole history."""
    out = {}
    for message in request["messages"]:
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                inner = block.get("content")
                if isinstance(inner, list):
                    inner = "\n".join(b.get("text", "") for b in inner if isinstance(b, dict))
                out[block["tool_use_id"]] = str(inner)
    return out


def call(tool_id: str, name: str, **input) -> dict:
    return {"content": [{"type": "tool_use", "id": tool_id, "name": name, "input": input}]}


DONE = {"content": [{"type": "text", "text": "done"}]}
ARGV = ["-p", "go", "--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits"]


def server_log_pids(result: dict, name: str) -> list[int]:
    """The pids a fake server said on stderr in a scenario's run (its home's `lsp/<name>.log` files)."""
    home = Path(result["project"]).parent / "home"
    pids = []
    for log in home.rglob(f"lsp/{name}.log"):
        pids += [int(line.split()[1]) for line in log.read_text().splitlines() if line.startswith("pid ")]
    return pids


def server_log(result: dict, name: str) -> str:
    home = Path(result["project"]).parent / "home"
    return "".join(log.read_text() for log in home.rglob(f"lsp/{name}.log"))

"""The LSP tool is judged like Read (allowed without asking where Read is, refused where a Read deny rule
covers the file), and servers are one per definition and workspace root."""

from __future__ import annotations

import os
import sys

from tests.lsp.conftest import DONE, FAKE, YOKE, call, tool_results

from yoke.lsp.config import ServerSpec
from yoke.lsp.manager import LspManager
from yoke.testing.side_by_side import run_scenario

SERVERS = {
    "fake": {"command": sys.executable, "args": [str(FAKE), "marker"], "extensionToLanguage": {".fk": "x"}}
}


def test_the_lsp_tool_is_allowed_where_read_is_and_refused_where_a_read_deny_rule_is(base_env):
    scenario = {
        "argv": ["-p", "go", "--output-format", "stream-json", "--verbose"],  # default mode: no one to ask
        "settings": {"lspServers": SERVERS, "permissions": {"deny": ["Read(./secret.fk)"]}},
        "files": {"open.fk": "x\n", "secret.fk": "x\n"},
        "turns": [
            call("l1", "LSP", operation="hover", filePath="PROJECT/open.fk", line=1, character=1),
            call("l2", "LSP", operation="hover", filePath="PROJECT/secret.fk", line=1, character=1),
            call("l3", "LSP", operation="hover", filePath="/etc/hostname.fk", line=1, character=1),
            DONE,
        ],
    }
    result = run_scenario(YOKE, scenario, env=base_env, timeout=120)
    assert result["code"] == 0, result["stderr"][-2000:]
    results = tool_results(result["requests"][-1])
    assert "Nothing to show at 1:1" in results["l1"]  # ran: the fake server has no hover
    assert "denied by the rule Read(./secret.fk)" in results["l2"], results["l2"]
    assert "not granted" in results["l3"], results["l3"]  # outside the working directories: it would ask


async def test_one_server_per_definition_and_workspace_root(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    (a / "sub").mkdir(parents=True)
    b.mkdir()
    spec = ServerSpec("fake", sys.executable, [str(FAKE), "marker"], {".fk": "fake"})
    manager = LspManager([spec], [a, b], dict(os.environ))
    try:
        first, _ = await manager.server_for(a / "x.fk", wait=15)
        again, _ = await manager.server_for(a / "sub" / "y.fk", wait=15)
        other, _ = await manager.server_for(b / "z.fk", wait=15)
        assert first is again and first is not None and other is not None and other is not first
        assert (first.root, other.root) == (a.resolve(), b.resolve())
        assert len(manager.servers()) == 2
    finally:
        await manager.close()
    assert all(s.state == "stopped" for s in manager.servers())

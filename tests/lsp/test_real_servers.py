"""Real language servers behind real edits: Yoke runs a script against the scripted server, and the model's
next request carries what the server said (tests/lsp/conftest.py has the helpers)."""

from __future__ import annotations

import json

from tests.lsp.conftest import ARGV, DONE, YOKE, call, need, server_log_pids, tool_results

from yoke.testing.side_by_side import run_scenario

SLOW_OK = {"lsp": {"waitMs": 30000}}  # a loaded machine: the bound is not what these tests check


def _run(scenario: dict, env: dict) -> dict:
    result = run_scenario(YOKE, scenario, env=env, timeout=120)
    assert result["code"] == 0, result["stderr"][-2000:]
    return result


def test_a_broken_type_is_reported_and_its_fix_clears_it(lsp_env):
    need("basedpyright-langserver")
    scenario = {
        "argv": ARGV,
        "settings": SLOW_OK,
        "files": {"app.py": "def f(x: int) -> int:\n    return x\n\ny: int = f(1)\n"},
        "turns": [
            call("r1", "Read", file_path="PROJECT/app.py"),
            call("e1", "Edit", file_path="PROJECT/app.py", old_string="y: int", new_string="y: str"),
            call("e2", "Edit", file_path="PROJECT/app.py", old_string="y: str", new_string="y: int"),
            DONE,
        ],
    }
    requests = _run(scenario, lsp_env)["requests"]
    broke = tool_results(requests[2])["e1"]
    assert "<new-diagnostics>" in broke, broke
    assert "app.py:\n  \u2718 [Line 4:10]" in broke and "[reportAssignmentType] (basedpyright)" in broke
    fixed = tool_results(requests[3])["e2"]
    assert "<new-diagnostics>" not in fixed and "unavailable" not in fixed, fixed


def test_an_error_that_was_there_before_the_edit_is_not_new(lsp_env):
    need("basedpyright-langserver")
    scenario = {
        "argv": ARGV,
        "settings": SLOW_OK,
        "files": {"old.py": 'broken: int = "text"\n\nvalue = 1\n'},
        "turns": [
            call("r1", "Read", file_path="PROJECT/old.py"),  # the edit follows before its first report
            call("e1", "Edit", file_path="PROJECT/old.py", old_string="value = 1", new_string="value = 2"),
            call(
                "e2", "Edit", file_path="PROJECT/old.py", old_string="value = 2", new_string="value: str = 2"
            ),
            DONE,
        ],
    }
    results = tool_results(_run(scenario, lsp_env)["requests"][-1])
    assert "<new-diagnostics>" not in results["e1"] and "unavailable" not in results["e1"], results["e1"]
    assert "old.py:\n  \u2718 [Line 3:" in results["e2"] and "[Line 1:" not in results["e2"], results["e2"]


def test_a_missing_typescript_import_is_reported(lsp_env):
    need("typescript-language-server")
    scenario = {
        "argv": ARGV,
        "settings": SLOW_OK,
        "files": {
            "util.ts": "export function helper(): number {\n  return 1;\n}\n",
            "main.ts": 'import { helper } from "./util";\nexport const x: number = helper();\n',
        },
        "turns": [
            call("r1", "Read", file_path="PROJECT/main.ts"),
            call("e1", "Edit", file_path="PROJECT/main.ts", old_string='"./util"', new_string='"./nowhere"'),
            DONE,
        ],
    }
    requests = _run(scenario, lsp_env)["requests"]
    text = tool_results(requests[2])["e1"]
    assert "<new-diagnostics>" in text, text
    assert "main.ts:\n  \u2718 [Line 1:" in text and "./nowhere" in text and "[2307]" in text


def test_the_lsp_tool_finds_a_definition_and_references_across_two_files(lsp_env):
    need("basedpyright-langserver")
    scenario = {
        "argv": ARGV,
        "files": {
            "lib.py": "def helper(n: int) -> int:\n    return n + 1\n",
            "use.py": "from lib import helper\n\nprint(helper(2))\n",
        },
        "turns": [
            call("r1", "Read", file_path="PROJECT/use.py"),
            call("d1", "LSP", operation="goToDefinition", filePath="PROJECT/use.py", line=3, character=7),
            call("f1", "LSP", operation="findReferences", filePath="PROJECT/lib.py", line=1, character=5),
            call("h1", "LSP", operation="hover", filePath="PROJECT/use.py", line=3, character=7),
            call("s1", "LSP", operation="documentSymbol", filePath="PROJECT/lib.py", line=1, character=1),
            call(
                "w1",
                "LSP",
                operation="workspaceSymbol",
                filePath="PROJECT/lib.py",
                line=1,
                character=1,
                query="helper",
            ),
            DONE,
        ],
    }
    requests = _run(scenario, lsp_env)["requests"]
    results = tool_results(requests[-1])
    assert "lib.py:1:5" in results["d1"], results["d1"]
    references = results["f1"]
    assert "lib.py:\n  Line 1:5" in references, references
    assert "use.py:\n  Line 1:17\n  Line 3:7" in references, references
    assert "def helper(n: int) -> int" in results["h1"], results["h1"]
    assert "helper (Function) - Line 1\n  n (Variable) - Line 1" in results["s1"], results["s1"]
    assert "lib.py:\n  helper (Function) - Line 1" in results["w1"], results["w1"]


def test_a_plugins_server_starts_and_an_untrusted_projects_does_not(lsp_env, tmp_path):
    import sys

    from tests.lsp.conftest import FAKE

    plugin = tmp_path / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    servers = {"fake": {"command": sys.executable, "args": [str(FAKE), "marker"],
                        "extensionToLanguage": {".fk": "fake"}}}  # fmt: skip
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "fk", "lspServers": servers}))
    scenario = {
        "argv": [*ARGV, "--plugin-dir", str(plugin)],
        "settings": SLOW_OK,
        "files": {"a.fk": "fine\n"},
        "turns": [
            call("e1", "Write", file_path="PROJECT/b.fk", content="BROKEN\n"),
            DONE,
        ],
    }
    result = _run(scenario, lsp_env)
    requests = result["requests"]
    assert len(server_log_pids(result, "plugin:fk:fake")) == 1
    text = tool_results(requests[1])["e1"]
    assert "b.fk:\n  \u2718 [Line 1:1] broken here [E1] (fake)" in text, text

    own = {"fake": servers["fake"]}
    untrusted = {**scenario, "argv": ARGV, "untrusted": True, "settings": {"lspServers": own}}
    result = _run(untrusted, lsp_env)
    assert server_log_pids(result, "fake") == []
    assert "new-diagnostics" not in tool_results(result["requests"][1])["e1"]
    trusted = {**untrusted, "untrusted": False}
    result = _run(trusted, lsp_env)
    assert len(server_log_pids(result, "fake")) == 1  # the same settings, trusted: it starts
    assert "broken here" in tool_results(result["requests"][1])["e1"]

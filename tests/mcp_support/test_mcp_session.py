"""MCP servers in real `yoke -p` runs: configuration sources, approval, transports, scripted model turns in
both wire formats, and the failures users meet (slow start, crash, huge results, hundreds of tools)."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

import pytest
from tests.conftest import anthropic_env, openai_env
from tests.mcp_support.helpers import (
    free_port,
    start_remote,
    stdio_entry,
    text,
    tool_results,
    tool_use,
    write_config,
)

from yoke.testing import ScriptedServer

STREAM = ["--output-format", "stream-json", "--verbose"]


def init_line(run) -> dict:
    return next(o for o in run.lines() if o.get("subtype") == "init")


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_stdio_server_from_mcp_config_called_by_the_model(yoke, tmp_path, wire):
    cfg = write_config(tmp_path / "servers.json", {"t": stdio_entry()})
    turns = [tool_use("mcp__t__add", {"a": 2, "b": 40}), text("42")]
    with ScriptedServer(turns) as srv:
        env = anthropic_env(srv) if wire == "anthropic" else openai_env(srv)
        run = yoke("-p", "add", *STREAM, "--mcp-config", str(cfg), "--allowedTools", "mcp__t", env=env)
        first_tools = [
            t.get("name") or t.get("function", {}).get("name") for t in srv.requests[0].body["tools"]
        ]
    assert run.code == 0, run.stderr
    assert init_line(run)["mcp_servers"] == [{"name": "t", "status": "connected"}]
    assert "mcp__t__add" in init_line(run)["tools"]
    assert "mcp__t__echo" in first_tools and "ListMcpResourcesTool" in first_tools
    result = tool_results(run)[0]
    assert result["content"] == "42" and not result.get("is_error")


def test_schema_checked_before_the_call(yoke, tmp_path):
    cfg = write_config(tmp_path / "s.json", {"t": stdio_entry()})
    turns = [tool_use("mcp__t__add", {"a": "two", "b": 1}), text("ok")]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p", "x", *STREAM, "--mcp-config", str(cfg), "--allowedTools", "mcp__t", env=anthropic_env(srv)
        )
    result = tool_results(run)[0]
    assert result["is_error"] and "InputValidationError" in result["content"] and "'two'" in result["content"]


def test_project_server_needs_approval(yoke, project):
    write_config(project / ".mcp.json", {"proj": stdio_entry()})
    with ScriptedServer([text("hi")]) as srv:
        run = yoke("-p", "x", *STREAM, env=anthropic_env(srv))
    assert 'MCP server "proj" from .mcp.json is not approved yet' in run.stderr
    assert "enabledMcpjsonServers" in run.stderr
    assert init_line(run)["mcp_servers"] == [{"name": "proj", "status": "disabled", "error": "not approved"}]
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text(json.dumps({"enabledMcpjsonServers": ["proj"]}))
    with ScriptedServer([text("hi")]) as srv:
        run = yoke("-p", "x", *STREAM, env=anthropic_env(srv))
    # a cloned repository's own settings cannot approve its servers: they wait for trust
    assert init_line(run)["mcp_servers"] == [{"name": "proj", "status": "disabled", "error": "not approved"}]
    assert "yoke trust" in run.stderr
    assert yoke("trust").code == 0
    with ScriptedServer([text("hi")]) as srv:
        run = yoke("-p", "x", *STREAM, env=anthropic_env(srv))
    assert init_line(run)["mcp_servers"] == [{"name": "proj", "status": "connected"}]


def test_strict_config_and_env_expansion(yoke, project, home, tmp_path):
    (home / ".claude").mkdir()
    (home / ".claude" / ".claude.json").write_text(json.dumps({"mcpServers": {"user1": stdio_entry()}}))
    entry = stdio_entry()
    entry["env"] = {"GREETING": "${GREET:-hello}"}
    entry["command"] = "${PYBIN}"
    cfg = write_config(tmp_path / "s.json", {"flagged": entry})
    with ScriptedServer([text("a"), text("b")]) as srv:
        env = {**anthropic_env(srv), "PYBIN": entry["args"] and __import__("sys").executable}
        both = yoke("-p", "x", *STREAM, "--mcp-config", str(cfg), env=env)
        strict = yoke("-p", "x", *STREAM, "--mcp-config", str(cfg), "--strict-mcp-config", env=env)
    assert {s["name"] for s in init_line(both)["mcp_servers"]} == {"user1", "flagged"}
    assert init_line(strict)["mcp_servers"] == [{"name": "flagged", "status": "connected"}]


def test_bad_config_is_one_line(yoke, tmp_path):
    cfg = write_config(tmp_path / "s.json", {"r": {"url": "http://127.0.0.1:1/mcp"}, "ok": stdio_entry()})
    with ScriptedServer([text("a")]) as srv:
        run = yoke("-p", "x", *STREAM, "--mcp-config", str(cfg), env=anthropic_env(srv))
    assert run.code == 0
    assert 'MCP server "r" has a "url" but no "type"' in run.stderr and "Traceback" not in run.stderr


def test_server_that_never_answers_initialize(yoke, tmp_path):
    hang = {"command": sys.executable, "args": ["-c", "import time; time.sleep(60)"]}
    cfg = write_config(tmp_path / "s.json", {"slow": hang})
    started = time.time()
    with ScriptedServer([text("went on")]) as srv:
        run = yoke(
            "-p", "x", *STREAM, "--mcp-config", str(cfg), env={**anthropic_env(srv), "MCP_TIMEOUT": "3000"}
        )
    assert run.code == 0 and run.result()["result"] == "went on"
    state = init_line(run)["mcp_servers"][0]
    assert state["status"] == "failed" and "within 3 s (MCP_TIMEOUT)" in state["error"]
    assert time.time() - started < 30  # the deadline, not the server's 60 s


def test_crash_mid_call_then_restart_and_no_orphans(yoke, tmp_path):
    cfg = write_config(tmp_path / "s.json", {"t": stdio_entry()})
    turns = [
        tool_use("mcp__t__pid", {}, "toolu_a"),
        tool_use("mcp__t__crash", {}, "toolu_b"),
        tool_use("mcp__t__pid", {}, "toolu_c"),
        text("done"),
    ]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p", "x", *STREAM, "--mcp-config", str(cfg), "--allowedTools", "mcp__t", env=anthropic_env(srv)
        )
    first, crashed, after = tool_results(run)
    assert crashed["is_error"] and "t" in crashed["content"]
    assert not after.get("is_error"), after
    assert first["content"] != after["content"]  # a new process answered
    for pid in (int(first["content"]), int(after["content"])):
        assert (
            not os.path.exists(f"/proc/{pid}") or "zombie" in Path(f"/proc/{pid}/status").read_text().lower()
        )


def test_huge_result_is_capped_and_saved(yoke, tmp_path):
    cfg = write_config(tmp_path / "s.json", {"t": stdio_entry()})
    turns = [tool_use("mcp__t__big", {"size": 1_000_000}), text("ok")]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p", "x", *STREAM, "--mcp-config", str(cfg), "--allowedTools", "mcp__t", env=anthropic_env(srv)
        )
    content = tool_results(run)[0]["content"]
    assert len(content) < 120_000 and "output truncated" in content
    path = content.split("saved at ")[1].split(" ")[0]
    assert os.path.getsize(path) >= 1_000_000


def test_image_result(yoke, tmp_path):
    cfg = write_config(tmp_path / "s.json", {"t": stdio_entry()})
    with ScriptedServer([tool_use("mcp__t__picture", {}), text("ok")]) as srv:
        run = yoke(
            "-p", "x", *STREAM, "--mcp-config", str(cfg), "--allowedTools", "mcp__t", env=anthropic_env(srv)
        )
    blocks = tool_results(run)[0]["content"]
    assert [b["type"] for b in blocks] == ["text", "image"]


def test_resources_tools(yoke, tmp_path):
    cfg = write_config(tmp_path / "s.json", {"t": stdio_entry()})
    turns = [
        tool_use("ListMcpResourcesTool", {}, "toolu_l"),
        tool_use("ReadMcpResourceTool", {"server": "t", "uri": "note://hello"}, "toolu_r"),
        text("ok"),
    ]
    with ScriptedServer(turns) as srv:
        run = yoke("-p", "x", *STREAM, "--mcp-config", str(cfg), env=anthropic_env(srv))
    listed, read = tool_results(run)
    assert "note://hello" in listed["content"]
    assert read["content"] == "hello from a resource"


def test_tool_list_changes(yoke, tmp_path):
    cfg = write_config(tmp_path / "s.json", {"t": stdio_entry()})
    turns = [tool_use("mcp__t__grow", {}, "toolu_g"), tool_use("mcp__t__fresh", {}, "toolu_f"), text("ok")]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p", "x", *STREAM, "--mcp-config", str(cfg), "--allowedTools", "mcp__t", env=anthropic_env(srv)
        )
        later = [t["name"] for t in srv.requests[1].body["tools"]]
    assert "mcp__t__fresh" in later
    assert tool_results(run)[1]["content"] == "fresh!"


def test_300_tools_use_tool_search(yoke, tmp_path):
    cfg = write_config(tmp_path / "s.json", {"t": stdio_entry("--tools", "300")})
    turns = [
        tool_use("ToolSearch", {"query": "select:mcp__t__lookup_123"}, "toolu_s"),
        tool_use("mcp__t__lookup_123", {"query": "q"}, "toolu_c"),
        text("ok"),
    ]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p", "x", *STREAM, "--mcp-config", str(cfg), "--allowedTools", "mcp__t", env=anthropic_env(srv)
        )
        first = {t["name"]: t for t in srv.requests[0].body["tools"]}
        second = [t["name"] for t in srv.requests[1].body["tools"]]
    assert "ToolSearch" in first and not any(n.startswith("mcp__t__lookup") for n in first)
    assert "mcp__t__lookup_299" in first["ToolSearch"]["description"]
    assert "mcp__t__lookup_123" in second and "mcp__t__lookup_124" not in second
    assert tool_results(run)[1]["content"] == "tool 123: q"


@pytest.mark.parametrize("transport", ["sse", "http", "ws"])
def test_remote_transports(yoke, tmp_path, transport):
    port = free_port()
    proc = start_remote(transport, port)
    try:
        path = {"sse": "/sse", "http": "/mcp", "ws": ""}[transport]
        scheme = "ws" if transport == "ws" else "http"
        cfg = write_config(
            tmp_path / "s.json", {"r": {"type": transport, "url": f"{scheme}://127.0.0.1:{port}{path}"}}
        )
        with ScriptedServer([tool_use("mcp__r__echo", {"text": "over " + transport}), text("ok")]) as srv:
            run = yoke(
                "-p",
                "x",
                *STREAM,
                "--mcp-config",
                str(cfg),
                "--allowedTools",
                "mcp__r",
                env=anthropic_env(srv),
            )
    finally:
        proc.kill()
    assert init_line(run)["mcp_servers"] == [{"name": "r", "status": "connected"}], run.stderr
    assert tool_results(run)[0]["content"] == f"echo: over {transport}"


@pytest.mark.parametrize(
    "name,command,call",
    [
        ("time", "mcp-server-time", ("get_current_time", {"timezone": "UTC"})),
        ("git", "mcp-server-git", ("git_status", {"repo_path": "."})),
    ],
)
def test_pypi_reference_servers(yoke, project, tmp_path, name, command, call):
    import subprocess
    import sys

    exe = os.path.join(os.path.dirname(sys.executable), command)
    if not os.path.exists(exe):
        pytest.skip(f"{command} is not installed (pip install '.[dev]')")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    cfg = write_config(tmp_path / "s.json", {name: {"command": exe, "args": []}})
    tool, args = call
    if name == "git":
        args = {"repo_path": str(project)}
    with ScriptedServer([tool_use(f"mcp__{name}__{tool}", args), text("ok")]) as srv:
        run = yoke(
            "-p",
            "x",
            *STREAM,
            "--mcp-config",
            str(cfg),
            "--allowedTools",
            f"mcp__{name}",
            env=anthropic_env(srv),
        )
    assert init_line(run)["mcp_servers"] == [{"name": name, "status": "connected"}], run.stderr
    result = tool_results(run)[0]
    assert not result.get("is_error"), result
    assert ("UTC" in result["content"]) if name == "time" else ("branch" in result["content"].lower())


def test_npm_everything_server(yoke, tmp_path):
    if not shutil.which("npx"):
        pytest.skip("Node.js (npx) is not installed")
    cfg = write_config(
        tmp_path / "s.json",
        {
            "everything": {
                "command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-everything", "stdio"],
            }
        },
    )
    with ScriptedServer([tool_use("mcp__everything__echo", {"message": "hi"}), text("ok")]) as srv:
        run = yoke(
            "-p",
            "x",
            *STREAM,
            "--mcp-config",
            str(cfg),
            "--allowedTools",
            "mcp__everything",
            env={**anthropic_env(srv), "MCP_TIMEOUT": "90000"},
            timeout=150,
        )
    state = init_line(run)["mcp_servers"][0]
    if state["status"] != "connected":
        pytest.skip(f"server-everything could not start here: {state.get('error')}")
    assert "hi" in json.dumps(tool_results(run)[0]["content"])


def test_no_mcp_never_imports_the_package(yoke, base_env):
    import subprocess
    import sys

    with ScriptedServer([text("hi")]) as srv:
        env = {**base_env, **anthropic_env(srv)}
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "yoke", "-p", "x"],
            env=env,
            capture_output=True,
            text=True,
        )
    assert proc.returncode == 0, proc.stderr
    modules = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    assert "yoke.mcp.config" in modules  # the configuration was read ...
    assert not any(m == "mcp" or m.startswith(("mcp.", "mcp_types")) for m in modules)  # ... and nothing more
    # nor what a plain answer does not need: validation, the fallback client, the terminal UI's renderer,
    # the memory index's database, dates (the prompt's date comes from time.strftime)
    for unneeded in ("pydantic", "httpx", "rich", "sqlite3", "datetime"):
        assert unneeded not in modules, f"{unneeded} imported by a plain -p run"
    version = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "yoke", "--version"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert not any(" mcp" in line for line in version.stderr.splitlines())


def test_permission_prompt_tool_is_an_mcp_tool(yoke, project, tmp_path):
    cfg = write_config(tmp_path / "s.json", {"t": stdio_entry()})
    turns = [
        tool_use("Bash", {"command": "echo made > made.txt"}, "toolu_b"),
        tool_use("Write", {"file_path": str(project / "w.txt"), "content": "x"}, "toolu_w"),
        text("ok"),
    ]
    with ScriptedServer(turns) as srv:
        run = yoke(
            "-p",
            "x",
            *STREAM,
            "--mcp-config",
            str(cfg),
            "--permission-prompt-tool",
            "mcp__t__permit",
            env=anthropic_env(srv),
        )
    bash, write = tool_results(run)
    assert not bash.get("is_error") and (project / "made.txt").read_text() == "made\n"
    assert write["is_error"] and "no Write today" in write["content"] and not (project / "w.txt").exists()
    with ScriptedServer([text("never")]) as srv:
        missing = yoke(
            "-p",
            "x",
            "--mcp-config",
            str(cfg),
            "--permission-prompt-tool",
            "mcp__t__nope",
            env=anthropic_env(srv),
        )
    assert (
        missing.code == 1 and "mcp__t__nope (passed via --permission-prompt-tool) not found" in missing.stderr
    )


def test_bare_deny_hides_a_servers_tools(yoke, tmp_path):
    cfg = write_config(tmp_path / "s.json", {"t": stdio_entry(), "u": stdio_entry()})
    with ScriptedServer([text("ok")]) as srv:
        run = yoke(
            "-p",
            "x",
            *STREAM,
            "--mcp-config",
            str(cfg),
            "--disallowedTools",
            "mcp__t",
            env=anthropic_env(srv),
        )
        names = [t["name"] for t in srv.requests[0].body["tools"]]
    assert not any(n.startswith("mcp__t__") for n in names)
    assert "mcp__u__echo" in names
    assert run.code == 0


def test_servers_die_with_a_killed_yoke(base_env, project, tmp_path):
    import signal
    import subprocess
    import sys

    pidfile = tmp_path / "server.pid"
    wrapper = {
        "command": "bash",
        "args": [
            "-c",
            f'echo $$ > {pidfile}; exec "$0" "$@"',
            *[stdio_entry()["command"], *stdio_entry()["args"]],
        ],
    }
    cfg = write_config(tmp_path / "s.json", {"t": wrapper})
    with ScriptedServer([{**text("slow"), "delay": 30}]) as srv:
        proc = subprocess.Popen(
            [sys.executable, "-m", "yoke", "-p", "x", "--mcp-config", str(cfg)],
            cwd=project,
            env={**base_env, **anthropic_env(srv)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.time() + 30
        while time.time() < deadline and not srv.requests:
            time.sleep(0.1)
        assert srv.requests, "yoke never reached the model"
        pid = int(pidfile.read_text())
        assert os.path.exists(f"/proc/{pid}")
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.time() + 5
        while time.time() < deadline and os.path.exists(f"/proc/{pid}"):
            time.sleep(0.05)
    assert not os.path.exists(f"/proc/{pid}") or "zombie" in Path(f"/proc/{pid}/status").read_text().lower()


def test_plugin_servers(yoke, tmp_path):
    plugin = tmp_path / "kit"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "kit"}))
    entry = stdio_entry()
    entry["env"] = {"KIT_ROOT": "${CLAUDE_PLUGIN_ROOT}"}
    write_config(plugin / ".mcp.json", {"tools": entry})
    with ScriptedServer(
        [tool_use("mcp__plugin_kit_tools__echo", {"text": "from a plugin"}), text("ok")]
    ) as srv:
        run = yoke(
            "-p",
            "x",
            *STREAM,
            "--plugin-dir",
            str(plugin),
            "--allowedTools",
            "mcp__plugin_kit_tools",
            env=anthropic_env(srv),
        )
    assert init_line(run)["mcp_servers"] == [{"name": "plugin_kit_tools", "status": "connected"}], run.stderr
    assert tool_results(run)[0]["content"] == "echo: from a plugin"

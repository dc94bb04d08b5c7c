"""The ACP client's file system, over a real `yoke acp` subprocess: when the client offers `fs`, Read sees
the editor's unsaved buffer and Write/Edit go to the editor (not the disk); without the offer, nothing
changes. Permission questions, the read-before-write check and sub-agents work the same way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import acp
from acp import schema
from tests.protocols.test_acp import RecordingClient, _env, start, stop

from yoke.testing import ScriptedServer


class EditorClient(RecordingClient):
    """An editor holding buffers: reads answer from a buffer when one is open (else the disk); writes
    land in the buffer. `versions` makes a buffer change between reads (the user typing)."""

    def __init__(self, buffers: dict[str, str], answer: str = "allow_once"):
        super().__init__(answer)
        self.buffers = buffers
        self.versions: dict[str, list[str]] = {}
        self.reads: list[str] = []
        self.writes: dict[str, str] = {}

    async def read_text_file(self, session_id, path, line=None, limit=None, **kwargs):
        self.reads.append(path)
        if self.versions.get(path):
            self.buffers[path] = self.versions[path].pop(0)
        text = self.buffers[path] if path in self.buffers else Path(path).read_text()
        return schema.ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id, path, content, **kwargs):
        self.writes[path] = content
        self.buffers[path] = content
        return schema.WriteTextFileResponse()


FS = schema.ClientCapabilities(fs=schema.FileSystemCapabilities(read_text_file=True, write_text_file=True))


async def run_prompt(client: Any, srv: ScriptedServer, base_env, project: Path, capabilities: Any) -> Any:
    proc, conn = await start(client, _env(base_env, srv), project, capabilities)
    try:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        return await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("go")])
    finally:
        await stop(proc, conn)


def tool_results(srv: ScriptedServer) -> dict[str, str]:
    """Every tool result the model was sent, by tool_use_id, as one string."""
    out: dict[str, str] = {}
    for request in srv.requests:
        for message in (request.body or {}).get("messages", []):
            if isinstance(message["content"], list):
                for block in message["content"]:
                    if block.get("type") == "tool_result":
                        out[block["tool_use_id"]] = json.dumps(block.get("content"))
    return out


def call(tool_id: str, name: str, **input: Any) -> dict[str, Any]:
    return {"content": [{"type": "tool_use", "id": tool_id, "name": name, "input": input}]}


async def test_read_sees_the_buffer_and_edits_go_to_the_editor(project, base_env):
    target = project / "notes.txt"
    target.write_text("saved line\n")
    created = project / "new.txt"
    elsewhere = project.parent / "elsewhere.txt"  # outside the working directories: not the editor's
    elsewhere.write_text("on disk only\n")
    turns = [
        call("o1", "Read", file_path=str(elsewhere)),
        call("r1", "Read", file_path=str(target)),
        call("e1", "Edit", file_path=str(target), old_string="unsaved line", new_string="edited line"),
        call("w1", "Write", file_path=str(created), content="fresh\n"),
        {"content": [{"type": "text", "text": "Done."}]},
    ]
    client = EditorClient({str(target): "unsaved line\n", str(elsewhere): "an editor buffer\n"})
    with ScriptedServer(turns) as srv:
        response = await run_prompt(client, srv, base_env, project, FS)
        results = tool_results(srv)
    assert response.stop_reason == "end_turn"
    assert "on disk only" in results["o1"] and str(elsewhere) not in client.reads
    assert "unsaved line" in results["r1"] and "saved line" not in results["r1"].replace("unsaved", "")
    assert client.writes == {str(target): "edited line\n", str(created): "fresh\n"}
    assert target.read_text() == "saved line\n" and not created.exists()  # the editor, not Yoke, saves
    assert [tc.tool_call_id for tc, _ in client.permission_requests] == ["o1", "e1", "w1"]
    done = [u for u in client.of("tool_call_update") if u.tool_call_id == "e1" and u.status == "completed"]
    diff = next(c for c in done[0].content if getattr(c, "type", "") == "diff")
    assert diff.old_text == "unsaved line\n" and diff.new_text == "edited line\n"


async def test_a_buffer_changed_since_the_read_is_not_overwritten(project, base_env):
    target = project / "notes.txt"
    target.write_text("one\n")
    turns = [
        call("r1", "Read", file_path=str(target)),
        call("w1", "Write", file_path=str(target), content="replaced\n"),
        {"content": [{"type": "text", "text": "Stopped."}]},
    ]
    client = EditorClient({}, answer="allow_once")
    client.versions[str(target)] = ["one\n", "one\nthe user typed this\n"]
    with ScriptedServer(turns) as srv:
        await run_prompt(client, srv, base_env, project, FS)
        results = tool_results(srv)
    assert "modified since read" in results["w1"]
    assert client.writes == {} and target.read_text() == "one\n"


async def test_without_the_offer_files_stay_on_disk(project, base_env):
    target = project / "notes.txt"
    target.write_text("saved line\n")
    turns = [
        call("r1", "Read", file_path=str(target)),
        call("e1", "Edit", file_path=str(target), old_string="saved line", new_string="edited line"),
        {"content": [{"type": "text", "text": "Done."}]},
    ]
    client = EditorClient({str(target): "unsaved line\n"})
    with ScriptedServer(turns) as srv:
        await run_prompt(client, srv, base_env, project, None)
        results = tool_results(srv)
    assert "saved line" in results["r1"] and "unsaved" not in results["r1"]
    assert client.reads == [] and client.writes == {}
    assert target.read_text() == "edited line\n"


async def test_a_sub_agent_reads_through_the_editor_too(project, base_env):
    target = project / "notes.txt"
    target.write_text("saved line\n")

    def route(body):
        first = body["messages"][0]["content"]
        first = first if isinstance(first, str) else " ".join(b.get("text", "") for b in first)
        step = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if "CHILD job" in first:
            if step == 0:
                return call("cr", "Read", file_path=str(target))
            return {"content": "child done"}
        if step == 0:
            return call("ag", "Agent", run_in_background=False, description="look", prompt="CHILD job")
        return {"content": "All delegated."}

    client = EditorClient({str(target): "unsaved line\n"})
    with ScriptedServer(default_turn=route) as srv:
        await run_prompt(client, srv, base_env, project, FS)
        results = tool_results(srv)
    assert "unsaved line" in results["cr"]
    assert client.reads == [str(target)]

"""Prompt input features of the terminal UI: first prompt, pastes, images, `#` notes, Claude Code sessions,
the status line, Esc Esc (real `yoke` in tmux)."""

from __future__ import annotations

import base64
import json
import subprocess
import uuid
from pathlib import Path

from tests.ui.tmux import TMUX, needs_tmux, pick, wait_prompt

from yoke.testing import ScriptedServer

pytestmark = needs_tmux

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def test_first_prompt_from_the_command_line(pane_factory):
    with ScriptedServer([{"content": "Answer to the first prompt."}]) as srv:
        pane = pane_factory(srv, "what is this project?")
        pane.wait_for("Answer to the first prompt.")
        assert "> what is this project?" in pane.screen()


def test_long_paste_is_collapsed_then_sent_whole(pane_factory):
    text = "".join(f"pasted line {i}\n" for i in range(40))  # as copied: the last line ends in a newline
    with ScriptedServer([{"content": "Got it."}]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        subprocess.run([TMUX, "-L", pane.socket, "set-buffer", "-b", "p", text], env=pane.env, check=True)
        subprocess.run(
            [TMUX, "-L", pane.socket, "paste-buffer", "-p", "-b", "p", "-t", "t"], env=pane.env, check=True
        )
        pane.wait_for("[Pasted text #1 +40 lines]")
        assert "pasted line 39" not in pane.screen()
        pane.keys("Enter")
        pane.wait_for("Got it.")
        sent = json.dumps(srv.requests[-1].body)
        assert "pasted line 0" in sent and "pasted line 39" in sent


def test_image_path_is_attached(pane_factory, project):
    (project / "shot.png").write_bytes(PNG)
    with ScriptedServer([{"content": "A tiny image."}]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("what is in shot.png ?")
        pane.keys("Enter")
        pane.wait_for("A tiny image.")
        content = srv.requests[-1].body["messages"][-1]["content"]
        kinds = [block.get("type") for block in content]
        assert "image" in kinds and "text" in kinds


def test_hash_note_is_saved_to_the_chosen_memory(pane_factory, project):
    with ScriptedServer([]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("#always run make lint before committing")
        pane.keys("Enter")
        pick(pane, "CLAUDE.local.md")
        pane.wait_for("Saved to")
        assert (project / "CLAUDE.local.md").read_text() == "- always run make lint before committing\n"


def test_resume_offers_claude_code_sessions_without_writing_them(pane_factory, base_env, project):
    from yoke.session.transcript import sanitize_project

    session_id = str(uuid.uuid4())
    folder = Path(base_env["CLAUDE_CONFIG_DIR"]) / "projects" / sanitize_project(project)
    folder.mkdir(parents=True)
    common = {"sessionId": session_id, "cwd": str(project), "timestamp": "2026-11-01T10:00:00.000Z"}
    records = [
        {**common, "type": "user", "uuid": "u1", "parentUuid": None, "message": {"role": "user", "content": "the secret word is mango"}},
        {
            **common,
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                        "content": [{"type": "text", "text": "Noted."}], "stop_reason": "end_turn",
                        "usage": {"input_tokens": 5, "output_tokens": 2}},
        },
    ]  # fmt: skip
    transcript = folder / f"{session_id}.jsonl"
    transcript.write_text("".join(json.dumps(r) + "\n" for r in records))
    before = transcript.read_bytes()
    with ScriptedServer([{"content": "It was mango."}]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("/resume")
        pane.keys("Enter")
        pick(pane, "(Claude Code)")
        pane.wait_for("Resumed session")
        pane.type("which word?")
        pane.keys("Enter")
        pane.wait_for("It was mango.")
        assert "the secret word is mango" in json.dumps(srv.requests[-1].body)
    assert transcript.read_bytes() == before


def test_status_line_command_output_in_the_footer(pane_factory, project):
    script = project / "status.sh"
    script.write_text(
        "#!/bin/sh\npython3 -c \"import json,sys; d=json.load(sys.stdin); print('SL:' + d['model']['id'][:6] + ':' + d['output_style']['name'])\"\n"
    )
    script.chmod(0o755)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"statusLine": {"type": "command", "command": str(script)}, "outputStyle": "Learning"})
    )
    with ScriptedServer([]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.wait_for("SL:claude:Learning")


def test_escape_twice_opens_rewind(pane_factory):
    with ScriptedServer([{"content": "one"}]) as srv:
        pane = pane_factory(srv)
        wait_prompt(pane)
        pane.type("first message")
        pane.keys("Enter")
        pane.wait_for("one")
        pane.keys("Escape")
        pane.keys("Escape")
        pane.wait_for("Rewind to before which message?")
        pane.keys("Escape")
        wait_prompt(pane)

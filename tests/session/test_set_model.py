"""`Session.set_model` across vendors: the next request goes to the other provider with a history it can
read, the user is told, and switching back works the same way."""

from __future__ import annotations

import os

from tests.conftest import anthropic_env

from yoke import events as ev
from yoke.session import SessionOptions, open_session
from yoke.testing import ScriptedServer


async def test_switch_to_gemini_and_back(project, home):
    turns = [
        {
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "sig-claude"},
                {"type": "text", "text": "claude one"},
            ]
        },
        {"content": [{"type": "text", "text": "gemini two"}]},
        {"content": [{"type": "text", "text": "claude three"}]},
    ]
    with ScriptedServer(turns) as srv:
        env = {
            "HOME": str(home),
            "YOKE_HOME": str(home / ".yoke"),
            "PATH": os.environ["PATH"],
            "GEMINI_API_KEY": "g-test",
            "GEMINI_BASE_URL": srv.gemini_url,
            **anthropic_env(srv),
        }
        session = await open_session(SessionOptions(cwd=project, env=env, persist=False))
        try:
            first = [e async for e in session.query("one")]
            session.set_model("gemini:gemini-2.5-pro")
            second = [e async for e in session.query("two")]
            session.set_model("anthropic:sonnet")
            third = [e async for e in session.query("three")]
        finally:
            await session.close()
    assert [r[-1].text for r in (first, second, third)] == ["claude one", "gemini two", "claude three"]
    formats = [r.format for r in srv.requests]
    assert formats[0] == "anthropic" and formats[1] == "gemini" and formats[2] == "anthropic"
    assert any(isinstance(e, ev.Notice) and "gemini" in e.message.lower() for e in second)
    assert "sig-claude" not in str(srv.requests[1].body)  # a Claude signature means nothing to Gemini
    assert session.model.startswith("claude-")

"""Offline testing for Yoke and its users: a local server that speaks the Anthropic, OpenAI and Gemini APIs.

    from yoke.testing import ScriptedServer
    with ScriptedServer([{"content": "Hello"}]) as srv:
        ...  # point a client at srv.url (Anthropic), srv.openai_url (OpenAI) or srv.gemini_url (Gemini)

`python -m yoke.testing --script turns.json` runs the same server as a process. Names are loaded on first
use so importing this package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yoke.testing.script import Fault, ScriptError, Turn, load_script, parse_turn
    from yoke.testing.server import RecordedRequest, ScriptedServer

__all__ = ["Fault", "RecordedRequest", "ScriptError", "ScriptedServer", "Turn", "load_script", "parse_turn"]

_HOMES = {
    "ScriptedServer": "yoke.testing.server",
    "RecordedRequest": "yoke.testing.server",
    "Fault": "yoke.testing.script",
    "ScriptError": "yoke.testing.script",
    "Turn": "yoke.testing.script",
    "load_script": "yoke.testing.script",
    "parse_turn": "yoke.testing.script",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'yoke.testing' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(home), name)

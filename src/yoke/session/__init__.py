"""Sessions: the engine front-ends drive (`open_session(SessionOptions) -> Session`), and what keeps a
session across runs (transcripts, resume, checkpoints).

    from yoke.session import SessionOptions, open_session

The names are loaded on first use, so importing a submodule (transcripts, say) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yoke.session.build import open_session
    from yoke.session.engine import ChildOptions, Session, SessionError
    from yoke.session.options import SessionOptions

__all__ = ["ChildOptions", "Session", "SessionError", "SessionOptions", "open_session"]
_WHERE = {
    "open_session": "yoke.session.build",
    "Session": "yoke.session.engine",
    "SessionError": "yoke.session.engine",
    "ChildOptions": "yoke.session.engine",
    "SessionOptions": "yoke.session.options",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'yoke.session' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_WHERE[name]), name)

"""The `pane_factory` fixture: the real `yoke` in a private tmux server, against a scripted server."""

from __future__ import annotations

import pytest
from tests.conftest import anthropic_env
from tests.ui.tmux import Pane, trusted_home_env


@pytest.fixture
def pane_factory(base_env, project):
    panes: list[Pane] = []

    def start(srv, *args: str, trusted: bool = True, env: dict | None = None, **kw) -> Pane:
        full = dict(base_env)
        if trusted:
            trusted_home_env(full, project)
        full.update(anthropic_env(srv))
        full.update(env or {})
        pane = Pane(list(args), full, project, **kw)
        panes.append(pane)
        return pane

    yield start
    for pane in panes:
        pane.close()

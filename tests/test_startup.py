"""The `yoke` command pauses garbage collection while it starts, and the first session to open resumes it."""

from __future__ import annotations

import gc
import os

import pytest
from tests.conftest import anthropic_env

import yoke.session.build as build
from yoke.cli.main import main
from yoke.startup import pause_collection, resume_collection
from yoke.testing import ScriptedServer


@pytest.fixture
def collector():
    """Leave the test process's collector as it was found: running, nothing frozen."""
    yield
    resume_collection()
    gc.enable()
    gc.unfreeze()


def test_a_pause_is_resumed_with_start_up_frozen(collector):
    pause_collection()
    assert not gc.isenabled()
    resume_collection()
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0  # start-up's objects sit out later collections
    resume_collection()  # a second resume does nothing
    assert gc.isenabled()


def test_a_host_that_turned_collection_off_keeps_it_off(collector):
    gc.disable()
    pause_collection()
    resume_collection()
    assert not gc.isenabled()


def test_a_run_starts_paused_and_the_session_resumes_collection(
    collector, monkeypatch, base_env, project, capsys
):
    seen: list[bool] = []
    real_open = build._assemble

    async def watched_open(*args, **kwargs):
        seen.append(gc.isenabled())
        return await real_open(*args, **kwargs)

    monkeypatch.setattr(build, "_assemble", watched_open)
    for key in list(os.environ):
        if key not in base_env:
            monkeypatch.delenv(key)

    def answer(body):
        seen.append(gc.isenabled())
        return {"content": [{"type": "text", "text": "hello"}]}

    with ScriptedServer([answer]) as srv:
        for key, value in {**base_env, **anthropic_env(srv)}.items():
            monkeypatch.setenv(key, value)
        monkeypatch.chdir(project)
        assert main(["-p", "hi", "--no-session-persistence"]) == 0
    assert capsys.readouterr().out.strip() == "hello"
    assert seen == [False, True]  # assembled with collection paused; it runs again once the session is open
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0


def test_bad_usage_leaves_collection_running(collector, capsys):
    assert main(["--no-such-flag"]) != 0
    assert gc.isenabled()

"""The Agent SDK's checks (test_agent_sdk.py) with `yoke` forked from the warm template: the SDK starts the
CLI with stream-json flags and no -p, and every check must pass as it does cold (YOKE_WARM_REQUIRE=1: a
run that could not start warm fails instead of passing cold)."""

from __future__ import annotations

import os

import pytest
from tests.cli import test_agent_sdk as cold
from tests.cli.test_warm import Template

# One worker for every test that needs a template to stay fresh: test_warm.py touches a Yoke module to
# make its own template stale, which makes every template alive at that moment stale too (cli/warm_template.py).
pytestmark = pytest.mark.xdist_group("warm")

pytest.importorskip("claude_agent_sdk")

CHECKS = sorted(name for name in dir(cold) if name.startswith("test_"))


@pytest.fixture(scope="module")
def template():
    t = Template(dict(os.environ, YOKE_HOST_DIR="/nonexistent"))
    yield t
    t.stop()


@pytest.mark.parametrize("check", CHECKS)
async def test_the_sdk_check_passes_warm(check, template, project, home, monkeypatch):
    plain = cold.options

    def warm_options(srv, project, home, **kwargs):
        made = plain(srv, project, home, **kwargs)
        made.env = {**made.env, "YOKE_HOST_DIR": str(template.folder), "YOKE_WARM_REQUIRE": "1"}
        return made

    monkeypatch.setattr(cold, "options", warm_options)
    await getattr(cold, check)(project=project, home=home)

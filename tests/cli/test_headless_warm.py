"""The headless suite warm: every scenario of test_headless_vs_cc.py run by a `yoke -p` forked from one
template (cli/warm_template.py) must write what Claude Code wrote, as the cold runs must. Each scenario has a
home of its own, so each fork takes a different configuration from its client's environment; a run that
could not start warm fails (YOKE_WARM_REQUIRE=1) rather than pass cold."""

from __future__ import annotations

import sys

import pytest
from tests.cli.test_headless_vs_cc import SCENARIOS, check_scenario
from tests.cli.test_warm import Template

# One worker for every test that needs a template to stay fresh: test_warm.py touches a Yoke module to
# make its own template stale, which makes every template alive at that moment stale too (cli/warm_template.py).
pytestmark = pytest.mark.xdist_group("warm")


@pytest.fixture(scope="module")
def template():
    import os

    t = Template(dict(os.environ, YOKE_HOST_DIR="/nonexistent"))
    yield t
    t.stop()


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_yoke_forked_warm_writes_what_claude_code_wrote(name, base_env, template):
    warm = f"env YOKE_HOST_DIR={template.folder} YOKE_WARM_REQUIRE=1 {sys.executable} -m yoke"
    check_scenario(name, warm, base_env)

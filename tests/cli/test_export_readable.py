"""`yoke export` as a user reads it: an `@file` attachment as the line the screen shows (not the raw
`<system-reminder>` sent to the model), an ExitPlanMode plan as its text (not JSON), and a turn that failed
with a model error shows the error."""

from __future__ import annotations

import re

from tests.conftest import anthropic_env

from yoke.testing import ScriptedServer

PLAN = {
    "type": "tool_use",
    "id": "toolu_p",
    "name": "ExitPlanMode",
    "input": {"plan": "# Plan\n1. add tests"},
}


def _session(yoke, project) -> str:
    (project / "calc.py").write_text("a = 1\nb = 2\nprint(a + b)\n")
    turns = [
        {"content": [{"type": "text", "text": "it adds"}]},
        {"content": [PLAN]},
        {"content": [{"type": "text", "text": "planned"}]},
        {"content": "x", "fault": {"status": 400, "times": 1, "message": "bad request thing"}},
    ]
    with ScriptedServer(turns) as srv:
        env = {**anthropic_env(srv), "YOKE_MAX_RETRIES": "0"}
        assert yoke("-p", "what does @calc.py do", env=env).code == 0
        assert yoke("-p", "-c", "plan it", "--permission-mode", "plan", env=env).code == 0
        assert yoke("-p", "-c", "now fail", env=env).code == 1
    return re.search(r"[0-9a-f]{8}-[0-9a-f-]{27}", yoke("sessions", "list").stdout).group(0)


def test_the_text_export_reads_as_the_screen_did(yoke, project):
    text = yoke("export", _session(yoke, project)).stdout
    assert "system-reminder" not in text and "was called with this input" not in text
    assert "> what does @calc.py do\n  ⎿  Read calc.py (3 lines)" in text
    assert "● ExitPlanMode\n  ⎿  # Plan\n     1. add tests" in text and '"plan"' not in text
    assert text.index("> now fail") < text.index("⎿  API Error: 400 bad request thing")


def test_the_html_export_carries_no_reminder_and_the_error(yoke, project):
    page = project / "s.html"
    assert yoke("export", "--html", _session(yoke, project), "-o", str(page)).code == 0
    html = page.read_text()
    assert "system-reminder" not in html and "Read calc.py (3 lines)" in html
    assert "API Error: 400 bad request thing" in html

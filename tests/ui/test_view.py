"""The conversation view on its own: events in, scrollback text out (sub-agents nested, results cut short)."""

from __future__ import annotations

from yoke import events as ev
from yoke.ui.paint import Painter
from yoke.ui.view import ConversationView


def make_view(tmp_path):
    out: list[str] = []
    view = ConversationView(Painter(80, {"TERM": "dumb"}), out.append, str(tmp_path))
    return view, out


def test_sub_agent_calls_are_nested_under_their_agent_call(tmp_path):
    view, out = make_view(tmp_path)
    view.on_event(ev.ToolCallCompleted("t1", "Task", {"description": "look around", "prompt": "…"}))
    child = ev.ToolCallCompleted("c1", "Read", {"file_path": str(tmp_path / "a.py")})
    ev.from_agent(child, "a123", "t1")
    view.on_event(child)
    streamed = ev.TextDelta("the child's words are not streamed")
    ev.from_agent(streamed, "a123", "t1")
    view.on_event(streamed)
    text = "".join(out)
    assert "● Task(look around)" in text
    assert "  ⎿  Read(a.py)" in text
    assert "child's words" not in text + view.md.text


def test_long_output_is_cut_and_expandable(tmp_path):
    view, out = make_view(tmp_path)
    view.on_event(ev.ToolCallCompleted("t1", "Bash", {"command": "seq 100"}))
    body = "\n".join(str(i) for i in range(1, 101))
    view.on_event(
        ev.ToolResultEvent("t1", "Bash", {"type": "tool_result", "tool_use_id": "t1", "content": body})
    )
    text = "".join(out)
    assert "● Bash(seq 100)" in text and "+96 lines (ctrl+o to expand)" in text and "\n     100" not in text
    view.toggle_expanded()
    assert "expanded tool output (1)" in out[-1] and "\n     100" in out[-1]
    view.on_event(ev.ToolCallCompleted("t2", "Bash", {"command": "seq 50"}))
    body = "\n".join(str(i) for i in range(1, 51))
    view.on_event(
        ev.ToolResultEvent("t2", "Bash", {"type": "tool_result", "tool_use_id": "t2", "content": body})
    )
    assert "\n     50" in out[-1] and "ctrl+o to expand" not in out[-1]  # shown whole while expanded
    view.toggle_expanded()
    assert "collapsed" in out[-1] and not view.expanded


def test_finished_blocks_go_to_scrollback_once(tmp_path):
    view, out = make_view(tmp_path)
    for chunk in ["Para", "graph one.\n", "\nSecond ", "para"]:
        view.on_event(ev.TextDelta(chunk))
    assert "".join(out).count("Paragraph one.") == 1
    assert view.md.text == "Second para"
    assert "Second para" in view.live_ansi(80, 10)
    view.finish_text()
    assert "".join(out).count("Second para") == 1 and view.md.text == ""


def test_todo_list_updates_in_place_and_is_printed_once_at_the_end(tmp_path):
    from yoke.providers.base import Usage

    view, out = make_view(tmp_path)
    view.on_event(ev.TodosChanged([{"content": "write code", "status": "in_progress"}]))
    assert "write code" in view.live_ansi(80, 20) and not out
    view.on_event(ev.TodosChanged([{"content": "write code", "status": "completed"}]))
    assert "☒ write code" in view.live_ansi(80, 20) and not out
    view.on_event(ev.Result("completed", False, "", 1, 1, 1, 0.0, Usage(), {}, []))
    assert "".join(out).count("write code") == 1
    assert "write code" not in view.live_ansi(80, 20)

"""`yoke batch`: many headless attempts at tasks, each in a fresh workspace, graded, resumable.

Built on the public core only (`open_session`, `SessionOptions`, the events, cassettes). Layout:
`tasks.py` reads task lines; `plan.py` turns them into attempts and knows what is done; `workspace.py` makes
a fresh workspace; `attempt.py` runs one attempt (workspace, setup, session, grader, diff); `worker.py` is a
local worker process; `local.py` and `ray_executor.py` are the executors; `ratelimit.py` the shared token
bucket; `runner.py` drives a run (results, progress, Ctrl+C); `report.py` and `html.py` summarise;
`regrade.py` replays cassettes; `command.py` is the CLI. docs/batch.md describes it.
"""

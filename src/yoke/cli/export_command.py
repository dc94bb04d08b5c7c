"""`yoke export [--html] SESSION [-o FILE]`: a saved session as text (as `/export` writes it) or as one
self-contained HTML page (`/export --html`, docs/remote.md)."""

from __future__ import annotations

import sys
from pathlib import Path

USAGE = "usage: yoke export [--html] SESSION_ID [-o FILE]\n       yoke export --to codex SESSION_ID"


def run(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE + "\n\nWrite a saved session (an id, an id prefix or a transcript path) to FILE, or to stdout "
              "without -o. --html: one self-contained page, secrets redacted.")  # fmt: skip
        return 0 if argv else 2
    if "--to" in argv:
        return _to_agent(argv)
    as_html = "--html" in argv
    rest = [a for a in argv if a != "--html"]
    output = None
    if "-o" in rest or "--output" in rest:
        at = rest.index("-o") if "-o" in rest else rest.index("--output")
        if at + 1 >= len(rest):
            print(f"yoke export: -o needs a file name\n{USAGE}", file=sys.stderr)
            return 2
        output = rest[at + 1]
        del rest[at : at + 2]
    if len(rest) != 1 or rest[0].startswith("-"):
        print(f"yoke export: give one session id\n{USAGE}", file=sys.stderr)
        return 2
    from yoke.session.store import SessionError, find_session, load_conversation

    try:
        path = find_session(rest[0], Path.cwd())
        loaded = load_conversation(path)
    except SessionError as exc:
        print(f"yoke export: {exc}", file=sys.stderr)
        return 1
    if not loaded.messages:
        print(f"yoke export: {path} holds no messages of a Yoke or Claude Code session", file=sys.stderr)
        return 1
    cwd = loaded.cwd or str(Path.cwd())
    if as_html:
        from yoke.ui.export_html import session_html

        title = f"Yoke session {loaded.session_id}"
        text = session_html(loaded.messages, path, title, cwd, errors=loaded.turn_errors)
    else:
        from yoke.ui.export import export_text

        text = export_text([dict(m) for m in loaded.messages], cwd, errors=loaded.turn_errors)
    if output is None:
        sys.stdout.write(text)
        return 0
    from yoke.fsutil import replace_file

    target = Path(output).expanduser()
    try:
        replace_file(target, text.encode("utf-8"), mode=0o600)  # a session's text: for its owner only
    except OSError as exc:
        print(f"yoke export: cannot write {target}: {exc.strerror}", file=sys.stderr)
        return 1
    print(f"Session {loaded.session_id} exported to {target}", file=sys.stderr)
    return 0


def _to_agent(argv: list[str]) -> int:
    """`--to codex SESSION`: the session as a Codex rollout `codex resume <id>` continues (docs/movein.md)."""
    import os

    at = argv.index("--to")
    target = argv[at + 1] if at + 1 < len(argv) else ""
    rest = argv[:at] + argv[at + 2 :]
    if target != "codex":
        print(f"yoke export: --to takes codex (Gemini CLI and opencode: not yet)\n{USAGE}", file=sys.stderr)
        return 2
    if len(rest) != 1 or rest[0].startswith("-"):
        print(f"yoke export: give one session id\n{USAGE}", file=sys.stderr)
        return 2
    from yoke.session.foreign.to_codex import export_to_codex
    from yoke.session.store import SessionError, find_session, load_conversation

    try:
        loaded = load_conversation(find_session(rest[0], Path.cwd()))
    except SessionError as exc:
        print(f"yoke export: {exc}", file=sys.stderr)
        return 1
    if not loaded.messages:
        print(f"yoke export: {loaded.path} holds no messages to export", file=sys.stderr)
        return 1
    try:
        codex_id, path = export_to_codex(
            loaded.messages, loaded.cwd or str(Path.cwd()), os.environ, loaded.session_id
        )
    except OSError as exc:
        print(f"yoke export: cannot write the rollout: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"Session {loaded.session_id} exported to {path}")
    print(f"Continue it in Codex: codex resume {codex_id}")
    return 0

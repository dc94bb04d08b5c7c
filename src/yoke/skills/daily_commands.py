"""`/review`, `/security-review`, `/debug` and `/usage`: built-in commands a Claude Code user types daily.

`/review` (also `/code-review`) and `/security-review` gather the changes themselves (git: the working tree
against HEAD and the branch against its base; `/review N` a pull request through the GitHub CLI) and ask
the model, with read-only tools, to review them: bugs and regressions, or exploitable security problems.
`/debug [what went wrong]` turns on debug lines for the rest of the session (appended to a file in the
session's folder) and asks the model, with read-only tools, to look into the problem from that log, the
transcript and the settings files. `/usage` answers locally: cost, tokens, context and activity.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

MAX_DIFF_CHARS = 120_000
GIT_TIMEOUT_S = 30

REVIEW_PROMPT = """\
Review the code changes below for defects, as a careful senior reviewer would before they are merged.

Look for: logic errors and wrong edge cases, regressions in behaviour callers rely on, error handling that \
loses or hides failures, concurrency and resource leaks, and tests that do not test what they claim. Read \
the surrounding code with the read-only tools where a change cannot be judged from the diff alone.
{focus}
Report each finding with its file and line, why it is wrong, and how to fix it, most severe first. Leave \
out style preferences and things a linter would catch. If you find nothing worth fixing, say so plainly.

{changes}"""

SECURITY_PROMPT = """\
Do a security review of the code changes below: look only for vulnerabilities these changes introduce \
that an attacker could actually exploit.

Consider injection (shell, SQL, template, path traversal), authentication and authorisation mistakes, \
secrets or personal data exposed in code, logs or errors, unsafe deserialisation, server-side request \
forgery, missing validation at trust boundaries, and weakened cryptography. Use the read-only tools to \
follow data from where it enters to where the changed code uses it before you report anything.
{focus}
For each finding give the file and line, the attack (what input, from whom, with what effect), a severity \
(high, medium, low) and the fix. Report only findings you are confident of; leave out theoretical \
weaknesses, denial of service, and issues that predate these changes. If there are none, say so.

{changes}"""

DEBUG_PROMPT = """\
Help me find out what is going wrong in this Yoke session.{issue}

Debug lines are now being written for every step of this session to {log}. Other places to look, with \
the read-only tools:
- this session's transcript (JSON lines, one record per message): {transcript}
- the settings files in force: {settings}
- Yoke {version}; provider {provider}, model {model}; working folder {cwd}
{warnings}
Find the likely cause from what these show, say how sure you are, and what I should change or try next. \
If the log is still empty, tell me what to do to reproduce the problem so it gets recorded."""


class CommandError(Exception):
    """One line for the user; the command ends without calling the model."""


# ---- gathering the changes ------------------------------------------------------------------------------


def _git(cwd: Path, *args: str) -> tuple[int, str]:
    from yoke import spawn
    from yoke.gitsafe import hardened_git_argv, hardened_git_env, program_overrides

    try:
        # a diff would run the repository's textconv, diff and filter drivers: every one is blanked
        done = spawn.run(
            hardened_git_argv(*args, overrides=program_overrides(cwd)),
            confine=None,
            cwd=cwd,
            env=hardened_git_env(),
            text=True,
            timeout=GIT_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 1, str(exc)
    return done.returncode, done.stdout if done.returncode == 0 else ""  # a failed part is left out


def branch_changes(cwd: Path, command: str) -> str:
    """The working tree's and the branch's changes, as text for the prompt; CommandError when there is no
    repository or nothing changed."""
    code, _ = _git(cwd, "rev-parse", "--show-toplevel")
    if code != 0:
        raise CommandError(f"{command} reviews git changes, and {cwd} is not in a git repository")
    parts = []
    _, status = _git(cwd, "status", "--short")
    has_head = _git(cwd, "rev-parse", "--verify", "-q", "HEAD")[0] == 0
    _, working = _git(cwd, "diff", "--no-ext-diff", "--no-color", "HEAD") if has_head else (0, "")
    base = _base(cwd) if has_head else None
    log = branch_diff = ""
    if base:
        _, log = _git(cwd, "log", "--oneline", f"{base}..HEAD")
        _, branch_diff = _git(cwd, "diff", "--no-ext-diff", "--no-color", f"{base}...HEAD")
    if not status.strip() and not working.strip() and not branch_diff.strip():
        against = f" against {base}" if base else ""
        raise CommandError(f"{command}: nothing to review: the working tree is clean and no commits{against}")
    if status.strip():
        parts.append(f"<git-status>\n{status.rstrip()}\n</git-status>")
    if log.strip():
        parts.append(f'<commits base="{base}">\n{log.rstrip()}\n</commits>')
    if branch_diff.strip():
        parts.append(f'<branch-diff base="{base}">\n{_capped(branch_diff)}\n</branch-diff>')
    if working.strip():
        parts.append(f"<uncommitted-diff>\n{_capped(working)}\n</uncommitted-diff>")
    untracked = [line[3:] for line in status.splitlines() if line.startswith("??")]
    if untracked:
        parts.append("New files not yet added to git (read them): " + ", ".join(untracked[:50]))
    return "\n\n".join(parts)


def _base(cwd: Path) -> str | None:
    """The branch the current one would merge into: origin's default branch, else main or master."""
    code, ref = _git(cwd, "rev-parse", "--abbrev-ref", "origin/HEAD")
    candidates = [ref.strip()] if code == 0 and ref.strip() else []
    candidates += ["origin/main", "origin/master", "main", "master"]
    _, current = _git(cwd, "rev-parse", "--abbrev-ref", "HEAD")
    for candidate in candidates:
        if candidate == current.strip():
            continue
        if _git(cwd, "rev-parse", "--verify", "-q", candidate)[0] == 0:
            return candidate
    return None


def pull_request_changes(cwd: Path, number: str) -> str:
    import shutil

    from yoke import spawn

    if shutil.which("gh") is None:
        raise CommandError(
            f"/review {number}: reviewing a pull request needs the GitHub CLI (gh); install it"
        )
    texts = []
    for args in (("pr", "view", number), ("pr", "diff", number)):
        try:
            # the user's own GitHub CLI, asked by the user's /review NUMBER
            done = spawn.run(["gh", *args], confine=None, cwd=cwd, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise CommandError(f"/review {number}: gh failed: {exc}") from None
        if done.returncode != 0:
            detail = (done.stderr.strip().splitlines() or ["no details"])[-1]
            raise CommandError(f"/review {number}: gh {' '.join(args)} failed: {detail}")
        texts.append(done.stdout)
    return f'<pull-request number="{number}">\n{texts[0].rstrip()}\n</pull-request>\n\n' + (
        f"<pull-request-diff>\n{_capped(texts[1])}\n</pull-request-diff>"
    )


def _capped(diff: str) -> str:
    if len(diff) <= MAX_DIFF_CHARS:
        return diff.rstrip()
    return (
        diff[:MAX_DIFF_CHARS].rstrip() + f"\n[... {len(diff) - MAX_DIFF_CHARS:,} more characters of diff cut]"
    )


# ---- the prompts ---------------------------------------------------------------------------------------


def review_prompt(cwd: Path, args: str) -> str:
    words = args.split()
    if words and words[0].lstrip("#").isdigit():
        changes = pull_request_changes(cwd, words[0].lstrip("#"))
        words = words[1:]
    else:
        changes = branch_changes(cwd, "/review")
    focus = f"\nThe user asks you to focus on: {' '.join(words)}\n" if words else ""
    return REVIEW_PROMPT.format(focus=focus, changes=changes)


def security_review_prompt(cwd: Path, args: str) -> str:
    focus = f"\nThe user asks you to focus on: {args.strip()}\n" if args.strip() else ""
    return SECURITY_PROMPT.format(focus=focus, changes=branch_changes(cwd, "/security-review"))


def debug_prompt(session: Any, issue: str) -> str:
    """Turns the session's debug lines on (a file in its folder) and says where everything is."""
    from yoke import __version__

    folder = Path(getattr(session, "session_dir", None) or Path(session.cwd) / ".yoke-debug")
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "debug.txt"
    log.touch()
    session.debug_log = log
    from yoke.config.settings import load_settings

    try:
        transcript = session.transcript_path
    except AttributeError:
        transcript = "(not saved)"
    try:
        env = session.agent.executor.ctx.env or {}
        home = Path(env["HOME"]) if env.get("HOME") else None
        settings = ", ".join(s.label for s in load_settings(Path(session.cwd), home=home).sources) or "none"
    except (OSError, ValueError):
        settings = "(could not be read)"
    warnings = "".join(f"- a warning this session gave at start: {w}\n" for w in session.warnings[:10])
    return DEBUG_PROMPT.format(
        issue=f" The problem: {issue.strip()}" if issue.strip() else "",
        log=log,
        transcript=transcript,
        settings=settings,
        version=__version__,
        provider=session.provider_name,
        model=session.model,
        cwd=session.cwd,
        warnings=warnings,
    )


# ---- /usage --------------------------------------------------------------------------------------------


def usage_text(session: Any) -> str:
    from yoke.skills.builtin_commands import cost_text

    agent = session.agent
    usage = session.context_measure()
    calls: dict[str, int] = {}
    prompts = 0
    for message in agent.messages:
        content = message.get("content")
        if message.get("role") == "user" and (
            isinstance(content, str) or any(b.get("type") == "text" for b in content if isinstance(b, dict))
        ):
            prompts += 1
        if message.get("role") == "assistant" and isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    calls[str(block.get("name"))] = calls.get(str(block.get("name")), 0) + 1
    tools = ", ".join(f"{name} {count}" for name, count in sorted(calls.items(), key=lambda kv: -kv[1]))
    window = usage.window or 1
    lines = [
        cost_text(agent),
        f"Context:               {usage.used:,} of {usage.window:,} tokens ({100 * usage.used / window:.0f}%): "
        f"system prompt {usage.system:,}, tools {usage.tools:,}, conversation {usage.messages:,}",
        f"Activity:              {prompts} prompt{'s' * (prompts != 1)}, {sum(calls.values())} tool call"
        f"{'s' * (sum(calls.values()) != 1)}" + (f" ({tools})" if tools else ""),
        f"Model:                 {session.model} ({session.provider_name})",
    ]
    return "\n".join(lines)

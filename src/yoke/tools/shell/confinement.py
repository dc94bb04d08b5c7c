"""Where a shell command runs: confined to what a fast path judged (read-only, or writing only the working
directories), inside the session's sandbox, or as it is; from which folder; and the rc-file snapshot's
sandbox. Used by the Bash and Monitor tools."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from yoke.tools.base import ToolContext, ToolError
from yoke.tools.shell.process import Launcher
from yoke.tools.shell.script import command_env

if TYPE_CHECKING:
    from yoke.sandbox import SandboxUnavailable
    from yoke.sandbox.settings import SandboxSettings


class ShellCommand(Protocol):
    """A tool input that names a command line (Bash's, Monitor's)."""

    command: str


def start_cwd(ctx: ToolContext) -> Path:
    cwd = ctx.session.shell_cwd
    return cwd if cwd is not None and cwd.is_dir() else ctx.cwd


def sandbox_launcher(
    input: ShellCommand, ctx: ToolContext, *, writable: list[Path], readable: list[str | Path]
) -> Launcher | None:
    """An argv rewriter that runs the command inside the kernel sandbox, or None to run it as it is.

    A call a fast path allowed runs confined to what was judged (`ctx.confinement`: read-only, or only the
    working directories writable). Otherwise the session's sandbox covers it when enabled; if that cannot
    start, the command is refused (fail closed) rather than run unprotected. Without any kernel sandbox a
    fast-path call runs on the analyser's word alone, and the result says so once a session."""
    settings = ctx.session.services.sandbox
    from yoke.sandbox import SandboxUnavailable, should_sandbox
    from yoke.sandbox import wrap_command as sandbox_wrap

    def refuse(exc: SandboxUnavailable) -> ToolError:
        return ToolError(str(exc))

    from yoke.sandbox.confine import DENY_ONLY

    confinement = ctx.confinement
    if confinement is not None and confinement.kind != DENY_ONLY and confinement_works(ctx):
        from yoke.sandbox.confine import confine_command
        from yoke.sandbox.settings import SandboxSettings

        base = settings if settings is not None else SandboxSettings(base_dir=ctx.cwd)

        def confine(argv: list[str]) -> list[str]:
            try:
                return confine_command(
                    argv, confinement, base, start_cwd(ctx), ctx.all_dirs(), writable=list(writable),
                    readable=[Path(p) for p in readable], env=command_env(ctx),
                )  # fmt: skip
            except SandboxUnavailable as exc:
                raise refuse(exc) from None

        return confine
    disabled = bool(getattr(input, "dangerouslyDisableSandbox", False))
    excluded = ctx.session.services.sandbox_excluded
    if settings is None or not should_sandbox(input.command, settings, disabled, excluded):
        secrets = confinement is not None and confinement.kind == DENY_ONLY
        return deny_only_launcher(ctx, settings, secrets, refuse)

    def launch(argv: list[str]) -> list[str]:
        try:
            return sandbox_wrap(
                argv,
                settings,
                start_cwd(ctx),  # where the command starts (bwrap's --chdir), not the session's folder
                ctx.all_dirs(),
                writable=list(writable),
                readable=[Path(p) for p in readable],
                env=command_env(ctx),
            )
        except SandboxUnavailable as exc:
            raise refuse(exc) from None

    return launch


DENY_RULES_NOTE = (
    "yoke: no kernel sandbox (bubblewrap) is available here, so Read and Edit deny rules hold for "
    "commands a rule, a hook, a person or a mode approved only through Yoke's analysis of them"
)


def deny_only_launcher(
    ctx: ToolContext,
    settings: SandboxSettings | None,
    secrets: bool,
    refuse: Callable[[SandboxUnavailable], ToolError],
) -> Launcher | None:
    """For a call neither a fast path nor the sandbox setting confines: what the deny rules name hidden or
    pinned (`sandbox/deny_only.py`; with `secrets`, auto mode's classifier approved it, the secret list
    too), else None. Nothing to hide: None, no bubblewrap. No bubblewrap: None, and one stderr line a
    session says the deny rules hold only through the analyser."""
    from yoke.sandbox.deny_only import deny_only_command, has_deny_rules
    from yoke.sandbox.settings import SandboxSettings

    rules = has_deny_rules(settings)
    if not secrets and not rules:
        return None
    if not sys.platform.startswith("linux") or not confinement_works(ctx):
        services = ctx.session.services
        if rules and not services.deny_rules_warned:
            services.deny_rules_warned = True
            print(DENY_RULES_NOTE, file=sys.stderr)
        return None
    base = settings if settings is not None else SandboxSettings(base_dir=ctx.cwd)

    def confine(argv: list[str]) -> list[str]:
        try:
            return deny_only_command(argv, base, start_cwd(ctx), ctx.all_dirs(), secrets=secrets)
        except SandboxUnavailable as exc:
            raise refuse(exc) from None

    return confine


UNCONFINED_NOTE = (
    "[Yoke: no kernel sandbox is available here (bubblewrap on Linux, sandbox-exec on macOS), so commands "
    "allowed without asking are confined only by Yoke's analysis of them]"
)


def confinement_works(ctx: ToolContext) -> bool:
    """Whether a confined command can start here (probed once a session). When it cannot, the session
    records a note for the next result, once."""
    known = ctx.session.services.confinement_works
    if known is None:
        from yoke.sandbox import SandboxUnavailable
        from yoke.sandbox.confine import probe_confinement

        try:
            probe_confinement()
            known = True
        except SandboxUnavailable:
            known = False
            ctx.session.services.confinement_note = UNCONFINED_NOTE
        ctx.session.services.confinement_works = known
    return bool(known)


def snapshot_launcher(ctx: ToolContext, shell_root: Path) -> Launcher | None:
    """With the sandbox enabled the rc-file snapshot runs inside it too (whatever a later command's
    `dangerouslyDisableSandbox` says); if the sandbox cannot start, there is simply no snapshot."""
    settings = ctx.session.services.sandbox
    if settings is None or not settings.enabled:
        return None
    from yoke.sandbox import wrap_command as sandbox_wrap

    rc_file = Path(command_env(ctx).get("HOME") or Path.home()) / ".bashrc"
    return lambda argv: sandbox_wrap(
        argv, settings, ctx.cwd, ctx.all_dirs(), writable=[shell_root], readable=[rc_file]
    )

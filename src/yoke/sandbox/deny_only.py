"""The deny-only confinement: what a deny rule holds for a command that a rule, a hook, a person,
bypassPermissions or auto mode's classifier approved (a call the fast paths did not confine).

The command sees the filesystem, the network and the environment as the approval allows (no read
allowlist, and no write limit beyond the `sandbox` setting's, which applies apart), but bubblewrap hides
what the Read deny rules name (wildcards included, found at the moment the command starts in the working
directories and in the folders the rules are anchored at, `~/.aws` for `Read(~/.aws/**)`; plus the plain
paths the rules name wherever they are) and pins read-only what the Edit
deny rules name. With `secrets` (auto mode's classifier approved it: no person or rule of the user's did)
the one secret list is hidden too: the home's secret places and `.env*`-style files.

Nothing to hide, nothing started: without deny rules (and without `secrets`) no bubblewrap runs at all.
The command gets a PID namespace of its own (a fresh /proc: no `/proc/<pid>/root` of a process outside,
whose view has nothing hidden) and no capabilities (it cannot unmount what hides a file).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from yoke.sandbox.errors import SandboxUnavailable
from yoke.sandbox.settings import SandboxSettings


def has_deny_rules(settings: SandboxSettings | None) -> bool:
    """Whether any Read or Edit deny rule names a path (then a command runs deny-only confined)."""
    return settings is not None and (settings.read_denied is not None or settings.write_denied is not None)


def rule_roots(settings: SandboxSettings) -> list[Path]:
    """The folders outside the working directories where the deny rules' anchored patterns look
    (`Read(~/.aws/**)`: ~/.aws; the permission layer's `RulePaths.roots`), scanned like them."""
    roots: list[str] = []
    for check in (settings.read_denied, settings.write_denied):
        roots += getattr(check, "roots", ())
    return [Path(r) for r in dict.fromkeys(roots)]


def denied_paths(
    settings: SandboxSettings, cwd: Path, working_dirs: list[Path], home: Path, secrets: bool = False
) -> tuple[list[str], list[str]]:
    """What to hide and what to pin, resolved now: the scan of the working directories (`denied_in`), the
    plain paths of the rules (`Read(./.env)`, `Read(~/.aws)`: found wherever they are, however large the
    tree), and with `secrets` the home's secret places."""
    from yoke.paths import SECRET_HOME_PATHS
    from yoke.sandbox.confine import denied_in

    hidden, pinned = denied_in([*working_dirs, cwd, *rule_roots(settings)], home, settings, secrets=secrets)
    read_denied, write_denied = settings.read_denied, settings.write_denied
    # the rules' plain paths were joined to the sandbox's deny lists; only those a rule names count here
    for entry in settings.deny_read:
        path = settings.resolve(entry, home)
        if read_denied is not None and read_denied(path):
            hidden.append(path)
    for entry in settings.deny_write:
        path = settings.resolve(entry, home)
        if write_denied is not None and write_denied(path):
            pinned.append(path)
    if secrets:
        hidden += [os.path.join(str(home), rel) for rel in SECRET_HOME_PATHS]
    return hidden, pinned


def deny_only_command(
    argv: list[str],
    settings: SandboxSettings,
    cwd: Path,
    working_dirs: list[Path],
    *,
    home: Path | None = None,
    secrets: bool = False,
) -> list[str]:
    """The bwrap argv that runs `argv` with the denied paths hidden or pinned and nothing else changed;
    raises SandboxUnavailable (one line) when bubblewrap cannot start."""
    from yoke.sandbox.linux import _existing, probe_bwrap

    bwrap = settings.bwrap_path or shutil.which("bwrap")
    if not bwrap or not os.access(bwrap, os.X_OK):
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed")
    probe_bwrap(bwrap)
    home = home or Path.home()
    hidden, pinned = denied_paths(settings, cwd, working_dirs, home, secrets)
    args = [bwrap, "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--unshare-pid"]
    args += ["--dev-bind", "/", "/", "--proc", "/proc"]
    hidden_real = _existing(hidden)
    for path in _existing(pinned):
        if path not in hidden_real:
            args += ["--ro-bind", path, path]
    for path in hidden_real:
        if os.path.isdir(path):
            args += ["--tmpfs", path, "--remount-ro", path]
        else:
            args += ["--ro-bind", "/dev/null", path]
    return [*args, "--chdir", os.path.realpath(cwd), "--", *argv]

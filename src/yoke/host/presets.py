"""Starting a session from the remote page (docs/remote.md, "Presets"): a paired `drive` device may start only
what the user wrote down beforehand, by name. A preset lives in the user's own settings
(`remoteControl.presets` in ~/.claude/settings.json or Yoke's home), never a project's: a cloned repository
cannot add one. The host reads them when asked, so an edit applies at once, and builds the session's
options from the preset alone: the client names a preset and may add a first prompt; no flags, environment
or settings path of the client's reach the session. The preset's folder must be trusted, as for `yoke --bg`.

`presets {}` lists them (name, folder, model, mode, agent) and the entries left out; `start_preset {preset, prompt?}` starts one."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yoke.host.protocol import ProtocolError
from yoke.seams import MODES

SETTING = "remoteControl"
FIELDS = ("name", "cwd", "model", "permissionMode", "agent", "prompt")
START_FIELDS = frozenset({"preset", "prompt"})  # all a client may say; anything else is refused


@dataclass(frozen=True, slots=True)
class Preset:
    name: str
    cwd: str
    model: str = ""
    permission_mode: str = ""
    agent: str = ""
    prompt: str = ""

    def args(self) -> list[str]:
        """The session's command line, from the preset's fields only."""
        args: list[str] = []
        for flag, value in (
            ("--model", self.model),
            ("--permission-mode", self.permission_mode),
            ("--agent", self.agent),
        ):
            if value:
                args += [flag, value]
        return args

    def row(self) -> dict[str, Any]:
        return {"name": self.name, "cwd": self.cwd, "model": self.model or None,
                "permissionMode": self.permission_mode or "default", "agent": self.agent or None}  # fmt: skip


def presets(settings: dict[str, Any]) -> tuple[list[Preset], list[str]]:
    """The user's presets, and one line for each entry left out (so a typo is said, not silently lost)."""
    block = settings.get(SETTING)
    entries = block.get("presets") if isinstance(block, dict) else None
    if not isinstance(entries, list):
        return [], []
    found: dict[str, Preset] = {}
    problems: list[str] = []
    for index, entry in enumerate(entries):
        where = f"{SETTING}.presets[{index}]"
        if not isinstance(entry, dict):
            problems.append(f"{where} is not an object")
            continue
        values = {key: entry.get(key) for key in FIELDS}
        if any(v is not None and not isinstance(v, str) for v in values.values()):
            problems.append(f"{where}: every field is a string")
            continue
        name, cwd = (values["name"] or "").strip(), (values["cwd"] or "").strip()
        mode = values["permissionMode"] or ""
        if not name or not cwd:
            problems.append(f"{where} needs a name and a cwd")
        elif mode and mode not in MODES:
            problems.append(f"{where}: permissionMode is one of {', '.join(MODES)}")
        elif name in found:
            problems.append(f"{where}: a second preset named {name!r}")
        else:
            cwd = os.path.realpath(os.path.expanduser(cwd))
            found[name] = Preset(
                name, cwd, values["model"] or "", mode, values["agent"] or "", values["prompt"] or ""
            )
    return list(found.values()), problems


def _user_presets() -> tuple[list[Preset], list[str]]:
    from yoke.notify import user_settings  # the user's own settings, never a project's

    return presets(user_settings())


async def list_presets(host: Any, client: Any, ident: Any, params: dict[str, Any]) -> dict[str, Any]:
    """The presets, and why any entry was left out (the page shows it: a typo is said, not lost)."""
    found, problems = _user_presets()
    return {"presets": [preset.row() for preset in found], "problems": problems}


async def start_preset(host: Any, client: Any, ident: Any, params: dict[str, Any]) -> dict[str, Any]:
    """Start the named preset's session, with its options only; a first prompt from the client, if any,
    replaces the preset's own."""
    from yoke.config.settings import yoke_home_dir
    from yoke.config.trust import is_trusted
    from yoke.host.methods import start_session

    extra = sorted(set(params) - START_FIELDS)
    if extra:
        raise ProtocolError(
            "invalid_params", f"start_preset takes a preset and a prompt only, not {', '.join(extra)}"
        )
    wanted = params.get("preset")
    chosen = next((p for p in _user_presets()[0] if p.name == wanted), None)
    if chosen is None:
        raise ProtocolError("invalid_params", f"no preset named {str(wanted)[:80]!r} in your settings")
    if not os.path.isdir(chosen.cwd):
        raise ProtocolError("invalid_params", f"preset {chosen.name!r}: {chosen.cwd} is not a folder")
    if not is_trusted(Path(chosen.cwd), yoke_home_dir(env=os.environ)):
        raise ProtocolError(
            "forbidden", f"preset {chosen.name!r}: {chosen.cwd} is not trusted; run `yoke trust` there first"
        )
    prompt = params.get("prompt")
    prompt = prompt.strip() if isinstance(prompt, str) and prompt.strip() else chosen.prompt
    name = f"{chosen.name}: {prompt}" if prompt else chosen.name
    session = await start_session(
        host, {"cwd": chosen.cwd, "args": chosen.args(), "prompt": prompt or None, "name": name}
    )
    record = session.record
    return {"id": record["id"], "sessionId": record["sessionId"], "pid": record["pid"], "preset": chosen.name}


METHODS = {"presets": list_presets, "start_preset": start_preset}

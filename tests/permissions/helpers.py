"""Stand-in tools with Claude Code's names and input shapes, and a small world to judge calls in.

The gate only reads a tool's names, flags and input model, so these stand-ins keep the permission tests
independent of the real tools' implementations.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from yoke.config.settings import load_settings
from yoke.permissions import build_gate
from yoke.permissions.pipeline import PermissionGate
from yoke.tools.base import SessionState, Tool, ToolContext


class _Bash(BaseModel):
    command: str
    timeout: float | None = None
    run_in_background: bool | None = None
    dangerouslyDisableSandbox: bool | None = None


class _FilePath(BaseModel):
    file_path: str
    content: str | None = None
    old_string: str | None = None
    new_string: str | None = None


class _Notebook(BaseModel):
    notebook_path: str
    new_source: str = ""


class _Search(BaseModel):
    pattern: str
    path: str | None = None


class _Url(BaseModel):
    url: str
    prompt: str = ""


class _Query(BaseModel):
    query: str


class _Agent(BaseModel):
    description: str = ""
    prompt: str = ""
    subagent_type: str = "general-purpose"
    model: str | None = None


class _Any(BaseModel):
    model_config = {"extra": "allow"}


def _tool(name: str, model: type[BaseModel], read_only: bool, aliases: tuple[str, ...] = ()) -> Tool:
    cls = type(
        f"{name}Stub",
        (Tool,),
        {"name": name, "aliases": aliases, "description": name, "input_model": model, "read_only": read_only},
    )
    return cls()


TOOLS: dict[str, Tool] = {
    "Bash": _tool("Bash", _Bash, False),
    "Read": _tool("Read", _FilePath, True),
    "Edit": _tool("Edit", _FilePath, False),
    "Write": _tool("Write", _FilePath, False),
    "MultiEdit": _tool("MultiEdit", _FilePath, False),
    "NotebookEdit": _tool("NotebookEdit", _Notebook, False),
    "Glob": _tool("Glob", _Search, True),
    "Grep": _tool("Grep", _Search, True),
    "WebFetch": _tool("WebFetch", _Url, True),
    "WebSearch": _tool("WebSearch", _Query, True),
    "Agent": _tool("Agent", _Agent, False, ("Task",)),
    "TodoWrite": _tool("TodoWrite", _Any, False),
    "ExitPlanMode": _tool("ExitPlanMode", _Any, True),
    "AskUserQuestion": _tool("AskUserQuestion", _Any, True),
    "mcp__github__get_issue": _tool("mcp__github__get_issue", _Any, False),
    "mcp__github__create_issue": _tool("mcp__github__create_issue", _Any, False),
    "mcp__slack__post": _tool("mcp__slack__post", _Any, False),
}


@dataclass
class World:
    """A project with a secret, a symlink to an SSH key, and an isolated home directory."""

    root: Path
    home: Path
    project: Path
    other: Path  # a directory outside the project

    def ctx(self, shell_cwd: Path | None = None) -> ToolContext:
        session = SessionState("test", self.root / "session")
        session.shell_cwd = shell_cwd
        return ToolContext(cwd=self.project, session=session, working_dirs=[self.project])

    def gate(
        self,
        allow: list[str] | None = None,
        deny: list[str] | None = None,
        ask: list[str] | None = None,
        mode: str | None = None,
        settings: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> PermissionGate:
        loaded = load_settings(self.project, home=self.home, flag_settings=_json(settings), managed_paths=[])
        if ask:
            loaded.sources.insert(0, _user_source(self, {"permissions": {"ask": ask}}))
        kwargs.setdefault("interactive", True)
        kwargs.setdefault("trusted", True)
        return build_gate(
            loaded,
            cwd=self.project,
            mode=mode,
            allowed_tools=list(allow or []),
            disallowed_tools=list(deny or []),
            add_dirs=kwargs.pop("add_dirs", []),
            home=self.home,
            **kwargs,
        )


def _json(settings: dict[str, Any] | None) -> str | None:
    import json

    return json.dumps(settings) if settings else None


def _user_source(world: World, data: dict[str, Any]):  # type: ignore[no-untyped-def]
    from yoke.config.settings import SettingsSource

    return SettingsSource("user", None, data, world.home / ".claude")


def make_world(root: Path) -> World:
    home = root / "home"
    project = root / "proj"
    other = root / "other"
    for folder in (home / ".ssh", home / ".aws", project / "src" / "deep", project / ".git" / "hooks", other):
        folder.mkdir(parents=True, exist_ok=True)
    (home / ".ssh" / "id_rsa").write_text("PRIVATE KEY\n")
    (home / ".aws" / "credentials").write_text("[default]\n")
    (home / ".bashrc").write_text("# rc\n")
    (home / ".zshrc").write_text("# rc\n")
    (project / "src" / "app.py").write_text("print(1)\n")
    (project / "src" / "deep" / "mod.py").write_text("x = 1\n")
    (project / "README.md").write_text("# readme\n")
    (project / ".env").write_text("TOKEN=secret\n")
    (project / "server.pem").write_text("CERT\n")
    (project / ".git" / "config").write_text("[core]\n")
    (other / "notes.txt").write_text("outside\n")
    os.symlink(home / ".ssh" / "id_rsa", project / "key_link")
    os.symlink(other, project / "other_link")
    return World(root, home, project, other)

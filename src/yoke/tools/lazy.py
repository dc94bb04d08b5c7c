"""Tools that load on first use.

Importing every tool module (and pydantic, which their input models need) costs more than the rest of a
one-turn run. The model only needs each tool's name, description and JSON schema, so those come from a
manifest generated from the real tools (`python -m yoke.tools.builtin.manifest`); a tool's module, and
pydantic, are imported the first time the tool is actually called. The manifest records a hash of each
module's source: when any module differs from what the manifest was built from, every tool loads eagerly
instead, so a stale manifest can slow Yoke down but never make it wrong.
"""

from __future__ import annotations

import importlib
import json
import threading
from pathlib import Path
from typing import Any

from yoke.tools.base import Tool, ToolContext, ToolResult
from yoke.tools.light import InputModel, light_fields, light_parse

_LOADING = threading.RLock()  # one tool loads at a time: a call may need it while a thread is loading it

# modules the manifest's schemas come from besides the tools' own (their hash is the manifest's too)
INPUT_MODULES = ["yoke.tools.builtin.inputs"]

FLAGS = (
    "read_only",
    "destructive",
    "concurrency_safe",
    "timeout_s",
    "max_result_chars",
    "kind",
    "path_fields",
)


class LazyTool(Tool):
    """Stands in for a tool until it is needed, then delegates everything to the real instance."""

    def __init__(self, entry: dict[str, Any]):
        self.name = entry["name"]  # type: ignore[misc]
        self.aliases = tuple(entry.get("aliases", ()))  # type: ignore[misc]
        self.description = entry["description"]  # type: ignore[misc]
        for flag in FLAGS:
            value = entry[flag]
            setattr(self, flag, tuple(value) if isinstance(value, list) else value)
        self._schema: dict[str, Any] = entry["input_schema"]
        self._light: dict[str, list[Any]] | None = entry.get("light_fields")
        self._where = (entry["module"], entry["class"])
        self._real: Tool | None = None
        self._preparing = False

    @property
    def real(self) -> Tool:
        if self._real is None:
            with _LOADING:
                if self._real is None:
                    module, cls = self._where
                    self._real = getattr(importlib.import_module(module), cls)()
        return self._real

    def prepare(self) -> None:
        # Loading a tool imports pydantic the first time (~0.1 s): begun in a thread when the model opens a
        # call, it runs while the call's input is still streaming in.
        if self._real is None and not self._preparing:
            self._preparing = True
            threading.Thread(target=self._load_quietly, name=f"load {self.name}", daemon=True).start()

    def _load_quietly(self) -> None:
        try:
            _ = self.real
        except Exception:  # noqa: BLE001 - the call itself loads again and reports the problem
            pass

    @property
    def input_model(self):  # type: ignore[override]
        return self.real.input_model

    def input_schema(self) -> dict[str, Any]:
        # json-ours: a deep copy of a schema Yoke holds
        return json.loads(json.dumps(self._schema))

    def validate(self, input: dict[str, Any]) -> Any:
        if self._light is not None:  # a plainly fitting call needs no pydantic (yoke.tools.light)
            parsed = light_parse(self._schema, self._light, input)
            if parsed is not None:
                return parsed
        return self.real.validate(input)

    def is_concurrency_safe(self, input: Any) -> bool:
        return self.real.is_concurrency_safe(input)

    def is_read_only(self, input: Any) -> bool:
        return self.real.is_read_only(input)

    def summary(self, input: Any) -> str:
        return self.real.summary(input)

    async def run(self, input: Any, ctx: ToolContext) -> ToolResult:
        return await self.real.run(input, ctx)

    def __getattr__(self, name: str) -> Any:
        # Only reached for attributes the proxy lacks: tool-specific helpers live on the real tool.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.real, name)


def manifest_entry(tool: Tool) -> dict[str, Any]:
    cls = type(tool)
    entry: dict[str, Any] = {
        "name": tool.name,
        "aliases": list(tool.aliases),
        "module": cls.__module__,
        "class": cls.__name__,
        "description": tool.description,
        "input_schema": tool.input_schema(),
    }
    model = tool.input_model
    if getattr(type(tool), "__dict__", {}).get("input_model") is not None and isinstance(
        type(tool).__dict__["input_model"], InputModel
    ):  # only tools whose modules import without pydantic gain from the light parse
        entry["light_fields"] = light_fields(model, entry["input_schema"])
    for flag in FLAGS:
        entry[flag] = getattr(tool, flag)
    return entry


def source_hash(modules: list[str]) -> str:
    """A checksum of the source files of `modules` (found without importing them). CRC-32 rather than a
    cryptographic hash: it only tells an edited module from the one the manifest was built from, and
    `binascii` is loaded already where `hashlib` (OpenSSL) would cost the start-up several milliseconds."""
    import binascii

    crc, size = 0, 0
    for module in sorted(set(modules)):
        origin = _source_path(module)
        if origin is None:
            return ""
        source = origin.read_bytes()
        crc = binascii.crc32(source, binascii.crc32(module.encode(), crc))
        size += len(source)
    return f"crc32:{crc:08x}:{size}"


def _source_path(module: str) -> Path | None:
    # Yoke's own modules are files under this package: no import machinery (find_spec) needed
    if module.startswith("yoke."):
        path = _YOKE_ROOT.joinpath(*module.split(".")[1:]).with_suffix(".py")
        if path.is_file():
            return path
    import importlib.util

    spec = importlib.util.find_spec(module)
    return Path(spec.origin) if spec is not None and spec.origin is not None else None


_YOKE_ROOT = Path(__file__).parent.parent


def load_manifest(path: Path) -> list[dict[str, Any]] | None:
    """The manifest's tool entries, or None when it is missing, unreadable or stale."""
    try:
        # json-ours: the package's own manifest.json
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    tools = data.get("tools")
    if not isinstance(tools, list):
        return None
    if data.get("source_hash") != source_hash([t["module"] for t in tools] + INPUT_MODULES):
        return None
    return tools

"""Regenerate the built-in tool manifest: `python -m yoke.tools.builtin.manifest` (`--check` to verify)."""

from __future__ import annotations

import json
import sys

from yoke.tools.builtin import BUILTIN_TOOLS, MANIFEST, eager_tools
from yoke.tools.lazy import INPUT_MODULES, manifest_entry, source_hash


def build() -> str:
    tools = [manifest_entry(tool) for tool in eager_tools()]
    modules = [module for module, _ in BUILTIN_TOOLS] + INPUT_MODULES
    data = {"source_hash": source_hash(modules), "tools": tools}
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    text = build()
    if "--check" in argv:
        current = MANIFEST.read_text(encoding="utf-8") if MANIFEST.exists() else ""
        if current != text:
            print(f"{MANIFEST} is stale: run python -m yoke.tools.builtin.manifest", file=sys.stderr)
            return 1
        return 0
    MANIFEST.write_text(text, encoding="utf-8")
    print(f"wrote {MANIFEST}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

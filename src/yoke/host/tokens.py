"""Scoped tokens for `yoke host --tcp/--ws` clients (docs/wire.md, "Scoped tokens"): `yoke host token --scope
watch|approve|drive|admin` mints one, shown once; the host keeps its SHA-256, scope and expiry in
`host-tokens.json` (0600, in the runtime folder). A client that says `hello` with it is held to its scope on
every request (scopes.held_to: the page's scope model); `host.token` itself stays the owner's, `admin`.
Unknown, expired or revoked tokens are refused: unknown never means allow."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import sys
import time
from pathlib import Path
from typing import Any

from yoke import jsonsafe
from yoke.host.owned import read_private, write_private
from yoke.host.paths import runtime_dir
from yoke.host.scopes import SCOPES

DEFAULT_TTL = 7 * 86400  # seconds a minted token lasts unless --ttl says otherwise
USAGE = ("usage: yoke host token [--scope watch|approve|drive|admin] [--ttl SECONDS] [--json]\n"
         "       yoke host token --list [--json] | --revoke ID... | --revoke-all")  # fmt: skip


def tokens_path() -> Path:
    return runtime_dir() / "host-tokens.json"


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def read_tokens() -> list[dict[str, Any]]:
    try:
        data = jsonsafe.loads(read_private(tokens_path()))
    except (OSError, ValueError):
        return []
    rows = data.get("tokens") if isinstance(data, dict) else None
    return [r for r in rows or [] if isinstance(r, dict) and r.get("id") and r.get("hash") and r.get("scope")]


def _write(rows: list[dict[str, Any]]) -> None:
    write_private(tokens_path(), (json.dumps({"tokens": rows}, indent=2) + "\n").encode())


def mint(scope: str, ttl: float = DEFAULT_TTL) -> tuple[str, str]:
    """A new token of `scope` (its id, and the token: shown once, never stored)."""
    if scope not in SCOPES:
        raise ValueError(f"--scope is one of {', '.join(SCOPES)}")
    token, ident, now = secrets.token_urlsafe(32), secrets.token_hex(4), int(time.time())
    row = {"id": ident, "scope": scope, "hash": _digest(token), "made": now, "expires": now + int(ttl)}
    _write([*(r for r in read_tokens() if r.get("expires", 0) > now), row])
    return ident, token


def scope_for(owner_token: str | None, given: Any) -> str | None:
    """The scope a `hello`'s token gives: `admin` for the host's own token, a minted token's scope while it
    is unexpired, None for anything else."""
    if not isinstance(given, str) or not given:
        return None
    if owner_token and hmac.compare_digest(given.encode(), owner_token.encode()):
        return "admin"
    digest, now = _digest(given), time.time()
    for row in read_tokens():
        if hmac.compare_digest(str(row["hash"]), digest) and float(row.get("expires") or 0) > now:
            return row["scope"] if row["scope"] in SCOPES else None
    return None


def token_command(argv: list[str]) -> int:
    """`yoke host token ...` (USAGE)."""
    as_json = "--json" in argv
    try:
        if "--list" in argv:
            rows = [{k: r.get(k) for k in ("id", "scope", "made", "expires")} for r in read_tokens()]
            print(json.dumps(rows) if as_json else "\n".join(f"{r['id']}  {r['scope']:8}  expires "
                  f"{time.strftime('%Y-%m-%d %H:%M', time.localtime(r['expires'] or 0))}" for r in rows))  # fmt: skip
            return 0
        if "--revoke-all" in argv or "--revoke" in argv:
            ids = None if "--revoke-all" in argv else argv[argv.index("--revoke") + 1 :]
            kept = [r for r in read_tokens() if ids is not None and r["id"] not in ids]
            _write(kept)  # a revoked token's next hello is refused; open connections keep their session
            return 0
        scope = argv[argv.index("--scope") + 1] if "--scope" in argv else "watch"
        ttl = float(argv[argv.index("--ttl") + 1]) if "--ttl" in argv else DEFAULT_TTL
        if ttl <= 0:
            raise ValueError("--ttl is a positive number of seconds")
        ident, token = mint(scope, ttl)
    except (IndexError, ValueError) as exc:
        print(
            f"yoke host token: {exc if str(exc) and not isinstance(exc, IndexError) else USAGE}",
            file=sys.stderr,
        )
        return 2
    print(json.dumps({"id": ident, "scope": scope, "token": token}) if as_json else token)
    return 0

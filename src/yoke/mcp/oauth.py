"""OAuth for remote MCP servers (the MCP authorization flow, via the `mcp` package's OAuthClientProvider).

Tokens and the dynamically registered client live in `~/.yoke/mcp-auth/<server>.json` (mode 0600). A
session never opens a browser: a server that wants a login it has no token for is `needs-auth`, and
`yoke mcp login <server>` runs the flow (a local callback on 127.0.0.1, the authorization URL printed and
opened in a browser when there is one).
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from yoke.jsonsafe import dict_at
from yoke.jsonsafe import loads as safe_json
from yoke.mcp.config import ServerConfig

DEFAULT_CALLBACK_PORT = 0  # 0 = any free port


def auth_dir(env: Mapping[str, str]) -> Path:
    from yoke.config.settings import yoke_home_dir

    return yoke_home_dir(env=env) / "mcp-auth"


class FileTokenStorage:
    """The `mcp` package's TokenStorage protocol over one 0600 JSON file per server."""

    def __init__(self, path: Path, url: str, redirect_uri: str | None = None):
        self.path = path
        self.url = url
        self.redirect_uri = redirect_uri  # a client registered for another callback is registered again

    def _read(self) -> dict[str, Any]:
        try:
            data = safe_json(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("url") != self.url:
            return {}  # tokens for another URL under the same name are not sent
        return data

    def _write(self, key: str, value: Any) -> None:
        from yoke.fsutil import replace_file

        data = self._read()
        data["url"] = self.url
        data[key] = value
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        replace_file(self.path, json.dumps(data, indent=1).encode("utf-8"), mode=0o600)

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        raw = self._read().get("tokens")
        return OAuthToken.model_validate(raw) if raw else None

    async def set_tokens(self, tokens: Any) -> None:
        self._write("tokens", tokens.model_dump(mode="json", exclude_none=True))

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        raw = self._read().get("client")
        if not raw:
            return None
        if self.redirect_uri and self.redirect_uri not in [str(u) for u in raw.get("redirect_uris") or []]:
            return None
        return OAuthClientInformationFull.model_validate(raw)

    async def set_client_info(self, client_info: Any) -> None:
        self._write("client", client_info.model_dump(mode="json", exclude_none=True))

    def has_tokens(self) -> bool:
        return bool(self._read().get("tokens"))


def storage_for(
    cfg: ServerConfig, env: Mapping[str, str], redirect_uri: str | None = None
) -> FileTokenStorage:
    return FileTokenStorage(auth_dir(env) / f"{cfg.name}.json", cfg.url, redirect_uri)


def _provider(
    cfg: ServerConfig,
    env: Mapping[str, str],
    redirect_uri: str,
    redirect: Callable[[str], Awaitable[None]],
    callback: Callable[[], Awaitable[Any]] | None,
    interactive: bool = False,
) -> Any:
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata
    from pydantic import AnyUrl

    oauth = dict_at(cfg.raw, "oauth")
    metadata = OAuthClientMetadata(
        client_name="Yoke",
        redirect_uris=[AnyUrl(redirect_uri)],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none" if not oauth.get("clientSecret") else "client_secret_post",
        scope=oauth.get("scope"),
    )
    return OAuthClientProvider(
        server_url=cfg.url,
        client_metadata=metadata,
        storage=storage_for(cfg, env, redirect_uri if interactive else None),
        redirect_handler=redirect,
        callback_handler=callback,
    )


def headless_auth(cfg: ServerConfig, env: Mapping[str, str]) -> Any:
    """Auth for a session: stored tokens are used (and refreshed); a needed login makes the server
    `needs-auth` instead of opening a browser. A server given its own Authorization header gets none."""
    if any(k.lower() == "authorization" for k in cfg.headers):
        return None
    from yoke.mcp.errors import NeedsAuth

    async def needs_login(*_: Any) -> Any:
        raise NeedsAuth(f"run `yoke mcp login {cfg.name}` to sign in")

    port = _callback_port(cfg)
    return _provider(cfg, env, f"http://127.0.0.1:{port or 33418}/callback", needs_login, needs_login)


def _callback_port(cfg: ServerConfig) -> int:
    oauth = dict_at(cfg.raw, "oauth")
    port = oauth.get("callbackPort")
    return int(port) if isinstance(port, int) else DEFAULT_CALLBACK_PORT


async def login(
    cfg: ServerConfig, env: Mapping[str, str], open_browser: bool = True, out: Any = None
) -> None:
    """The interactive flow: listen on 127.0.0.1 for the redirect, send the user to the authorization URL,
    exchange the code, store the tokens. Connecting once is what drives the provider through it."""
    import asyncio
    import sys
    import urllib.parse

    from mcp.shared.auth import AuthorizationCodeResult

    from yoke.mcp.transports import Link, open_transport

    out = out or sys.stdout
    loop = asyncio.get_running_loop()
    code: asyncio.Future = loop.create_future()

    async def on_request(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        line = (await reader.readline()).decode("latin-1")
        target = line.split(" ")[1] if " " in line else "/"
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query)
        ok = "code" in query
        body = b"Signed in; you can close this window." if ok else b"Sign-in failed."
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
        )
        await writer.drain()
        writer.close()
        if ok and not code.done():
            code.set_result((query["code"][0], query.get("state", [None])[0], query.get("iss", [None])[0]))
        elif not ok and not code.done():
            code.set_exception(RuntimeError(query.get("error", ["no code in the redirect"])[0]))

    server = await asyncio.start_server(on_request, "127.0.0.1", _callback_port(cfg))
    port = server.sockets[0].getsockname()[1]

    async def redirect(url: str) -> None:
        print(f"Open this URL to sign in to {cfg.name}:\n{url}", file=out, flush=True)
        if open_browser:
            import webbrowser

            webbrowser.open(url)

    async def callback() -> Any:
        value, state, iss = await asyncio.wait_for(code, 300)
        return AuthorizationCodeResult(code=value, state=state, iss=iss)

    auth = _provider(cfg, env, f"http://127.0.0.1:{port}/callback", redirect, callback, interactive=True)
    try:
        from mcp.client.session import ClientSession

        async with (
            open_transport(cfg, Path(os.getcwd()), Link(), auth) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
    finally:
        server.close()

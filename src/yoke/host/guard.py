"""What every listener of the host checks before anything else (docs/remote.md, "Threat model"): the Host
header names this listener (a DNS-rebinding page's own name is refused, as Jupyter does), a browser's Origin
is one of the page's own (a WebSocket on `yoke host --ws` takes none: it is for programs, and a browser always
sends one), headers are few and short, and a TLS handshake that says nothing is dropped."""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import urllib.parse

MAX_HEADER_LINE = 8192  # bytes of one request or header line (what websockets allows too)
MAX_HEADERS = 100  # header lines of one request
HANDSHAKE_TIMEOUT = 5.0  # seconds a TLS handshake may take before the connection is dropped
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


def host_names(bind: str, addresses: list[str]) -> set[str]:
    """The names a request's Host may give for a listener bound to `bind` and reachable at `addresses`:
    loopback always; for a wildcard bind (0.0.0.0, ::) also any IP literal, never a DNS name (a rebinding
    attacker's page is served under a DNS name)."""
    return {name.lower() for name in (*LOOPBACK_NAMES, bind, *addresses)}


def host_allowed(header: str | None, names: set[str], port: int, wildcard: bool = False) -> bool:
    """Whether a Host header names this listener: one of `names` (or, bound to every address, an IP
    literal), with this port or none."""
    if not header:
        return False
    text = header.strip().lower()
    if text.startswith("["):  # [v6]:port
        name, _, rest = text[1:].partition("]")
        given = rest[1:] if rest.startswith(":") else ""
    else:
        name, _, given = text.partition(":")
    if given and given != str(port):
        return False
    if name in names:
        return True
    if wildcard:
        try:
            ipaddress.ip_address(name)
            return True
        except ValueError:
            return False
    return False


def wildcard(bind: str) -> bool:
    return bind in ("0.0.0.0", "::", "")


def script_hash(script: str) -> str:
    """A Content-Security-Policy source for one inline script (its text between the tags)."""
    body = script.split(">", 1)[1].rsplit("</script>", 1)[0]
    return "'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'"


def page_policy(inline_script: str, ws_sources: list[str]) -> dict[str, str]:
    """The page's security headers: scripts and styles only from the page itself (and the pairing page's
    one inline script, by its hash), sockets only to its own WebSocket, no framing, no sniffing."""
    policy = (
        f"default-src 'none'; script-src 'self' {script_hash(inline_script)}; style-src 'self'; "
        f"img-src 'self'; connect-src 'self' {' '.join(ws_sources)}; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    )
    return {
        "Content-Security-Policy": policy,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",  # no-referrer would make a form's Origin "null"
    }


def public_origin(url: str) -> tuple[str, str]:
    """`--public-url URL` (a tunnel or reverse proxy in front of the page): the Origin a browser sends for it
    and the Host header it gives. ValueError for anything but an http(s) URL with a host and no credentials."""
    parts = urllib.parse.urlsplit(url)
    name = parts.hostname or ""
    bad = parts.scheme not in ("http", "https") or not name or parts.username or parts.password
    if bad or parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(
            f"--public-url takes http(s)://HOST[:PORT]/ (no path: the page's routes are absolute), not {url!r}"
        )
    default = 443 if parts.scheme == "https" else 80
    port = parts.port or default
    netloc = name if port == default else f"{name}:{port}"
    if ":" in name:
        netloc = f"[{name}]" + ("" if port == default else f":{port}")
    return f"{parts.scheme}://{netloc}".lower(), netloc.lower()

"""Domain patterns shared by `WebFetch(domain:…)` rules and the sandbox's network allowlist.

`example.com` matches that host only; `*.example.com` its subdomains only; `*` every host. A pattern may
carry a port (`example.com:443`, `[::1]:8080`), which the request's port must then equal. Matching ignores
case and a trailing dot.
"""

from __future__ import annotations


def split_host_port(text: str) -> tuple[str, int | None]:
    text = text.strip()
    if text.startswith("["):
        end = text.find("]")
        if end == -1:
            return text.lower(), None
        host, rest = text[1:end], text[end + 1 :]
        port = int(rest[1:]) if rest.startswith(":") and rest[1:].isdigit() else None
        return host.lower(), port
    if text.count(":") == 1:
        host, _, port_text = text.partition(":")
        if port_text.isdigit():
            return host.lower().rstrip("."), int(port_text)
    return text.lower().rstrip("."), None


def domain_matches(pattern: str, host: str, port: int | None = None) -> bool:
    pat_host, pat_port = split_host_port(pattern)
    host = host.lower().rstrip(".").strip("[]")
    if pat_port is not None and port is not None and pat_port != port:
        return False
    if pat_port is not None and port is None:
        return False
    if pat_host == "*":
        return True
    if pat_host.startswith("*."):
        return host.endswith(pat_host[1:]) and host != pat_host[2:]
    return host == pat_host


def host_allowed(host: str, port: int | None, allowed: tuple[str, ...], denied: tuple[str, ...]) -> bool:
    """The sandbox network rule: denied patterns first, then the host must match an allowed pattern."""
    if any(domain_matches(p, host, port) for p in denied):
        return False
    return any(domain_matches(p, host, port) for p in allowed)

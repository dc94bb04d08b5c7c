"""Which address `yoke remote-control --host 0.0.0.0` prints and puts in the QR code: one of this machine's
own, a private one (RFC 1918, or an IPv6 unique local address, RFC 4193) before any other, the interface
that carries outgoing traffic first among equals. Loopback, link-local and interfaces that are down are
never chosen; with none left, the terminal says so in one line (NO_LAN) and how to name one."""

from __future__ import annotations

import ipaddress
import shutil
import socket
import subprocess

PRIVATE = tuple(
    ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")
)
WILDCARD = ("0.0.0.0", "::")
NO_LAN = (
    "no LAN address found for {bind}: pass --host ADDR (this machine's address on your network) or "
    "--public-url URL (the address a tunnel or proxy gives the page)"
)


def lan_addresses(bind: str, found: list[str] | None = None) -> tuple[list[str], str]:
    """The addresses a browser may use to reach a page bound to `bind`, the one to print first, and a note
    for the terminal ("" or NO_LAN). `found`: this machine's addresses, outgoing first (a test's fake list;
    else `interface_addresses()`). A wildcard bind is reachable at loopback too, the URL's last resort."""
    if bind not in WILDCARD:
        return [bind], ""
    chosen = choose(interface_addresses() if found is None else found, ipv6=bind == "::")
    return [*chosen, "127.0.0.1"], "" if chosen else NO_LAN.format(bind=bind)


def choose(found: list[str], ipv6: bool = False) -> list[str]:
    """`found` without what a phone cannot reach (loopback, link-local, multicast, unspecified; IPv6 unless
    `ipv6`), private ranges first; otherwise in the order given."""
    usable = []
    for text in dict.fromkeys(found):
        try:
            address = ipaddress.ip_address(text.split("%")[0])
        except ValueError:
            continue
        if address.version == 6 and not ipv6:
            continue
        if address.is_loopback or address.is_link_local or address.is_multicast or address.is_unspecified:
            continue
        usable.append(address)
    private = [a for a in usable if any(a in net for net in PRIVATE if net.version == a.version)]
    return [str(a) for a in private + [a for a in usable if a not in private]]


def interface_addresses() -> list[str]:
    """This machine's addresses: the outgoing interface's first (a UDP socket's route; no packet is sent),
    then every up interface's that `ip -j addr` lists (Linux; elsewhere only the first)."""
    found = []
    for family, target in ((socket.AF_INET, "10.255.255.255"), (socket.AF_INET6, "fd00::1")):
        probe = socket.socket(family, socket.SOCK_DGRAM)
        try:
            probe.connect((target, 1))
            found.append(str(probe.getsockname()[0]))
        except OSError:
            pass
        finally:
            probe.close()
    return found + _listed()


def _listed() -> list[str]:
    if shutil.which("ip") is None:
        return []
    try:
        from yoke import spawn
        from yoke.jsonsafe import loads

        done = spawn.run(["ip", "-j", "addr", "show", "up"], confine=None, timeout=5, text=True)
        links = loads(done.stdout) if done.returncode == 0 else []
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return []
    return [
        str(info.get("local"))
        for link in links if isinstance(link, dict) and link.get("operstate") != "DOWN"
        for info in link.get("addr_info") or [] if isinstance(info, dict) and info.get("local")
    ]  # fmt: skip

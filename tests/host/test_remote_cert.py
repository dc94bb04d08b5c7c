# ruff: noqa: F811 - pytest fixtures imported by name
"""The page's self-signed certificate names every address it is served at (a second `--host` remakes it), its
files stay 0600, and `--host 0.0.0.0` prints a private LAN address, or one line saying there is none.
127.0.0.2 and 127.0.0.3 stand in for two LAN addresses; the address choice runs on fake interface lists."""

from __future__ import annotations

import os
import socket
import ssl
import stat
from pathlib import Path

import pytest
from tests.host.conftest import runtime_of
from tests.host.remote_fixtures import remote_page  # noqa: F401 - a fixture

from yoke.host.lan import NO_LAN, choose, lan_addresses
from yoke.host.remote_command import _describe

x509 = pytest.importorskip("cryptography.x509")


def _served_names(address: tuple[str, int]) -> tuple[set[str], str]:
    """The subjectAltName of the certificate the live server presents in its handshake, and its SHA-256."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    with socket.create_connection(address, timeout=30) as raw, context.wrap_socket(raw) as tls:
        der = tls.getpeercert(binary_form=True)
    assert der
    cert = x509.load_der_x509_certificate(der)
    alt = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    names = {str(n) for n in alt.get_values_for_type(x509.IPAddress)} | set(
        alt.get_values_for_type(x509.DNSName)
    )
    from yoke.host.tls import fingerprint

    return names, fingerprint(ssl.DER_cert_to_PEM_cert(der))


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_a_second_address_remakes_the_certificate_to_name_it(host_env, project, remote_page):
    first = remote_page(host_env, project, "--host", "127.0.0.2")
    names, served = _served_names(first.address)
    assert "127.0.0.2" in names and "127.0.0.3" not in names
    assert served == first.fingerprint
    first.stop()
    folder = runtime_of(host_env)
    assert _mode(folder / "remote-key.pem") == 0o600 and _mode(folder / "remote-cert.pem") == 0o600

    second = remote_page(host_env, project, "--host", "127.0.0.3")
    names, served = _served_names(second.address)
    assert {"127.0.0.2", "127.0.0.3"} <= names  # the new address, and the old one kept
    assert served == second.fingerprint != first.fingerprint  # a new certificate: the browser asks once more
    assert _mode(folder / "remote-key.pem") == 0o600 and _mode(folder / "remote-cert.pem") == 0o600
    second.stop()

    third = remote_page(host_env, project, "--host", "127.0.0.2")  # covered now: reused, no new warning
    assert _served_names(third.address)[1] == third.fingerprint == second.fingerprint


def test_an_https_public_url_served_directly_is_in_the_certificate(host_env, project, remote_page):
    with socket.socket() as probe:
        probe.bind(("127.0.0.2", 0))
        port = probe.getsockname()[1]
    public = "https://Yoke.Example.Test/"
    page = remote_page(host_env, project, "--host", "127.0.0.2", "--port", str(port), "--public-url", public)
    assert page.url == public
    names, served = _served_names(("127.0.0.2", port))
    assert {"127.0.0.2", "yoke.example.test"} <= names and served == page.fingerprint


def test_the_address_choice_prefers_private_ranges():
    # the outgoing interface (first) is public; a private one is printed before it
    assert choose(["203.0.113.7", "192.168.1.20", "10.1.2.3"]) == ["192.168.1.20", "10.1.2.3", "203.0.113.7"]
    assert choose(["100.64.1.1", "172.20.0.5"])[0] == "172.20.0.5"  # RFC 1918 before carrier-grade NAT
    assert choose(["172.32.0.1", "172.31.0.1"]) == ["172.31.0.1", "172.32.0.1"]  # 172.16/12 exactly
    # never loopback, link-local or IPv6 for 0.0.0.0; for :: a unique local address before a global one
    assert choose(["127.0.1.1", "169.254.3.4", "fd12::5", "192.168.0.9"]) == ["192.168.0.9"]
    assert choose(["2001:db8::1", "fe80::1%eth0", "fd12::5"], ipv6=True) == ["fd12::5", "2001:db8::1"]
    addresses, note = lan_addresses("0.0.0.0", ["203.0.113.7", "10.0.0.4"])
    assert addresses[0] == "10.0.0.4" and addresses[-1] == "127.0.0.1" and note == ""
    assert lan_addresses("127.0.0.2", []) == (["127.0.0.2"], "")


def test_no_lan_address_is_one_line_saying_how_to_name_one():
    addresses, note = lan_addresses("0.0.0.0", ["127.0.0.1", "169.254.9.9"])
    assert addresses == ["127.0.0.1"]  # still served on loopback, the last resort
    assert note == NO_LAN.format(bind="0.0.0.0") and "--host ADDR" in note and "--public-url" in note
    page = {"url": "https://127.0.0.1:4000/", "code": "7KQ2MZ4P", "fingerprint": "AB:CD", "note": note}
    printed = _describe(page, page["url"]).splitlines()
    assert printed[0] == f"Remote control: {note}"  # no loopback URL, and no QR code of one
    assert printed[1].startswith("Pairing code: 7KQ2MZ4P") and len(printed) == 2


def test_planted_links_are_replaced_never_followed(tmp_path, monkeypatch):
    from yoke.host import tls

    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("YOKE_HOST_DIR", str(folder))
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    (folder / "remote-key.pem").symlink_to(victim)
    (folder / "remote-cert.pem").symlink_to(victim)
    old = os.umask(0o022)
    try:
        _, printed = tls.certificate(["127.0.0.2", "Box.Example.Test"])
    finally:
        os.umask(old)
    assert victim.read_text() == "keep me\n"
    for name in ("remote-key.pem", "remote-cert.pem"):
        assert not (folder / name).is_symlink() and _mode(folder / name) == 0o600
    assert set(tls.covered(folder / "remote-cert.pem") or []) == {"127.0.0.2", "box.example.test"}
    # a key that is not the certificate's (a run cut between the two writes) is mended, not served
    (folder / "remote-key.pem").write_bytes(b"")
    assert tls.certificate(["127.0.0.2"])[1] != printed

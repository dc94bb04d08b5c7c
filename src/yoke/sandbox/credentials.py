"""Credentials that never enter the sandbox (Claude Code's `sandbox.credentials`, `mode: "mask"`).

A variable named in `sandbox.credentials.envVars` with `mode: "mask"` is replaced inside the sandbox by a
sentinel (`yoke-masked-<name>-<random>`); `mode: "deny"` removes it. The domain proxy knows each sentinel's
real value and the hosts it may go to (`injectHosts`, else every allowed domain): a CONNECT to such a host
is terminated by the proxy with a certificate of a per-process authority (trusted inside the sandbox
through `SSL_CERT_FILE`, `CURL_CA_BUNDLE`, `REQUESTS_CA_BUNDLE`, `GIT_SSL_CAINFO`, `NODE_EXTRA_CA_CERTS`),
the request head is rewritten with the real value, and the request goes on over TLS to the real host,
whose certificate is verified as usual. To any other host the sentinel goes as it is; plain HTTP never
gets a real value. Only request heads are rewritten (headers and the request line), not bodies.
"""

from __future__ import annotations

import functools
import os
import threading
from typing import TYPE_CHECKING, Any

from yoke.records import FrozenRecord

if TYPE_CHECKING:
    import ssl

MASK, DENY = "mask", "deny"
# Where programs look for the certificate authorities they trust.
CA_VARIABLES = ("SSL_CERT_FILE", "CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "GIT_SSL_CAINFO")
_SYSTEM_BUNDLES = (
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/cert.pem",
)


class MaskedVariable(FrozenRecord):
    """One entry of `sandbox.credentials.envVars`."""

    __slots__ = ("name", "mode", "hosts")
    name: str
    mode: str
    hosts: tuple[str, ...]

    def __init__(self, name: str, mode: str, hosts: tuple[str, ...] = ()) -> None:
        self._fill(name=name, mode=mode, hosts=hosts)


def parse_env_vars(value: Any) -> tuple[MaskedVariable, ...]:
    """`envVars` entries of a valid shape (a name, a mode of mask or deny); others are ignored."""
    out: list[MaskedVariable] = []
    for entry in value if isinstance(value, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            continue
        mode = entry.get("mode", MASK)
        hosts = entry.get("injectHosts")
        if mode in (MASK, DENY):
            clean = tuple(h for h in hosts if isinstance(h, str)) if isinstance(hosts, list) else ()
            out.append(MaskedVariable(entry["name"], mode, clean))
    return tuple(out)


_SENTINELS: dict[str, str] = {}
_LOCK = threading.Lock()


def sentinel(name: str) -> str:
    """The stand-in for variable `name`, the same for the life of the process."""
    import secrets

    with _LOCK:
        if name not in _SENTINELS:
            _SENTINELS[name] = f"yoke-masked-{name.lower()}-{secrets.token_hex(12)}"
        return _SENTINELS[name]


class Authority:
    """A certificate authority made for this process, and the host certificates it signs (cached)."""

    def __init__(self) -> None:
        import atexit
        import datetime
        import shutil
        import tempfile

        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID

        self._x509, self._hashes, self._ec, self._ser, self._oid = x509, hashes, ec, serialization, NameOID
        self.key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Yoke sandbox credential proxy")])
        now = datetime.datetime.now(datetime.UTC)
        self.cert = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(self.key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=7))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(
                x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
            )
            .sign(self.key, hashes.SHA256())
        )
        self.folder = tempfile.mkdtemp(prefix="yoke-credentials-")
        atexit.register(shutil.rmtree, self.folder, True)
        self.ca_file = os.path.join(self.folder, "ca.pem")
        pem = self.cert.public_bytes(serialization.Encoding.PEM)
        _write(self.ca_file, pem)
        system = next((p for p in _SYSTEM_BUNDLES if os.path.isfile(p)), None)
        self.bundle_file = os.path.join(self.folder, "bundle.pem")
        trusted = b""
        if system:
            with open(system, "rb") as found:
                trusted = found.read()
        _write(self.bundle_file, trusted + b"\n" + pem)
        self._contexts: dict[str, ssl.SSLContext] = {}

    def server_context(self, host: str) -> ssl.SSLContext:
        """A TLS server context presenting a certificate for `host` signed by this authority."""
        import datetime
        import ipaddress
        import ssl

        if host in self._contexts:
            return self._contexts[host]
        x509, ser = self._x509, self._ser
        key = self._ec.generate_private_key(self._ec.SECP256R1())
        try:
            san: Any = x509.IPAddress(ipaddress.ip_address(host))
        except ValueError:
            san = x509.DNSName(host)
        now = datetime.datetime.now(datetime.UTC)
        cert = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(self._oid.COMMON_NAME, host[:64])]))
            .issuer_name(self.cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([san]), critical=False)
            .sign(self.key, self._hashes.SHA256())
        )
        path = os.path.join(self.folder, f"host-{len(self._contexts)}.pem")
        key_pem = key.private_bytes(ser.Encoding.PEM, ser.PrivateFormat.PKCS8, ser.NoEncryption())
        _write(path, cert.public_bytes(ser.Encoding.PEM) + key_pem)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(path)
        os.unlink(path)
        self._contexts[host] = context
        return context


@functools.lru_cache(maxsize=1)
def authority() -> Authority:
    return Authority()


def ca_env(auth: Authority) -> dict[str, str]:
    """The variables that make programs inside the sandbox trust the proxy's authority too."""
    return {**dict.fromkeys(CA_VARIABLES, auth.bundle_file), "NODE_EXTRA_CA_CERTS": auth.ca_file}


def _write(path: str, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)

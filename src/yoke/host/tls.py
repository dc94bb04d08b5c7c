"""A self-signed certificate for `yoke remote-control --host ADDR` beyond loopback, in the host's runtime folder
(`remote-cert.pem`, `remote-key.pem`, both 0600 through owned.py). It is reused while its subjectAltName covers
every name the page is served at, so its fingerprint stays the one the user checked; when a name is missing
(another `--host`, a LAN address that changed, an https `--public-url` host) or it nears its end, it is made
again for the names it had and the new ones, and a browser that accepted the old one asks once more."""

from __future__ import annotations

import datetime
import hashlib
import ipaddress
import ssl
import threading
from pathlib import Path
from typing import Any

from yoke.host.owned import read_private, write_private
from yoke.host.paths import runtime_dir

DAYS = 825  # Apple's limit for a TLS server certificate's life (support.apple.com/en-us/103769, 2019)
RENEW_BEFORE = datetime.timedelta(days=7)
MAX_NAMES = 32  # old names kept beside the new ones, so switching between two addresses does not remake it
_LOCK = threading.Lock()  # two pages starting at once in the host make one certificate


class CertificateError(Exception):
    pass


def certificate(names: list[str]) -> tuple[ssl.SSLContext, str]:
    """A server context for a certificate whose subjectAltName covers `names` (IP addresses as IP entries,
    host names as DNS entries), and its SHA-256 fingerprint (colon-separated hex)."""
    folder = runtime_dir()
    cert, key = folder / "remote-cert.pem", folder / "remote-key.pem"
    with _LOCK:
        wanted = list(dict.fromkeys(_normal(n) for n in names))
        held = covered(cert)
        if held is None or not set(wanted) <= set(held):
            kept = [n for n in held or [] if n not in wanted][: max(0, MAX_NAMES - len(wanted))]
            _make(cert, key, wanted + kept)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        try:
            context.load_cert_chain(cert, key)
        except (OSError, ssl.SSLError):  # a key that is not the certificate's (a run cut between the two)
            _make(cert, key, wanted)
            context.load_cert_chain(cert, key)
        return context, fingerprint(read_private(cert))


def covered(cert: Path) -> list[str] | None:
    """The names the certificate at `cert` is good for (normalised), or None when there is none, it cannot
    be read, or it ends within RENEW_BEFORE."""
    try:
        from cryptography import x509
    except ImportError:
        return None
    try:
        found = x509.load_pem_x509_certificate(read_private(cert).encode())
        if found.not_valid_after_utc - RENEW_BEFORE < datetime.datetime.now(datetime.UTC):
            return None
        alt = found.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (OSError, ValueError, x509.ExtensionNotFound):
        return None
    return [_normal(str(n)) for n in alt.get_values_for_type(x509.IPAddress)] + [
        _normal(n) for n in alt.get_values_for_type(x509.DNSName)
    ]


def fingerprint(pem: str) -> str:
    digest = hashlib.sha256(ssl.PEM_cert_to_DER_cert(pem)).hexdigest().upper()
    return ":".join(digest[i : i + 2] for i in range(0, len(digest), 2))


def _make(cert: Path, key: Path, names: list[str]) -> None:
    """A new EC P-256 key and a certificate for `names`, written 0600 (the key first: a certificate is never
    left beside another's key but for a cut run, which `certificate` mends)."""
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
    except ImportError:
        raise CertificateError(
            "serving beyond 127.0.0.1 needs HTTPS, and its certificate needs the `cryptography` package "
            "(pip install 'yoke[remote]')"
        ) from None
    private = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "yoke remote-control")])
    alt: list[Any] = [
        x509.IPAddress(ipaddress.ip_address(n)) if _is_ip(n) else x509.DNSName(n) for n in names
    ]
    now = datetime.datetime.now(datetime.UTC)
    made = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(private.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=DAYS))
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(private, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    write_private(
        key, private.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    write_private(cert, made.public_bytes(pem))


def _normal(name: str) -> str:
    """An address in its one spelling (`::1`, not `0:0::1`), a host name in lower case."""
    try:
        return str(ipaddress.ip_address(name))
    except ValueError:
        return name.lower().rstrip(".")


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True

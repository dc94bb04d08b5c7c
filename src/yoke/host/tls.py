"""A self-signed certificate for `yoke remote-control --host ADDR` beyond loopback: made once by `openssl`
(0600, in the host's runtime folder) and reused, so its fingerprint stays the one the user checked."""

from __future__ import annotations

import hashlib
import ipaddress
import socket
import ssl
import subprocess
from pathlib import Path

from yoke.host.paths import runtime_dir


class CertificateError(Exception):
    pass


def certificate(names: list[str]) -> tuple[ssl.SSLContext, str]:
    """A server context and the certificate's SHA-256 fingerprint (colon-separated hex)."""
    folder = runtime_dir()
    cert, key = folder / "remote-cert.pem", folder / "remote-key.pem"
    if not (cert.exists() and key.exists()):
        _make(cert, key, names)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    return context, fingerprint(cert.read_text())


def fingerprint(pem: str) -> str:
    digest = hashlib.sha256(ssl.PEM_cert_to_DER_cert(pem)).hexdigest().upper()
    return ":".join(digest[i : i + 2] for i in range(0, len(digest), 2))


def _make(cert: Path, key: Path, names: list[str]) -> None:
    alt = ",".join(f"IP:{n}" if _is_ip(n) else f"DNS:{n}" for n in names)
    command = ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
               "-days", "825", "-subj", "/CN=yoke remote-control", "-addext", f"subjectAltName={alt}",
               "-keyout", str(key), "-out", str(cert)]  # fmt: skip
    try:
        from yoke import spawn

        done = spawn.run(command, confine=None, timeout=30)  # Yoke's own certificate, fixed arguments
        if done.returncode != 0:
            raise subprocess.CalledProcessError(done.returncode, command, done.stdout, done.stderr)
    except FileNotFoundError:
        raise CertificateError(
            "serving beyond 127.0.0.1 needs HTTPS, and `openssl` is not installed"
        ) from None
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        raise CertificateError(f"openssl could not make a certificate: {exc}") from None
    key.chmod(0o600)
    cert.chmod(0o600)  # every file in the runtime folder is 0600 (owned.py)


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def lan_addresses(bind: str) -> list[str]:
    """The addresses a browser may use to reach `bind`: itself, or for 0.0.0.0 this machine's own."""
    if bind not in ("0.0.0.0", "::"):
        return [bind]
    found = ["127.0.0.1"]
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 1))  # no packet is sent: this only picks the outgoing interface
        found.insert(0, probe.getsockname()[0])
    except OSError:
        pass
    finally:
        probe.close()
    return list(dict.fromkeys(found))

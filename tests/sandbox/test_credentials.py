"""Credentials that never enter the sandbox (`sandbox.credentials.envVars`, Claude Code's `mode: "mask"`).

A local HTTPS echo server, with a certificate of a test authority, records the Authorization header each
request brought. Inside the sandbox the masked variable holds only a sentinel; the proxy puts the real value
in its place for the host the entry names, and nowhere else; a `deny` entry removes the variable.
"""

from __future__ import annotations

import datetime
import http.server
import ipaddress
import os
import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from yoke.sandbox import SandboxSettings, wrap_command
from yoke.sandbox.credentials import MaskedVariable

pytestmark = [
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed"),
    pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed"),
]
cryptography = pytest.importorskip("cryptography", reason="masking needs the credentials extra")
REAL = "real-secret-value-123"


def _authority_and_server_cert(folder: Path) -> tuple[Path, Path]:
    """A test authority (its certificate file, to trust) and a server certificate for localhost and
    127.0.0.1 signed by it (certificate and key in one file)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test authority")])
    ca = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(1).not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    key = ec.generate_private_key(ec.SECP256R1())
    names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_name).public_key(key.public_key()).serial_number(2)
        .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    ca_file, server_file = folder / "ca.pem", folder / "server.pem"
    ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    server_file.write_bytes(
        cert.public_bytes(serialization.Encoding.PEM)
        + key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return ca_file, server_file


@pytest.fixture
def echo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[int, list[str]]]:
    ca_file, server_file = _authority_and_server_cert(tmp_path)
    seen: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            seen.append(f"{self.headers.get('Host')} {self.headers.get('Authorization')}")
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(server_file)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))  # the proxy verifies the real host against this
    yield server.server_address[1], seen
    server.shutdown()


def test_a_masked_variable_reaches_only_its_host_and_never_the_sandbox(
    tmp_path: Path, echo: tuple[int, list[str]]
) -> None:
    port, seen = echo
    project = tmp_path / "project"
    project.mkdir()
    settings = SandboxSettings(
        enabled=True,
        allowed_domains=("localhost", "127.0.0.1"),
        credential_env=(
            MaskedVariable("MY_TOKEN", "mask", ("localhost",)),
            MaskedVariable("OTHER_KEY", "deny"),
        ),
        base_dir=project,
    )
    env = {**os.environ, "MY_TOKEN": REAL, "OTHER_KEY": "other-secret"}
    script = (
        'echo "inside=$MY_TOKEN other=${OTHER_KEY:-unset}"; '
        f'curl -sS -H "Authorization: Bearer $MY_TOKEN" https://localhost:{port}/a; echo; '
        f'curl -sSk -H "Authorization: Bearer $MY_TOKEN" https://127.0.0.1:{port}/b; echo'
    )
    argv = wrap_command(["bash", "-c", script], settings, project, [project], env=env)
    result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, cwd=project)
    assert REAL not in result.stdout and "other-secret" not in result.stdout
    inside = result.stdout.splitlines()[0]
    assert inside.startswith("inside=yoke-masked-my_token-") and inside.endswith("other=unset"), result
    assert result.stdout.splitlines()[1:] == ["ok", "ok"], result
    sentinel = inside.split()[0].removeprefix("inside=")
    assert seen == [f"localhost:{port} Bearer {REAL}", f"127.0.0.1:{port} Bearer {sentinel}"]


def test_the_settings_block_is_read_as_claude_codes(tmp_path: Path) -> None:
    block = {
        "enabled": True,
        "credentials": {
            "envVars": [
                {"name": "GITHUB_TOKEN", "mode": "mask", "injectHosts": ["api.github.com"]},
                {"name": "NPM_TOKEN", "mode": "deny"},
                {"name": 3},
                {"name": "X", "mode": "something-else"},
            ],
            "files": [
                {"path": "~/.config/tool/token", "mode": "mask"},
                {"path": "./secrets.json", "mode": "deny"},
            ],
        },
    }
    settings = SandboxSettings.from_settings({"sandbox": block}, tmp_path)
    assert settings.credential_env == (
        MaskedVariable("GITHUB_TOKEN", "mask", ("api.github.com",)),
        MaskedVariable("NPM_TOKEN", "deny"),
    )
    assert settings.deny_read == ("~/.config/tool/token", "./secrets.json")  # a file's mask hides it whole

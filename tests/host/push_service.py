"""A local Web Push service and webhook receiver on 127.0.0.1, for the notification tests.

The push service takes a message as a browser's push service would (RFC 8030/8291/8292): it verifies the
VAPID JWT's ES256 signature with the key in the Authorization header (and that key against the one the
subscription was made with), its audience and expiry, checks the aes128gcm headers, and decrypts the body
with the subscriber's private key and auth secret. What it could not verify is kept as an error, never
as a message. An endpoint path ending in `/gone` answers 410, as for a subscription the browser dropped."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Subscriber:
    """The browser's side: an ECDH key pair and an auth secret, as PushManager.subscribe makes them."""

    def __init__(self, endpoint: str):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        self.endpoint = endpoint

    def subscription(self) -> dict[str, Any]:
        raw = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64(raw), "auth": b64(self.auth)},
        }


def verify_vapid(authorization: str, audience: str, expected_key: str) -> dict[str, Any]:
    """The JWT's claims if its signature verifies with `k` and `k` is the expected key; ValueError else."""
    if not authorization.startswith("vapid "):
        raise ValueError(f"not a VAPID authorization: {authorization[:20]!r}")
    fields = dict(part.strip().split("=", 1) for part in authorization[6:].split(","))
    token, key = fields["t"], fields["k"]
    if key != expected_key:
        raise ValueError("signed with another key than the subscription's applicationServerKey")
    head, claims, signature = token.split(".")
    header = json.loads(unb64(head))
    if header.get("alg") != "ES256":
        raise ValueError(f"alg {header.get('alg')}")
    raw = unb64(signature)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(key))
    public.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))  # InvalidSignature
    payload = json.loads(unb64(claims))
    if payload.get("aud") != audience:
        raise ValueError(f"aud {payload.get('aud')} is not {audience}")
    if not time.time() < payload.get("exp", 0) <= time.time() + 86400:
        raise ValueError("exp is not within 24 hours")
    if not str(payload.get("sub", "")).startswith(("mailto:", "https:")):
        raise ValueError("sub is not a mailto: or https: contact")
    return payload


class PushService:
    def __init__(self) -> None:
        self.subscribers: dict[str, Subscriber] = {}
        self.expected_key = ""  # the host's public key (GET /push/key)
        self.received: list[dict[str, Any]] = []  # decrypted payloads, with `at` (time.monotonic)
        self.raw: list[bytes] = []  # every body and header as sent, for "no secret anywhere"
        self.errors: list[str] = []
        self.webhook: list[dict[str, Any]] = []  # {"headers", "body", "at"}
        self.lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with service.lock:
                    service.raw.append(bytes(str(self.headers), "latin-1") + body)
                status = service.take(self.path, self.headers, body)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def subscriber(self, name: str) -> Subscriber:
        self.subscribers[name] = Subscriber(f"{self.base}/push/{name}")
        return self.subscribers[name]

    def take(self, path: str, headers: Any, body: bytes) -> int:
        now = time.monotonic()
        if path.startswith("/hook"):
            with self.lock:
                self.webhook.append({"headers": headers, "body": body, "at": now})
            return 200
        name = path.rsplit("/", 1)[-1]
        if name == "gone":
            return 410
        subscriber = self.subscribers.get(name)
        try:
            if subscriber is None:
                raise ValueError(f"no subscription {name}")
            verify_vapid(headers.get("Authorization", ""), self.base, self.expected_key)
            if headers.get("Content-Encoding") != "aes128gcm":
                raise ValueError(f"Content-Encoding {headers.get('Content-Encoding')}")
            if not headers.get("TTL", "").isdigit():
                raise ValueError("no TTL")
            import http_ece

            plain = http_ece.decrypt(
                body, private_key=subscriber.key, auth_secret=subscriber.auth, version="aes128gcm"
            )
            message = json.loads(plain)
        except Exception as exc:
            with self.lock:
                self.errors.append(f"{type(exc).__name__}: {exc}")
            return 400
        with self.lock:
            self.received.append({**message, "at": now, "to": name, "urgency": headers.get("Urgency")})
        return 201

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

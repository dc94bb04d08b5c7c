"""Random identifiers: UUID4 strings and hex ids, without importing `uuid` (which imports `platform` and
costs a start-up several milliseconds for what is 16 random bytes)."""

from __future__ import annotations

import os


def new_uuid() -> str:
    """A random (version 4) UUID in its canonical form, as `str(uuid.uuid4())`."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
    raw[8] = (raw[8] & 0x3F) | 0x80  # RFC 4122 variant
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def random_hex(length: int) -> str:
    """`length` random hex digits (as `uuid.uuid4().hex[:length]` gave, up to 32)."""
    return os.urandom((length + 1) // 2).hex()[:length]

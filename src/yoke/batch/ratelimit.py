"""A provider rate limiter shared by all of a batch's workers: a token bucket per API key.

Local workers share a bucket through a small state file per key, read and updated under an exclusive lock
(`FileBuckets`); Ray workers ask one actor (`yoke.batch.ray_executor`). Keys are identified by a hash, so no
key is written anywhere. A bucket holds up to `rpm / 6` requests (ten seconds' worth, at least 1) and
refills at `rpm` per minute.
"""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import os
import time
from pathlib import Path
from typing import Any


class TokenBucket:
    """The arithmetic: `take(now)` returns 0 when a request may go now, else the seconds to wait."""

    def __init__(self, rpm: float) -> None:
        self.rate = rpm / 60.0
        self.burst = max(1.0, rpm / 6.0)

    def take(self, tokens: float, stamp: float, now: float) -> tuple[float, float, float]:
        """(wait, tokens left, stamp) for one request given the bucket's state."""
        tokens = min(self.burst, tokens + (now - stamp) * self.rate)
        if tokens >= 1.0:
            return 0.0, tokens - 1.0, now
        return (1.0 - tokens) / self.rate, tokens, now


def key_of(request: Any) -> str:
    """Which bucket a request draws from: a hash of its API key (or bearer token), per endpoint host."""
    from urllib.parse import urlparse

    headers = {k.lower(): v for k, v in (getattr(request, "headers", None) or {}).items()}
    secret = headers.get("x-api-key") or headers.get("authorization") or headers.get("x-goog-api-key") or ""
    host = urlparse(getattr(request, "url", "") or "").netloc
    return hashlib.sha256(f"{host}\n{secret}".encode()).hexdigest()[:16]


class FileBuckets:
    """Token buckets in files under `folder`, one per key, shared by every process that uses the folder."""

    def __init__(self, folder: str | Path, rpm: float) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.bucket = TokenBucket(rpm)

    def wait_for(self, key: str) -> float:
        path = self.folder / f"{key}.bucket"
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            raw = os.pread(fd, 64, 0).decode().split()
            now = time.time()
            tokens, stamp = (float(raw[0]), float(raw[1])) if len(raw) == 2 else (self.bucket.burst, now)
            wait, tokens, stamp = self.bucket.take(tokens, stamp, now)
            if wait == 0.0:
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{tokens:.6f} {stamp:.6f}".encode(), 0)
            return wait
        finally:
            os.close(fd)

    async def gate(self, request: Any) -> None:
        key = key_of(request)
        while True:
            wait = await asyncio.to_thread(self.wait_for, key)
            if wait == 0.0:
                return
            await asyncio.sleep(min(wait, 5.0))

"""Per-key request limits (MEMSPACE_RATE_LIMIT, requests a minute; 0: off): one caller
flooding the server must not slow every other (docs/security.md).

One token bucket per caller: an API key (its id; an upload ticket counts against its key) or an
OAuth client (its client id, whichever key approved it). A bucket holds a minute's worth of
requests and refills continuously, so a caller may burst up to the limit and then goes at the
limit's pace; one noisy caller empties only its own bucket. Over the limit, REST answers 429
with `Retry-After`; MCP tool calls answer the closed-set code `rate_limited` (with
`retryAfter`), so an agent's session survives. Buckets live in the process: behind several
replicas each enforces the limit on the requests it serves.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

MAX_BUCKETS = 100_000


class RateLimiter:
    def __init__(self, per_minute: int, now: Callable[[], float] = time.monotonic) -> None:
        self._capacity = float(per_minute)
        self._rate = per_minute / 60.0  # tokens a second
        self._now = now
        self._buckets: dict[str, tuple[float, float]] = {}  # caller -> (tokens, at)
        self._lock = threading.Lock()

    def take(self, caller: str) -> int:
        """0 when the request may go ahead (a token is spent), else the whole seconds to wait."""
        now = self._now()
        with self._lock:
            tokens, at = self._buckets.get(caller, (self._capacity, now))
            tokens = min(self._capacity, tokens + (now - at) * self._rate)
            if tokens >= 1.0:
                self._buckets[caller] = (tokens - 1.0, now)
                allowed = True
            else:
                self._buckets[caller] = (tokens, now)
                allowed = False
            if len(self._buckets) > MAX_BUCKETS:  # forget the callers whose bucket is full again
                full = now - self._capacity / self._rate
                self._buckets = {k: v for k, v in self._buckets.items() if v[1] > full}
        return 0 if allowed else max(1, math.ceil((1.0 - tokens) / self._rate))

    def waiting(self, caller: str) -> int:
        """The whole seconds `caller` must wait before its next request would go ahead; 0 when
        it may go now. Spends nothing."""
        now = self._now()
        with self._lock:
            tokens, at = self._buckets.get(caller, (self._capacity, now))
        tokens = min(self._capacity, tokens + (now - at) * self._rate)
        return 0 if tokens >= 1.0 else max(1, math.ceil((1.0 - tokens) / self._rate))


class FailedSignIns:
    """Failed authentication, limited per client address and per key prefix (the `msk_xxxxxxxx`
    part a key shows, which names the key being guessed): over MEMSPACE_AUTH_FAILURE_LIMIT
    failures a minute from either, later attempts are refused with 429 and `Retry-After` before
    the credential is even checked, on /mcp, /v1 and the OAuth consent sign-in alike. A request
    with no credential is not a failure (clients discover OAuth that way)."""

    def __init__(self, per_minute: int, now: Callable[[], float] = time.monotonic) -> None:
        self._limiter = RateLimiter(per_minute, now)

    def blocked(self, address: str, credential: str | None) -> int:
        """Seconds before this address (or this key prefix) may try again; 0: it may now."""
        return max(self._limiter.waiting(f"address {address}"),
                   self._limiter.waiting(f"prefix {prefix_of(credential)}") if credential else 0)

    def failed(self, address: str, credential: str | None) -> None:
        self._limiter.take(f"address {address}")
        if credential:
            self._limiter.take(f"prefix {prefix_of(credential)}")


def prefix_of(credential: str) -> str:
    """The part of a credential that names it (`msk_1a2b3c4d`), never its secret part."""
    return credential.strip()[:12]

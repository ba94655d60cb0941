"""Fakes for fast unit tests: a deterministic embedder and a clock that always moves forward."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from memspace.domain.text import words


class HashEmbedder:
    """Bag of hashed words in 384 dimensions: texts sharing words are similar, others are not."""

    dimensions = 384

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        return [self._one(t) for t in texts]

    def _one(self, text: str) -> list[float]:
        vector = [0.0] * self.dimensions
        for word in words(text) or ["empty"]:
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            vector[int.from_bytes(digest[:4], "big") % self.dimensions] += 1.0
            vector[int.from_bytes(digest[4:], "big") % self.dimensions] += 0.5
        norm = math.sqrt(sum(x * x for x in vector))
        return [x / norm for x in vector]


class StepClock:
    """Starts at a fixed instant and advances one millisecond per reading."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, tzinfo=UTC)

    def now(self) -> datetime:
        self._now += timedelta(milliseconds=1)
        return self._now

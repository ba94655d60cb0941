"""An Embedder that can be handed texts ahead of time and embeds them in one batch.

A document's chunks go through the add pipeline one at a time, and each add embeds its chunk
alone. One text per call wastes the model: batched, the same chunks embed several times faster
(bench/bench_ingest.py prints both rates). So ingestion announces the next chunks (`prefetch`),
they are embedded together, and each add then finds its vector here. A text is answered from
here only if it is exactly a prefetched one, so a vector can never belong to another text.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from memspace.domain.embedder import Calibration, Embedder

# Enough for a few windows of prefetched chunks; beyond it the oldest are dropped (and would be
# embedded again on demand, never answered wrongly).
CAPACITY = 1024


class PrefetchingEmbedder:
    def __init__(self, inner: Embedder, capacity: int = CAPACITY) -> None:
        self._inner = inner
        self._capacity = capacity
        self._ready: OrderedDict[str, list[float]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def dimensions(self) -> int:
        return self._inner.dimensions

    @property
    def calibration(self) -> Calibration:
        return self._inner.calibration

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """Queries are never prefetched."""
        return self._inner.embed_queries(texts)

    def prefetch(self, texts: Sequence[str]) -> None:
        """Embed these texts now, in one batch, for the `embed` calls that will ask for them."""
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._ready))
        if not missing:
            return
        vectors = self._inner.embed(missing)
        with self._lock:
            for text, vector in zip(missing, vectors, strict=True):
                self._ready[text] = vector
            while len(self._ready) > self._capacity:
                self._ready.popitem(last=False)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        with self._lock:
            found = {t: self._ready.pop(t) for t in texts if t in self._ready}
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            found.update(zip(missing, self._inner.embed(missing), strict=True))
        return [found[t] for t in texts]

    def warm_up(self) -> None:
        """Load the model now, when the wrapped embedder can (the server does at start)."""
        warm = getattr(self._inner, "warm_up", None)
        if warm is not None:
            warm()

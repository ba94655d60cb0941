"""A keyword search at a point in time (docs/time.md), the same on every store: ranked on the
in-process cache deeper than asked, the store's fetch keeping only the versions the slice
holds, in rank order, the first `limit` — so versions that do not hold are never read in full
and the service needs no second, deeper search."""

from __future__ import annotations

from collections.abc import Callable

from memspace.domain.models import ScoredMemory

# Ranked per hit asked, before the fetch filters by the slice. Keyword scores tie often and
# ties go to the newest memories, which are the ones recorded after an `asOf`: the bench's
# keyword searches at 1.5x `limit` kept fewer than `limit` about half the time.
SLICE_DEPTH = 8

# read(depth) -> (how many the cache ranked, the hits the slice holds, best first, <= limit)
SlicedRead = Callable[[int], tuple[int, list[ScoredMemory]]]


def sliced(read: SlicedRead, limit: int) -> list[ScoredMemory]:
    """The first `limit` hits the slice holds: deeper (4x at a time) only while the cache
    ranked as many as asked and the fetch kept fewer than `limit`."""
    depth = max(1, limit) * SLICE_DEPTH
    while True:
        ranked, hits = read(depth)
        if len(hits) >= limit or ranked < depth:
            return hits[:limit]
        depth *= 4

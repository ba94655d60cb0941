"""Similar memories on save: what a new memory may replace, for the caller to review.

Without a model nothing classifies a new memory against the space, so a saved fact that
contradicts an older one would leave both active. The add's answer lists the closest active
memories instead, with a hint to correct rather than keep both.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memspace.domain.errors import MemspaceError
from memspace.domain.models import Memory, ScoredMemory
from memspace.domain.ports import SearchStore, Vector
from memspace.services.shared import start_read

log = logging.getLogger(__name__)

# An active memory is listed from the embedder's Calibration.similar_on_save (MiniLM's in
# domain/embedder.py, e5's in embeddings/local.py): every replacement and no unrelated pair of
# bench/similar_pairs.py. A related fact on the same subject may show ("Alice owns billing" /
# "billing is written in Go") — it is a hint for the caller to judge, never acted on.
MAX_SIMILAR = 3


@dataclass(frozen=True)
class Similar:
    memory: Memory  # an active memory of the space
    similarity: float  # cosine similarity to `similar_to`
    similar_to: str  # id of the memory just saved


# (space id, embedding, limit, minimum cosine) -> the nearest active memories, best first
Nearest = Callable[[str, Vector, int, float], list[ScoredMemory]]


def known_nearest(hits: Sequence[ScoredMemory]) -> Nearest:
    """A Nearest that answers from `hits`, the space's nearest memories already read (best
    first) for the same embedding: a lookup of up to len(hits) costs no second read."""

    def nearest(space_id: str, embedding: Vector, limit: int,
                min_score: float) -> list[ScoredMemory]:
        return [h for h in hits if h.score >= min_score and h.memory.active][:limit]

    return nearest


def similar_on_save(store: SearchStore, space_id: str, saved: Sequence[Memory],
                    threshold: float, exclude: Sequence[str] = (),
                    nearest: Nearest | None = None) -> list[Similar]:
    """Up to MAX_SIMILAR active memories of the space at or above `threshold` (the embedder's
    Calibration.similar_on_save) to any of `saved` (those themselves and `exclude` left out),
    most similar first. `nearest` reads them (default: the store's `nearest_active`)."""
    find = nearest or store.nearest_active
    skip = {m.id for m in saved} | set(exclude)
    best: dict[str, tuple[float, Memory, str]] = {}
    for memory in saved:
        if memory.embedding is None:
            continue
        hits = find(space_id, memory.embedding, MAX_SIMILAR + len(skip), threshold)
        for hit in hits:
            if hit.memory.id in skip:
                continue
            if hit.score > best.get(hit.memory.id, (-1.0,))[0]:
                best[hit.memory.id] = (hit.score, hit.memory, memory.id)
    ranked = sorted(best.values(), key=lambda b: (-b[0], b[1].id))[:MAX_SIMILAR]
    return [Similar(m, score, new_id) for score, m, new_id in ranked]


def start_similar(store: SearchStore, space_id: str, memory: Memory,
                   threshold: float, nearest: Nearest | None = None) -> Callable[[], list[Similar]]:
    """similar_on_save for one memory about to be written; call the answer once it is. Where
    the store reads beside its writes, the lookup starts now on another thread and runs while
    the write commits. A lookup that fails answers no similar memories (logged): it is a hint,
    and the write it accompanies stands."""

    def lookup() -> list[Similar]:
        try:
            return similar_on_save(store, space_id, [memory], threshold=threshold,
                                   nearest=nearest)
        except MemspaceError as exc:
            log.warning("similar memories of %s not listed: %s", memory.id, exc.message)
            return []

    return start_read(store, lookup)

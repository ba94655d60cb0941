"""The search paths of a space (docs/scaling.md): held in this process's memory (SpaceCache),
or searched on the store's own indexes (ColdSearch, a store's ColdPath)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from memspace.domain.heads import HybridHeads
from memspace.domain.models import HybridHits, MemoryFilter, ScoredMemory
from memspace.domain.ports import Vector


class ColdSearch(Protocol):
    """Searches of a space this process does not hold in memory, answered from the store's
    own indexes with the same result contract as SearchStore's (docs/scaling.md)."""

    def hybrid_search(self, where: MemoryFilter, embedding: Vector, text: str,
                      limit: int) -> HybridHits: ...

    def hybrid_heads(self, where: MemoryFilter, embedding: Vector, text: str,
                     limit: int) -> HybridHeads: ...

    def text_search(self, where: MemoryFilter, text: str, limit: int) -> list[ScoredMemory]: ...

    def keyword_search(self, where: MemoryFilter, keyword: str, limit: int,
                       exact: bool = False) -> list[ScoredMemory]: ...


class ColdPath(ColdSearch, Protocol):
    """A store's cold path: ColdSearch with background work of its own to stop."""

    def close(self) -> None: ...  # stop its background work, if any (before the store closes)

    def prepare(self, space_id: str, starting: Callable[[int], None] | None = None) -> int:
        """What the space's cold searches need, built now (an import's last step): the
        memories covered, 0 if none built; `starting(memories)` is called before a build."""


class SpaceCache(Protocol):
    """Which spaces this process holds in memory (MEMSPACE_CACHE_MB), and their loading."""

    def is_warm(self, space_id: str) -> bool:
        """Whether a search of the space can run on memory (counted as a hit or a miss)."""

    def holds(self, space_id: str) -> bool:
        """Whether the space is held, uncounted (a write deciding where to read from)."""

    def warm_later(self, space_id: str) -> None:
        """Load the space on a background thread; returns at once."""

    def full(self) -> bool:
        """Whether nothing more fits without dropping a space."""

    def limit(self, budget_bytes: int) -> None: ...  # hold at most this (MEMSPACE_CACHE_MB)

    def close(self) -> None:
        """Stop loading: nothing more is queued, and a load under way is waited for (the store
        it reads is closed next)."""

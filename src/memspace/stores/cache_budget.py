"""Which spaces the vector cache (stores/vector_cache.py) may hold: a budget of bytes per
process (MEMSPACE_CACHE_MB), least recently searched out first.

A space is held while the spaces searched since it fit; when a refresh takes the total past
the budget, the least recently used spaces go until it fits again. A space that alone needs
more than the budget is never kept (its rows leave after the search that read them) and is
remembered as too large, so that it is not read whole again only to be dropped: its searches
take the cold path (services/search_paths.py) from then on.

Sizes are estimates of what an entry keeps (stores/vector_cache.py `_SpaceVectors.nbytes`):
its float32 and int8 matrices with their spare capacity, and its postings and vocabularies.
"""

from __future__ import annotations

from collections import OrderedDict

# What a held memory takes at the least: its vector as float32 and as int8, 5 bytes a
# dimension, over 1,000 bytes for any model of 256 dimensions or more (e5-small: 384).
MIN_ROW_BYTES = 1_024


class CacheBudget:
    """Bytes held per space, in the order they were last used (oldest first)."""

    def __init__(self, budget_bytes: int | None) -> None:
        """`budget_bytes`: None holds every space, as before budgets existed."""
        self.budget_bytes = budget_bytes
        self._sizes: OrderedDict[str, int] = OrderedDict()
        self._held = 0
        self._oversize: dict[str, int] = {}  # space -> bytes it needed when last read
        self.hits = 0
        self.misses = 0

    @property
    def held_bytes(self) -> int:
        return self._held

    def used(self, space_id: str, nbytes: int) -> list[str]:
        """The space was just searched and now takes `nbytes`; returns the spaces to drop
        (the space itself when it cannot fit even alone)."""
        self._held += nbytes - self._sizes.pop(space_id, 0)
        self._sizes[space_id] = nbytes
        if self.budget_bytes is None or self._held <= self.budget_bytes:
            return []
        if nbytes > self.budget_bytes:
            self._oversize[space_id] = nbytes
            self.forget(space_id)
            return [space_id]
        victims = []
        while self._held > self.budget_bytes:
            victim, size = self._sizes.popitem(last=False)
            self._held -= size
            victims.append(victim)
        return victims

    def make_room(self, nbytes: int) -> list[str]:
        """Before a load of about `nbytes`: the least recently used spaces to drop now so
        that it fits, rather than after it is read (held both at once, a load would take the
        process up to twice its budget)."""
        victims = []
        while (self.budget_bytes is not None and self._sizes
               and self._held + nbytes > self.budget_bytes):
            victim, size = self._sizes.popitem(last=False)
            self._held -= size
            victims.append(victim)
        return victims

    def forget(self, space_id: str) -> None:
        self._held -= self._sizes.pop(space_id, 0)

    def never_fits(self, space_id: str, memories: int) -> bool:
        """Whether a space of this many memories would need more than the whole budget even
        at MIN_ROW_BYTES a memory; if so it is remembered as too large without being read (a
        read of it whole, only to drop it, would take the process far past its budget)."""
        if self.budget_bytes is None or memories * MIN_ROW_BYTES <= self.budget_bytes:
            return False
        self._oversize[space_id] = memories * MIN_ROW_BYTES
        self.forget(space_id)
        return True

    def too_large(self, space_id: str) -> bool:
        """Whether the space was read once and needed more than the whole budget."""
        return space_id in self._oversize

    def full(self) -> bool:
        """Whether nothing more fits without dropping a space."""
        return self.budget_bytes is not None and self._held >= self.budget_bytes

"""Which spaces the vector cache (stores/vector_cache.py) may hold: a budget of bytes per
process (MEMSPACE_CACHE_MB), least recently searched out first.

A space is held while the spaces searched since it fit; when a refresh takes the total past
the budget, the least recently used spaces go until it fits again. A space that alone needs
more than the budget is never kept (its rows leave after the search that read them) and is
remembered as too large, so that it is not read whole again only to be dropped: its searches
take the cold path (startup/ports.py, build_search_paths) from then on.

Admission: a space not held comes in whenever it fits in the room left. Once the budget is
full, it comes in only if it was searched at least ADMIT_MIN_USES times lately and more often
than every space that would leave for it (`admits`): each search of a space counts, held or
not, and every AGE_EVERY searches the counts are halved, so they follow what is searched now.
Under a skewed workload a plain "least recently used" cache keeps reading spaces searched a few
times, each read pushing out a space searched more, and the reads take the CPU the searches
need.

Sizes are estimates of what an entry keeps (stores/vector_cache.py `_SpaceVectors.nbytes`):
its float32 and int8 matrices with their spare capacity, and its postings and vocabularies.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from memspace.runtime.heap import lean_heap

# Searches between two halvings of the counts `admits` compares, and how many spaces' counts
# are kept at most (the most searched).
AGE_EVERY = 1_000
USES_KEPT = 4_096
# Once spaces would have to leave, a space comes in only after this many searches lately, however
# little the leaving ones were searched: a load costs as much as many cold searches of the space
# (a pass over it in the store and its indexing in process), so a space searched once, most of a
# skewed workload's tail, is not worth one; and each load beside the searches slows them.
ADMIT_MIN_USES = 2
# What a held memory takes at the least: its vector as float32 and as int8, 5 bytes a
# dimension, over 1,000 bytes for any model of 256 dimensions or more (e5-small: 384).
MIN_ROW_BYTES = 1_024


class CacheBudget:
    """Bytes held per space, in the order they were last used (oldest first)."""

    def __init__(self, budget_bytes: int | None) -> None:
        """`budget_bytes`: None holds every space, as before budgets existed."""
        if budget_bytes is not None:
            lean_heap()  # spaces come and go: the pages of their arrays must go with them
        self.budget_bytes = budget_bytes
        self._sizes: OrderedDict[str, int] = OrderedDict()
        self._held = 0
        self._oversize: dict[str, int] = {}  # space -> bytes it needed when last read
        self.hits = 0
        self.misses = 0
        self._uses: dict[str, float] = {}  # space -> searches lately (halved every AGE_EVERY)
        self._searches = 0
        self._uses_lock = threading.Lock()  # searches count from request threads

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

    def searched(self, space_id: str) -> None:
        """A search of the space, held or not."""
        with self._uses_lock:
            self._uses[space_id] = self._uses.get(space_id, 0.0) + 1
            self._searches += 1
            if self._searches < AGE_EVERY:
                return
            self._searches = 0
            halved = {s: n / 2 for s, n in self._uses.items() if n >= 1}
            if len(halved) > USES_KEPT:
                kept = sorted(halved, key=halved.__getitem__, reverse=True)[:USES_KEPT]
                halved = {s: halved[s] for s in kept}
            self._uses = halved

    def uses(self, space_id: str) -> float:
        with self._uses_lock:
            return self._uses.get(space_id, 0.0)

    def admits(self, space_id: str, nbytes: int) -> bool:
        """Whether a space not held, of about `nbytes`, may come in: always while it fits in
        the room left; otherwise only when it was searched more often lately than each space
        that would leave for it (the least recently used, in order, until it fits)."""
        if self.budget_bytes is None:
            return True
        room = self.budget_bytes - self._held
        leaving: list[str] = []
        for victim, size in self._sizes.items():
            if nbytes <= room:
                break
            leaving.append(victim)
            room += size
        if not leaving:
            return True
        with self._uses_lock:
            mine = self._uses.get(space_id, 0.0)
            return mine >= ADMIT_MIN_USES and all(mine > self._uses.get(victim, 0.0)
                                                  for victim in leaving)

    def forget(self, space_id: str) -> None:
        self._held -= self._sizes.pop(space_id, 0)

    def never_fits(self, space_id: str, memories: int, estimate: int = 0) -> bool:
        """Whether a space of this many memories would need more than the whole budget, at
        MIN_ROW_BYTES a memory or at `estimate` bytes in all (at the bytes per memory of the
        spaces held), whichever is more; if so it is remembered as too large without being
        read. Read, it would first push out every space held to make room, then be dropped
        once past the budget: the held spaces lost and a budget's worth read for nothing."""
        needed = max(memories * MIN_ROW_BYTES, estimate)
        if self.budget_bytes is None or needed <= self.budget_bytes:
            return False
        self._oversize[space_id] = needed
        self.forget(space_id)
        return True

    def too_large(self, space_id: str) -> bool:
        """Whether the space was read once and needed more than the whole budget."""
        return space_id in self._oversize

    def full(self) -> bool:
        """Whether nothing more fits without dropping a space."""
        return self.budget_bytes is not None and self._held >= self.budget_bytes

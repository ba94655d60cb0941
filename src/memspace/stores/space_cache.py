"""The search's view of the vector cache (domain.search_paths.SpaceCache): is a space held, and load
it on a background thread after a search found it cold, never inside that search.

One thread per process loads spaces one at a time, in the order they were asked for, resting
between loads so that loading takes at most LOAD_SHARE of its time; a space already waiting,
already held, or known to need more than the whole budget is not queued again. While the
budget has room a space is queued on its first cold search; once it is full, only when it was
searched at least twice lately and more often than the least recently used space held (the
load then checks every space that would leave for it: stores/cache_budget.py `admits`). The
same class serves both stores: the cache and its reads (VectorSource) are the store's own.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable

from memspace.stores.space_vectors import VectorSource
from memspace.stores.vector_cache import VectorCache

log = logging.getLogger(__name__)

# The share of its time the loader spends loading: after a load of t seconds it rests
# t * (1 - LOAD_SHARE) / LOAD_SHARE. A load reads the whole space from the store and indexes it
# in process, CPU the searches beside it need (at a million memories, two replicas at 512 MB
# loaded 67 and 128 spaces in 800 searches each, 42 and 69 s of loading).
LOAD_SHARE = 0.25


class CacheRole:
    """Whether a space is warm, and its loading in the background."""

    def __init__(self, cache: VectorCache, source: VectorSource,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        """`clock`: seconds, what a load took is measured by (tests)."""
        self._clock = clock
        self._cache = cache
        self._source = source
        self._waiting: deque[str] = deque()
        self._queued: set[str] = set()
        self._changed = threading.Condition()
        self._loading: str | None = None
        self._closed = False
        self._thread: threading.Thread | None = None

    @property
    def loading(self) -> str | None:
        """The space being read in right now, if any (bench/bench_scale.py splits the warm
        searches by it)."""
        return self._loading

    def limit(self, budget_bytes: int) -> None:
        self._cache.budget.budget_bytes = budget_bytes

    def holds(self, space_id: str) -> bool:
        """Whether the space is held, not counted as a hit or a miss (a write's check)."""
        return self._cache.holds(space_id)

    def is_warm(self, space_id: str) -> bool:
        warm = self._cache.holds(space_id)
        budget = self._cache.budget
        budget.searched(space_id)
        if warm:
            budget.hits += 1
        else:
            budget.misses += 1
        return warm

    def warm_later(self, space_id: str) -> None:
        if self._cache.budget.too_large(space_id) or not self._cache.would_admit(space_id):
            return  # too large, or searched less than what it would push out
        with self._changed:
            if self._closed or space_id in self._queued:
                return
            self._queued.add(space_id)
            self._waiting.append(space_id)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name="memspace-cache-warmer")
                self._thread.start()
            self._changed.notify_all()

    def full(self) -> bool:
        return self._cache.budget.full()

    def idle(self, timeout_s: float) -> bool:
        """Wait until nothing is waiting or loading (tests, benches); False on timeout."""
        with self._changed:
            return self._changed.wait_for(
                lambda: not self._waiting and self._loading is None, timeout_s)

    def close(self) -> None:
        with self._changed:
            self._closed = True
            self._waiting.clear()
            self._changed.notify_all()
        if self._thread is not None:
            self._thread.join(10.0)

    def _run(self) -> None:
        rest = 0.0
        while True:
            with self._changed:
                # after a load, a rest in proportion (LOAD_SHARE), unless closed meanwhile
                self._changed.wait_for(lambda: self._closed, rest)
                self._changed.wait_for(lambda: self._closed or bool(self._waiting))
                if self._closed:
                    return
                space_id = self._loading = self._waiting.popleft()
            began = self._clock()
            try:
                self._cache.load(self._source, space_id)
            except Exception:  # the store away or the space gone: the next cold hit asks again
                log.warning("loading space %s into the cache failed", space_id, exc_info=True)
            finally:
                rest = (self._clock() - began) * (1 - LOAD_SHARE) / LOAD_SHARE
                with self._changed:
                    self._queued.discard(space_id)
                    self._loading = None
                    self._changed.notify_all()

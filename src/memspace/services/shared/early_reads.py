"""Reads started early, on another thread, while the call that needs them goes on (where the
store allows it).

A read that does not depend on what the call computes first (the similar memories of an add
beside its write, a search's profile beside its ranking) can start on another thread and be
collected when it is needed: its round trip overlaps the embedding, the ranking or the commit
instead of following them. Only where the store reads beside other reads and writes
(`SearchStore.concurrent_reads`); elsewhere the read runs when collected, as before.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from memspace.domain.ports import SearchStore

T = TypeVar("T")


def _new_pool() -> ThreadPoolExecutor:
    # As many as calls run at once; a read queued behind them runs when a thread frees.
    return ThreadPoolExecutor(max_workers=8, thread_name_prefix="memspace-early-read")


_POOL = _new_pool()


# The parent's pool, kept in a forked child: collecting it would finalise what its threads held
# (state they were given, there in the child with no thread left to close it).
_PARENTS: list[ThreadPoolExecutor] = []


def _pool_of_the_child() -> None:
    """A forked process has none of its parent's threads, but a copied pool counts them as its
    own and would queue reads that nothing runs (a pre-forking server, mutmut's child per
    mutant): the child starts a pool of its own."""
    global _POOL
    _PARENTS.append(_POOL)
    _POOL = _new_pool()


os.register_at_fork(after_in_child=_pool_of_the_child)


def start_read(store: SearchStore, read: Callable[[], T]) -> Callable[[], T]:
    """`read` started now on another thread where `store` allows it, else deferred. Call the
    answer once, when the result is needed: it returns what `read` returned or raises what it
    raised."""
    return _POOL.submit(read).result if store.concurrent_reads else read

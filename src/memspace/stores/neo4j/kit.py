"""What a Neo4j store shares with every role object it builds (stores/neo4j/store.py): the
connection (retries, errors turned into domain errors), the writers' turns per space and the
store's in-process vector cache and each space's counts (kept by the writes, read by the
directory's `space_stats`). A role is built over the kit, never over the store's private
attributes."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from memspace.stores.neo4j.connection import Neo4jConnection
from memspace.stores.space_counts import SpaceCounts
from memspace.stores.vector_cache import VectorCache


class SpaceTurns:
    """This process's writers of one space take turns before they reach the server:
    `with turns(space_id): …` around every write transaction of the space.

    Every write transaction of a space locks its Space node first, so they serialise in
    Neo4j anyway; but 16 of them queued on that one lock made Neo4j's deadlock detector
    (Forseti) abort 27 of 320 adds with DeadlockDetected, and one add wait 120 s (16 writers
    of one space, as tests/load/test_concurrent_writes.py runs them). Queued here, at most one transaction per
    space and process waits on the server's lock; other servers sharing the database still
    serialise on the Space node, and a transient error left is retried (connection.py).
    """

    def __init__(self) -> None:
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    @contextmanager
    def __call__(self, space_id: str) -> Iterator[None]:
        with self._guard:
            lock = self._locks.setdefault(space_id, threading.Lock())
        with lock:
            yield


@dataclass(frozen=True)
class Neo4jKit:
    db: Neo4jConnection
    vectors: VectorCache  # a role whose write changes what a search may show drops a space
    turn: SpaceTurns = field(default_factory=SpaceTurns)  # shared by every role's writes
    counts: SpaceCounts = field(default_factory=SpaceCounts)  # memories and relations, by version

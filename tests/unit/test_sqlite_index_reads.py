"""Reads of a few memories or edges on the embedded store go through the rows' own indexes:
their cost does not grow with the space. SQLite, left to itself, preferred the space's index
for a time-sliced search's hits (docs/time.md), a write's relation check and the walk to
neighbours. Counted in SQLite virtual-machine steps, not time, so it holds on a loaded
machine."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from datetime import timedelta
from functools import partial
from itertools import pairwise
from typing import TypeVar

import numpy as np
import pytest

from memspace.domain.bitemporal import TimeSlice
from memspace.domain.models import MemoryFilter
from memspace.domain.ports import WriteBatch
from memspace.stores.sqlite.store import SqliteStore
from tests.support import builders

STEPS_PER_TICK = 100
T = TypeVar("T")


def vector(rng: np.random.Generator) -> list[float]:
    v = rng.standard_normal(384).astype(np.float32)
    return [float(x) for x in v / np.linalg.norm(v)]


@pytest.fixture
def store() -> Iterator[SqliteStore]:
    s = SqliteStore(":memory:")
    yield s
    s.close()


def filled(store: SqliteStore, others: int) -> str:
    """A space of `others` memories without the keyword, and 20 holding it."""
    rng = np.random.default_rng(3)
    space = builders.space()
    store.directory.create_space(space)
    notes = ([builders.memory(space.id, f"note {n} about the harbour crane", vector(rng))
              for n in range(others)]
             + [builders.memory(space.id, f"the ledger balance {n}", vector(rng))
                for n in range(20)])
    store.writes.write(WriteBatch(space.id, notes))
    return space.id


def steps(conn: sqlite3.Connection, call: Callable[[], T]) -> tuple[int, T]:
    """What `call` answers, and the SQLite steps it took on this thread's connection."""
    ticks = 0

    def tick() -> int:
        nonlocal ticks
        ticks += 1
        return 0

    conn.set_progress_handler(tick, STEPS_PER_TICK)
    try:
        answer = call()
    finally:
        conn.set_progress_handler(None, 0)
    return ticks, answer


@pytest.mark.parametrize("at", [
    TimeSlice(as_of=builders.BASE + timedelta(days=3650)),
    TimeSlice(known_at=builders.BASE + timedelta(days=3650)),
])
def test_a_sliced_keyword_search_does_not_read_the_whole_space(store: SqliteStore,
                                                                at: TimeSlice) -> None:
    costs = []
    for others in (50, 3_000):
        space_id = filled(store, others)
        where = MemoryFilter(space_id, at=at)
        assert len(store.search.keyword_search(MemoryFilter(space_id), "ledger", 5)) == 5  # cache warm
        cost, hits = steps(store.kit.db.conn(),
                           partial(store.search.keyword_search, where, "ledger", 5))
        assert len(hits) == 5
        costs.append(cost)
    small, large = costs
    # Reading the 3,000 other memories through the space's index took ~30x the steps.
    assert large <= 2 * small + 5, costs


def test_a_write_with_relations_checks_its_ends_by_id(store: SqliteStore) -> None:
    """The check that a relation's two ends are in the space reads those two memories only."""
    rng = np.random.default_rng(5)
    costs = []
    for others in (50, 3_000):
        space_id = filled(store, others)
        old = builders.memory(space_id, "the crane is serviced monthly", vector(rng))
        store.writes.write(WriteBatch(space_id, [old]))
        new = builders.memory(space_id, "the crane is serviced weekly", vector(rng))
        batch = WriteBatch(space_id, [new], [builders.relation(new, old)])
        costs.append(steps(store.kit.db.conn(), partial(store.writes.write, batch))[0])
    small, large = costs
    assert large <= 2 * small + 5, costs


def chained(store: SqliteStore, links: int) -> tuple[str, list[str]]:
    """A space whose `links` memories each EXTEND the one before, and a short chain apart."""
    rng = np.random.default_rng(7)
    space = builders.space()
    store.directory.create_space(space)
    notes = [builders.memory(space.id, f"step {n} of the rollout", vector(rng))
             for n in range(links)]
    store.writes.write(WriteBatch(space.id, notes, [builders.relation(b, a)
                                              for a, b in pairwise(notes)]))
    apart = [builders.memory(space.id, f"aside {n}", vector(rng)) for n in range(3)]
    store.writes.write(WriteBatch(space.id, apart, [builders.relation(apart[1], apart[0]),
                                             builders.relation(apart[2], apart[1])]))
    return space.id, [m.id for m in apart]


def test_the_walk_to_neighbours_follows_edges_not_the_space(store: SqliteStore) -> None:
    """Two hops from a memory read its edges through the source and target indexes: the same
    work whether the space holds 50 relations or 3,000."""
    costs = []
    for links in (50, 3_000):
        space_id, apart = chained(store, links)
        walk, found = steps(store.kit.db.conn(),
                            partial(store.relations.neighbours, space_id, [apart[0]], 2, 10))
        assert {n.memory.id for n in found} == set(apart[1:])
        one, of_one = steps(store.kit.db.conn(), partial(store.relations.relations_of, space_id, apart[1]))
        among, of_all = steps(store.kit.db.conn(), partial(store.relations.relations_among, space_id, apart))
        assert len(of_one) == len(of_all) == 2
        costs += [walk, one + among]
    walk_small, edges_small, walk_large, edges_large = costs
    assert walk_large <= 2 * walk_small + 5, costs
    assert edges_large <= 2 * edges_small + 5, costs

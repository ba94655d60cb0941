"""A search's reads rehearsed before a server says it is ready (services/search/rehearsal.py):
rounds of cold searches until they stop getting faster or the time is up, reading only, on
both stores. Time here is the test's own: each search takes what the test says it does (in
powers of two, so that the rounds' sums are exact)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import astuple

from memspace.domain.graph_port import GraphStore
from memspace.domain.heads import HybridHeads
from memspace.domain.models import MemoryFilter
from memspace.domain.ports import Vector, WriteBatch
from memspace.domain.search_paths import ColdSearch
from memspace.services.search.rehearsal import ROUND, STEADY_ROUNDS, rehearse
from tests.support import builders as b
from tests.support.fakes import HashEmbedder
from tests.support.stores import cold_search

EMBED = HashEmbedder()
STEP = 2.0 ** -6  # a search's time
WORDS = ("deploy", "rollback", "invoice", "pricing", "latency", "budget", "schema", "replica")


class Timed:
    """The store's cold path on a clock of the test's: a search in round r takes `took(r)`."""

    def __init__(self, cold: ColdSearch, took: Callable[[int], float]) -> None:
        self.cold, self.took, self.now, self.searches = cold, took, 0.0, 0
        self.spaces: set[str] = set()

    def clock(self) -> float:
        return self.now

    def hybrid_heads(self, where: MemoryFilter, embedding: Vector, text: str,
                     limit: int) -> HybridHeads:
        self.now += self.took(self.searches // ROUND)
        self.searches += 1
        self.spaces.add(where.space_id)
        return self.cold.hybrid_heads(where, embedding, text, limit)


def _space(store: GraphStore, n: int = 30) -> str:
    rng = random.Random(7)
    space = b.space("rehearsed")
    store.directory.create_space(space)
    memories = [b.memory(space.id, text, EMBED.embed([text])[0]) for text in (
        " ".join(rng.choice(WORDS) for _ in range(5)) + f" note {i}" for i in range(n))]
    store.writes.write(WriteBatch(space.id, memories, [b.relation(memories[1], memories[0])]))
    store.writes.forget(space.id, memories[2].id, "test", "tester", b.BASE)
    return space.id


def _run(store: GraphStore, took: Callable[[int], float], seconds: float = 60.0,
         spaces: list[str] | None = None):  # type: ignore[no-untyped-def]
    timed = Timed(cold_search(store), took)
    chosen = [s for s in store.directory.list_spaces() if s.id in (spaces or [])]
    done = rehearse(store, timed, chosen, EMBED.dimensions, seconds, timed.clock)  # type: ignore[arg-type]
    return done, timed


def test_rounds_that_stop_getting_faster_end_the_rehearsal(store: GraphStore) -> None:
    space_id = _space(store)
    done, timed = _run(store, lambda _: STEP, spaces=[space_id])
    # the first round is the best; the next STEADY_ROUNDS are no faster
    assert (done.rounds, done.searches, done.steady) == (1 + STEADY_ROUNDS,
                                                         (1 + STEADY_ROUNDS) * ROUND, True)
    assert timed.searches == done.searches and timed.spaces == {space_id}
    assert "stopped getting faster" in done.describe()


def test_rounds_still_getting_faster_go_on_until_the_time_is_up(store: GraphStore) -> None:
    space_id = _space(store)
    done, timed = _run(store, lambda r: 0.01 * 0.8 ** r, seconds=1.0, spaces=[space_id])
    # rounds of 0.4, 0.32, 0.256 and 0.205 s: the fourth starts before the first second is up
    assert (done.rounds, done.steady) == (4, False)
    assert abs(done.seconds - timed.now) < 1e-9 and "time was up" in done.describe()


def test_only_rounds_after_the_best_count_as_steady(store: GraphStore) -> None:
    space_id = _space(store)
    done, _ = _run(store, lambda r: STEP * 0.5 ** min(r, 3), spaces=[space_id])
    assert (done.rounds, done.steady) == (4 + STEADY_ROUNDS, True)


def test_a_rehearsal_reads_and_writes_nothing(store: GraphStore) -> None:
    space_id = _space(store)
    every = MemoryFilter(space_id, include_inactive=True)

    def state() -> tuple[object, ...]:
        memories = store.reads.list_memories(every, 100)
        return (tuple(astuple(m) for m in memories), store.directory.space_stats(space_id),
                tuple(store.relations.neighbours(space_id, [m.id for m in memories], hops=2,
                                                 per_origin=50)))

    before = state()
    done, _ = _run(store, lambda _: STEP, spaces=[space_id])
    assert done.searches > 0 and state() == before


def test_a_store_with_nothing_to_search_is_not_rehearsed(store: GraphStore) -> None:
    empty = b.space("empty")
    store.directory.create_space(empty)
    done, timed = _run(store, lambda _: STEP, spaces=[empty.id])
    assert (done.rounds, done.searches, done.steady, timed.searches) == (0, 0, False, 0)
    assert "no memories to search" in done.describe()

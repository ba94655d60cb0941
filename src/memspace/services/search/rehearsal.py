"""A search's reads run over and over on the store before a server says it is ready.

A server that compiles its code as it runs it (Neo4j's JVM) runs a read path interpreted after
it starts, and spends CPU compiling it as traffic repeats it: at 200,000 memories, the first 800
operations after a Neo4j restart cost its process 57 ms of CPU each, 27 of them compiling,
against ~15 once compiled (docs/scaling.md, "Rehearsing the reads before ready"). A replica
starting beside such a store runs, before /readyz says ready, the reads a search makes on a
space it does not hold (the cold path's ranked lists, then the hits read whole with their
neighbourhoods) over the store's own spaces, with probe vectors and words from each space's
own memories, until a round of them is no longer faster than the best round before it, or its
time is up. Only reads: nothing is written, no space is loaded into the cache. An add's writes
are not rehearsed (they cannot run without writing).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memspace.domain.models import MemoryFilter, Space
from memspace.domain.search_paths import ColdSearch
from memspace.services.search.search_answer import AnswerPorts, Related

# Searches a round: enough that one round's time is not one slow statement's.
ROUND = 40
# Rounds in a row slower than the best before them before the reads count as compiled. Any
# new best counts as still compiling: after a restart a round gets faster by 5-10 % at a time
# for ~10 rounds of 100 searches (200,000 memories), and asking for 10 % at once stopped the
# rehearsal after 6 rounds of 40, half compiled. On a store already compiled (another replica
# started it) the rounds are as fast from the first, and it stops within seconds.
STEADY_ROUNDS = 3
# Spaces searched: a sample, so that a store of many spaces is not read a space at a time
# before the first round. Drawn across sizes, so each of the cold path's ways in runs.
SPACES = 64
# Depth of each ranked list, as a search of ten reads them (services/search/search.py).
DEPTH = 50
HITS = 10
WORDS = 3


@dataclass(frozen=True)
class Rehearsal:
    """What a rehearsal ran: `steady` when it stopped because the rounds stopped getting
    faster, else time ran out (or there was nothing to search)."""

    rounds: int
    searches: int
    seconds: float
    steady: bool

    def describe(self) -> str:
        why = ("the reads stopped getting faster" if self.steady else
               "time was up" if self.rounds else "no memories to search")
        return (f"{self.searches} searches in {self.rounds} rounds, {self.seconds:.1f} s "
                f"({why})")


def rehearse(store: AnswerPorts, cold: ColdSearch, spaces: Sequence[Space], dimensions: int,
             seconds: float, clock: Callable[[], float] = time.perf_counter) -> Rehearsal:
    """Rounds of ROUND searches on the cold path until STEADY_ROUNDS in a row are slower than
    the best round before them, or `seconds` have passed."""
    began = clock()
    deadline = began + seconds
    rng = random.Random(0)  # the same probes at every start: a rehearsal is repeatable
    targets = _targets(store, spaces, rng) if seconds > 0 else []
    rounds = searches = slower = 0
    best = math.inf
    while targets and slower < STEADY_ROUNDS and clock() < deadline:
        started = clock()
        for _ in range(ROUND):
            space_id, words = rng.choice(targets)
            _search(store, cold, space_id, _probe(rng, dimensions),
                    " ".join(rng.choices(words, k=WORDS)))
            searches += 1
        took = clock() - started
        rounds += 1
        slower = 0 if took < best else slower + 1
        best = min(best, took)
    return Rehearsal(rounds, searches, clock() - began, slower >= STEADY_ROUNDS)


def _targets(store: AnswerPorts, spaces: Sequence[Space], rng: random.Random
             ) -> list[tuple[str, list[str]]]:
    """Up to SPACES spaces holding memories, each with words of its newest memories."""
    chosen = rng.sample(list(spaces), min(SPACES, len(spaces)))
    targets = []
    for space in chosen:
        newest = store.reads.list_memories(MemoryFilter(space.id), 3)
        words = [w for m in newest for w in m.content.split() if w.isalnum()]
        if words:
            targets.append((space.id, words))
    return targets


def _probe(rng: random.Random, dimensions: int) -> list[float]:
    """A random unit vector: a query's vector without the model (which may still be loading)."""
    vector = [rng.gauss(0.0, 1.0) for _ in range(dimensions)]
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector]


def _search(store: AnswerPorts, cold: ColdSearch, space_id: str, vector: list[float],
            words: str) -> None:
    """The reads of one cold hybrid search of ten: its ranked lists, then its hits read whole
    with their neighbourhoods (a lean search's answer reads: services/search/search.py)."""
    heads = cold.hybrid_heads(MemoryFilter(space_id), vector, words, DEPTH)
    ids = list(dict.fromkeys(h.memory.id for h in [*heads.by_vector, *heads.by_text]))[:HITS]
    if ids and Related(store, space_id).with_hits(ids) is None:
        store.reads.get_memories(space_id, ids)  # a store without the one read reads them so

"""What a search's answer reads after its ranking, on Neo4j: the memories shown, their
neighbourhoods and the ids sharing their short-id heads, as the three statements they were
(get_memories, neighbours, ids_with_prefix) against the one statement that reads them now
(MemoryReadStore.answer_reads). Ten memories of each of 20 spaces of a kept bench_scale load,
rounds alternated; the server's CPU from /proc, the client's as this thread's CPU. The server
must run on this machine. Prints; asserts nothing.

Usage: answer_reads.py --neo4j-uri bolt://127.0.0.1:7699 --run RUN [--rounds 30] [--pairs 6]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_scale import port_of, process_cpu, store_pid  # noqa: E402

from memspace.domain.models import MemoryFilter  # noqa: E402
from memspace.services.search.search_answer import RELATED_HOPS, RELATED_PER_HIT  # noqa: E402
from memspace.services.shared import HEAD_READ, SHORT_ID_CHARS  # noqa: E402
from memspace.stores.neo4j import Neo4jStore  # noqa: E402

SPACES, HITS = 20, 10


def measure(pid: int, name: str, rounds: int, searches: int, call: Callable[[], None]) -> None:
    used, client, began = process_cpu(pid), time.thread_time(), time.perf_counter()
    for _ in range(rounds):
        call()
    n = rounds * searches
    print(f"  {name:12s} store {1000 * (process_cpu(pid) - used) / n:5.2f} ms, client "
          f"{1000 * (time.thread_time() - client) / n:5.2f} ms, wall "
          f"{1000 * (time.perf_counter() - began) / n:5.2f} ms a search", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--neo4j-uri", default="bolt://127.0.0.1:7699")
    parser.add_argument("--run", required=True, help="a kept bench_scale run")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--pairs", type=int, default=6)
    args = parser.parse_args()
    print(f"$ {' '.join([Path(sys.executable).name, *sys.argv])}")
    pid, store = store_pid(port_of(args.neo4j_uri)), Neo4jStore(args.neo4j_uri)
    spaces = [s for s in store.directory.list_spaces() if s.slug.startswith(f"scale-{args.run}-")]
    rng = random.Random(1)
    picks = []
    for space in rng.sample(spaces, min(SPACES, len(spaces))):
        ids = [m.id for m in store.reads.list_memories(MemoryFilter(space.id), 40)]
        picks.append((space.id, rng.sample(ids, min(HITS, len(ids)))))
    reads, relations = store.reads, store.relations

    def three() -> None:
        for space_id, ids in picks:
            reads.get_memories(space_id, ids)
            near = relations.neighbours(space_id, ids, hops=RELATED_HOPS,
                                        per_origin=RELATED_PER_HIT)
            named = ids + [n.memory.id for n in near]
            reads.ids_with_prefix(space_id, sorted({i[:SHORT_ID_CHARS] for i in named}),
                                  HEAD_READ)

    def one() -> None:
        for space_id, ids in picks:
            reads.answer_reads(space_id, ids, RELATED_HOPS, RELATED_PER_HIT, SHORT_ID_CHARS,
                               HEAD_READ)

    for _ in range(3):  # plans cached, paths compiled
        three()
        one()
    print(f"{len(picks)} spaces, {HITS} memories each, {args.rounds} rounds a measure")
    for _ in range(args.pairs):
        measure(pid, "three reads", args.rounds, len(picks), three)
        measure(pid, "one read", args.rounds, len(picks), one)
    store.close()


if __name__ == "__main__":
    main()

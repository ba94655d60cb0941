"""Store-level figures, SQLite beside Neo4j on the same data in the same run. Prints only.

Usage: bench_stores.py [--sizes 10000 100000] [--queries 200] [--neo4j bolt://127.0.0.1:7687]
Each store is also reopened on its data (a restarted server) and timed to its first search.
Texts are the synthetic sentences of bench_service.py; embeddings are synthetic unit vectors
clustered by topic (so the figures measure the stores, not the embedding model, whose
throughput bench_service.py reports). Without --neo4j (or MEMSPACE_NEO4J_URI) only SQLite runs.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_service import SUBJECTS, THINGS, VERBS, pct, sentence  # noqa: E402

from memspace.domain.graph_port import GraphStore  # noqa: E402
from memspace.domain.models import Memory, MemoryFilter, Relation, RelationType, Space  # noqa: E402
from memspace.domain.ports import WriteBatch  # noqa: E402
from memspace.domain.text import content_hash  # noqa: E402
from memspace.services.search.ranking import blend  # noqa: E402
from memspace.services.shared.clock import SystemClock  # noqa: E402

DIMS = 384
TOPICS = 500
BATCH = 1_000


def vectors(n: int, rng: np.random.Generator) -> np.ndarray:
    centres = rng.normal(size=(TOPICS, DIMS)).astype(np.float32)
    out = centres[rng.integers(0, TOPICS, n)] + 0.6 * rng.normal(size=(n, DIMS)).astype(np.float32)
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def load(store: GraphStore, space: Space, texts: list[str], vecs: np.ndarray) -> float:
    """Bulk write in batches of BATCH, every tenth memory EXTENDS the one before; memories/s."""
    clock = SystemClock()
    started = time.perf_counter()
    previous: Memory | None = None
    for start in range(0, len(texts), BATCH):
        batch, relations = [], []
        for i in range(start, min(start + BATCH, len(texts))):
            memory = Memory(uuid.uuid4().hex, space.id, texts[i], "fact", vecs[i].tolist(), True,
                            clock.now(), "bench", content_hash(texts[i]))
            if previous is not None and i % 10 == 0:
                relations.append(Relation(memory.id, previous.id, RelationType.EXTENDS,
                                          memory.created_at, "bench"))
            batch.append(memory)
            previous = memory
        store.writes.write(WriteBatch(space.id, batch, relations))
    return len(texts) / (time.perf_counter() - started)


def timed(fn: Callable[[], object], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        out.append((time.perf_counter() - started) * 1000)
    return out


def run(name: str, store: GraphStore, size: int, queries: int, seed: int,
        reopen: Callable[[], GraphStore]) -> None:
    rng = random.Random(seed)
    texts = [sentence(rng, n) for n in range(size)]
    vecs = vectors(size, np.random.default_rng(seed))
    space = Space(uuid.uuid4().hex, f"bench-{uuid.uuid4().hex[:8]}", "bench", "",
                  SystemClock().now(), SystemClock().now())
    store.directory.create_space(space)
    rate = load(store, space, texts, vecs)
    where = MemoryFilter(space.id)
    probes = vectors(queries, np.random.default_rng(seed + 1))
    words = [f"who {rng.choice(VERBS)} the {rng.choice(SUBJECTS)} {rng.choice(THINGS)}"
             for _ in range(queries)]
    started = time.perf_counter()
    store.search.vector_search(where, probes[0].tolist(), 10)
    cold = (time.perf_counter() - started) * 1000
    it = iter(range(10**9))

    def vector() -> object:
        return store.search.vector_search(where, probes[next(it) % queries].tolist(), 10)

    def hybrid(expand: bool) -> Callable[[], object]:
        def go() -> object:
            i = next(it) % queries
            probe = probes[i].tolist()
            hits = store.search.hybrid_search(where, probe, words[i], 50)
            fused = blend(hits.by_vector, hits.by_text, words[i], hits.cosines,
                          hits.text_scores)[:10]
            if expand:
                store.relations.neighbours(space.id, [r.memory.id for r in fused], hops=2, per_origin=5)
            return fused
        return go

    # a restarted server: a new store object on the same data, its vectors from the snapshot
    # the first one saved when it loaded them (stores/vector_snapshot.py)
    again = reopen()
    try:
        started = time.perf_counter()
        again.search.vector_search(where, probes[0].tolist(), 10)
        restarted = (time.perf_counter() - started) * 1000
    finally:
        again.close()
    print(f"{name:7s} {size:>8,}  load {rate:7.0f}/s  cold first search {cold:8.1f} ms  "
          f"after a restart {restarted:8.1f} ms")
    for label, fn in (("vector", vector), ("hybrid", hybrid(False)),
                      ("hybrid + 2-hop", hybrid(True))):
        times = timed(fn, queries)
        print(f"{'':17s}{label:16s} p50 {statistics.median(times):7.2f} ms   "
              f"p95 {pct(times, 0.95):7.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--neo4j", default=os.environ.get("MEMSPACE_NEO4J_URI"))
    args = parser.parse_args()
    from memspace.stores.sqlite import SqliteStore

    print(f"cores: {os.cpu_count()}   queries per figure: {args.queries}")
    for size in args.sizes:
        folder = Path(tempfile.mkdtemp())  # one database and snapshot folder per size
        stores: list[tuple[str, Callable[[], GraphStore]]] = [
            ("sqlite", lambda folder=folder: SqliteStore(folder / "bench.db"))]
        if args.neo4j:
            from memspace.stores.neo4j import Neo4jStore

            stores.append(("neo4j", lambda folder=folder: Neo4jStore(
                args.neo4j, snapshot_dir=folder / "neo4j-vectors")))
        for name, make in stores:
            store = make()
            try:
                run(name, store, size, args.queries, seed=size, reopen=make)
            finally:
                store.close()

if __name__ == "__main__":
    main()

"""Keyword search of a large cold space on Neo4j: Lucene's fuzzy terms find the candidates
(stores/neo4j/cold.py) against the pass over every row of the space it replaced, in one run,
interleaved. Memories are written straight to the store with a hashing embedder (vectors play
no part in a keyword search); the space is deleted after.

    PYTHONPATH=src .venv/bin/python bench/cold_keyword.py --memories 20000 --searches 40 \
        --neo4j bolt://127.0.0.1:7687
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from bench_service import PEOPLE, THINGS, pct, sentence  # noqa: E402
from tests.support import builders  # noqa: E402
from tests.support.fakes import HashEmbedder  # noqa: E402

from memspace.domain.models import MemoryFilter  # noqa: E402
from memspace.domain.ports import WriteBatch  # noqa: E402
from memspace.startup.adapters import build_store  # noqa: E402
from memspace.startup.settings import Settings  # noqa: E402
from memspace.stores.cold_search import ScanSearch  # noqa: E402
from memspace.stores.neo4j import cold  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memories", type=int, default=20_000)
    parser.add_argument("--searches", type=int, default=40)
    parser.add_argument("--neo4j", default="bolt://127.0.0.1:7687")
    args = parser.parse_args()
    store = build_store(Settings(_env_file=None, store="neo4j",  # type: ignore[call-arg]
                                 neo4j_uri=args.neo4j))
    embed, rng = HashEmbedder(), random.Random(3)
    space = builders.space("cold-keyword")
    store.directory.create_space(space)
    try:
        start = time.perf_counter()
        for first in range(0, args.memories, 2_000):
            texts = [sentence(rng, n) for n in range(first, min(args.memories, first + 2_000))]
            store.writes.write(WriteBatch(space.id, [builders.memory(space.id, t, v)
                                              for t, v in zip(texts, embed.embed(texts),
                                                              strict=True)]))
        print(f"loaded {args.memories:,} memories in {time.perf_counter() - start:.0f} s",
              flush=True)
        store.kit.db.driver.execute_query(  # type: ignore[attr-defined]
            "CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()")
        search = cold.Neo4jColdSearch(store.kit.db)  # type: ignore[attr-defined]
        times: dict[str, list[float]] = {"lucene candidates": [], "pass over the rows": []}
        same, held = 0, []
        for _ in range(args.searches):
            # a plural (a typo variant of the stored word) and a name: two words, both required
            keyword = f"{rng.choice(THINGS)}s {rng.choice(PEOPLE).lower()}"
            found = {}
            for name in rng.sample(list(times), 2):
                began = time.perf_counter()
                hits = (search.keyword_search(MemoryFilter(space.id), keyword, 10)
                        if name.startswith("lucene") else
                        ScanSearch.keyword_search(search, MemoryFilter(space.id), keyword, 10))
                times[name].append((time.perf_counter() - began) * 1000)
                found[name] = [h.memory.id for h in hits]
            same += len(set(found["lucene candidates"]) & set(found["pass over the rows"]))
            held.append(len(ScanSearch.keyword_search(search, MemoryFilter(space.id), keyword,
                                                      args.memories)))
        print(f"cold keyword search, a space of {args.memories:,} on Neo4j, "
              f"{args.searches} searches each:")
        for name, values in times.items():
            print(f"  {name:20s} p50 {statistics.median(values):7.1f} ms   "
                  f"p95 {pct(values, 0.95):7.1f} ms")
        # Most keywords match dozens of memories at near-equal scores, and each path scores
        # with the statistics of what it read (the candidates, or 5,000-row chunks): which of
        # the tied ones make the top 10 differs.
        print(f"  top 10 in common: {same / (10 * args.searches):.2f} (memories holding the "
              f"keyword: median {statistics.median(held):.0f})")
    finally:
        with store.kit.db.driver.session() as session:  # type: ignore[attr-defined]
            session.run("MATCH (m:Memory {spaceId: $s}) CALL (m) { DETACH DELETE m } "
                        "IN TRANSACTIONS OF 5000 ROWS", s=space.id).consume()
            session.run("MATCH (s:Space {id: $s}) DETACH DELETE s", s=space.id).consume()
        store.close()


if __name__ == "__main__":
    main()

"""The Neo4j server's own CPU per call of the cold path's heaviest reads, each alone in a loop on
a kept bench_scale load (docs/scaling.md, "The store's own CPU, statement by statement"): a
small space read whole (with and without its vectors, and scored inside Neo4j instead), the
candidates' fetch (whole, or heads and the first ten whole), and a large space's own vector
index at k = 200 and 100 (and at 200 a record per candidate, as it was read before). The
server must run on this machine (its CPU is read from /proc). Prints; asserts nothing.

Usage: store_statements.py --neo4j-uri bolt://127.0.0.1:7699 --run RUN [--calls 150]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_scale import port_of, process_cpu, store_pid  # noqa: E402

from memspace.stores.cold_scan import HYBRID, TEXT, VECTOR  # noqa: E402
from memspace.stores.neo4j.connection import Neo4jConnection  # noqa: E402
from memspace.stores.neo4j.cypher import cold, memories, search  # noqa: E402

# Every vector of a small space scored inside Neo4j, the terms beside (the alternative measured).
COSINE_IN_NEO4J = """
MATCH (m:Memory) WHERE m.spaceId = $space AND m.seq > $after AND m.seq <= $upto
RETURN collect([m.seq, CASE WHEN m.embedding IS NULL THEN m.vector
                            ELSE vector.similarity.cosine(m.embedding, $vector) END,
                m.category, coalesce(m.terms, ''), m.active]) AS rows
"""

# The index's candidates a record each, as the cold path read them before it read one record.
A_RECORD_EACH = """
CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node AS m, score
WITH m, score WHERE m.spaceId = $space
RETURN m.seq AS seq, m.category AS category, m.active AS active, score
ORDER BY score DESC
"""


def measure(pid: int, calls: int, name: str, call: Callable[[], object]) -> None:
    for _ in range(max(20, calls // 5)):  # the plan cached, the path compiled
        call()
    used, client, began = process_cpu(pid), time.process_time(), time.perf_counter()
    for _ in range(calls):
        call()
    print(f"  {name:40s} store {1000 * (process_cpu(pid) - used) / calls:6.2f} ms, client "
          f"{1000 * (time.process_time() - client) / calls:5.2f} ms, wall "
          f"{1000 * (time.perf_counter() - began) / calls:6.2f} ms a call")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--neo4j-uri", default="bolt://127.0.0.1:7699")
    parser.add_argument("--run", required=True, help="a kept bench_scale run (--load-only)")
    parser.add_argument("--calls", type=int, default=150)
    args = parser.parse_args()
    print(f"$ {' '.join([Path(sys.executable).name, *sys.argv])}")
    pid, db = store_pid(port_of(args.neo4j_uri)), Neo4jConnection(args.neo4j_uri, "neo4j", None,
                                                                   None, 5.0, 5.0)
    prefix = f"scale-{args.run}-"
    [small] = db.read("MATCH (s:Space) WHERE s.slug STARTS WITH $p AND s.seq >= 900 AND "
                      "s.seq <= 1500 RETURN s.id AS id, s.seq AS seq LIMIT 1", p=prefix)
    rng, seqs = random.Random(3), range(1, int(small["seq"]) + 1)
    query = np.random.default_rng(1).standard_normal(384).astype(np.float32)
    vector = (query / np.linalg.norm(query)).tolist()
    whole = dict(space=small["id"], after=0, upto=small["seq"])
    print(f"a small space read whole ({small['seq']:,} rows):")
    for name, statement, extra in (("vectors and terms (the cold pass)", cold.ROWS_IN_RANGE[HYBRID], {}),
                                   ("terms alone", cold.ROWS_IN_RANGE[TEXT], {}),
                                   ("vectors alone", cold.ROWS_IN_RANGE[VECTOR], {}),
                                   ("scored inside Neo4j, terms beside", COSINE_IN_NEO4J,
                                    {"vector": vector})):
        measure(pid, args.calls, name, lambda s=statement, e=extra: db.read(s, **whole, **e))
    [row] = db.read(search.MEMORIES_BY_SEQ, space=small["id"], seqs=list(seqs)[:500])
    ids = [m["id"] for _, m in row["rows"]]
    print("the candidates' fetch (100 of them):")
    fetch = {
        "100 whole": lambda: db.read(search.MEMORIES_BY_SEQ, space=small["id"],
                                     seqs=rng.sample(seqs, 100)),
        "100 heads": lambda: db.read(search.HEADS_BY_SEQ, space=small["id"],
                                     seqs=rng.sample(seqs, 100)),
        "10 whole by id": lambda: db.read(memories.GET_MEMORIES, space=small["id"],
                                          ids=rng.sample(ids, 10)),
    }
    for name, call in fetch.items():
        measure(pid, args.calls, name, call)
    own = db.read("MATCH (s:Space) WHERE s.slug STARTS WITH $p AND s.vectorIndexReady "
                  "RETURN s.id AS id, s.seq AS seq, s.vectorIndex AS index ORDER BY s.seq DESC "
                  "LIMIT 2", p=prefix)
    for space in own:
        print(f"an own vector index ({space['seq']:,} memories):")
        for k, statement, how in ((200, cold.BY_VECTOR_INDEX, ""), (100, cold.BY_VECTOR_INDEX, ""),
                                  (200, A_RECORD_EACH, ", a record each")):
            measure(pid, args.calls, f"k = {k}{how}", lambda s=space, k=k, q=statement: db.read(
                q, index=s["index"], k=k, space=s["id"],
                vector=[float(x) for x in np.random.default_rng(k).standard_normal(384)]))
    db.close()


if __name__ == "__main__":
    main()

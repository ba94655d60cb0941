"""What the cold path's full-text index over index terms (`memory_index_terms`,
stores/neo4j/schema.py) costs Neo4j's writes: the same writes with the index and without it,
alternated in rounds, in one run. Prints; asserts nothing (docs/scaling.md reads its figures).

Usage: index_terms_cost.py --neo4j-uri bolt://... [--rounds 3] [--batches 10] [--adds 100]

Use a Neo4j of its own: each round drops the index and creates it again (a repopulation of
every memory the database holds). Per round and mode, in a new space:
- `--batches` batches of 500 memories through the store's write role (stand-in vectors, texts
  from a fixed vocabulary), timed until the full-text indexes have caught up (the index is
  eventually consistent: its work happens after the commit, so the commit alone would hide it);
- `--adds` single-memory writes, one at a time, as an add makes them: p50 / p95 of each write.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from memspace.domain.models import Memory  # noqa: E402
from memspace.domain.ports import WriteBatch  # noqa: E402
from memspace.domain.text import content_hash  # noqa: E402
from memspace.startup.container import build  # noqa: E402
from memspace.startup.settings import Settings  # noqa: E402
from memspace.stores.neo4j import schema  # noqa: E402

BATCH = 500
WORDS = [f"{a}{b}" for a in ("ka", "lo", "mi", "ren", "sa", "tor", "vel", "qui", "dan", "por")
         for b in ("bel", "nix", "ora", "tem", "gal", "fid", "mur", "sel", "ux", "zu")]


def memories(space_id: str, count: int, rng: random.Random,
             vectors: np.random.Generator) -> list[Memory]:
    block = vectors.standard_normal((count, 384)).astype(np.float32)
    block /= np.linalg.norm(block, axis=1, keepdims=True)
    now = datetime.now(UTC)
    out = []
    for n in range(count):
        text = " ".join(rng.choices(WORDS, k=rng.randint(6, 14))) + f" note {n}"
        out.append(Memory(id=uuid.uuid4().hex, space_id=space_id, content=text,
                          category="general", embedding=block[n].tolist(), active=True,
                          created_at=now, created_by="bench", content_hash=content_hash(text)))
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--neo4j-uri", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batches", type=int, default=10)
    parser.add_argument("--adds", type=int, default=100)
    args = parser.parse_args()
    print(f"$ python {' '.join(sys.argv)}")
    app = build(Settings(_env_file=None, data_dir=Path(tempfile.mkdtemp()),  # type: ignore[call-arg]
                         store="neo4j", neo4j_uri=args.neo4j_uri, llm_model=""))
    driver = app.store.kit.db.driver  # type: ignore[attr-defined]
    [create] = [s for s in schema.STATEMENTS if f"INDEX {schema.COLD_TERMS_INDEX} " in s]
    rng, vectors = random.Random(39), np.random.default_rng(39)
    rates: dict[str, list[float]] = {"with": [], "without": []}
    adds: dict[str, list[float]] = {"with": [], "without": []}
    for n in range(args.rounds):
        for mode in ("without", "with") if n % 2 else ("with", "without"):
            if mode == "with":
                driver.execute_query(create)
            else:
                driver.execute_query(f"DROP INDEX {schema.COLD_TERMS_INDEX} IF EXISTS")
            driver.execute_query("CALL db.awaitIndexes(600)")
            app.store.flush_vector_index(600.0)  # type: ignore[attr-defined]
            space = app.admin.create_space(f"terms-cost-{uuid.uuid4().hex[:8]}")
            began = time.perf_counter()
            for _ in range(args.batches):
                app.store.writes.write(WriteBatch(space.id, memories(space.id, BATCH, rng,
                                                                     vectors)))
            app.store.flush_vector_index(600.0)  # type: ignore[attr-defined]
            rates[mode].append(args.batches * BATCH / (time.perf_counter() - began))
            for _ in range(args.adds):
                [one] = memories(space.id, 1, rng, vectors)
                began = time.perf_counter()
                app.store.writes.write(WriteBatch(space.id, [one]))
                adds[mode].append((time.perf_counter() - began) * 1000)
            print(f"round {n + 1} {mode:7s}: {rates[mode][-1]:,.0f} memories/s in batches, "
                  f"single write p50 {statistics.median(adds[mode][-args.adds:]):.1f} ms")
    driver.execute_query(create)
    app.close()
    for mode in ("with", "without"):
        print(f"{mode:7s} the index: batches {statistics.median(rates[mode]):,.0f} memories/s "
              f"(median of rounds), single writes p50 {pct(adds[mode], 0.5):.1f} ms, "
              f"p95 {pct(adds[mode], 0.95):.1f} ms")
    rate = statistics.median(rates["with"]) / statistics.median(rates["without"])
    print(f"ratio with/without: batch rate {rate:.2f}, "
          f"single write p50 {pct(adds['with'], 0.5) / pct(adds['without'], 0.5):.2f}, "
          f"p95 {pct(adds['with'], 0.95) / pct(adds['without'], 0.95):.2f}")


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    main()

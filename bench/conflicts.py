"""What the conflict queue costs a read (docs/conflicts.md): on a space of N memories (random
unit vectors written straight to the store: no model is measured) with K open conflicts of four
kinds, p50/p95 of `list_conflicts` (one page of 20), of the count whoAmI and get_context show,
and of get_context with and without that count, in alternating rounds of one run (a busy
machine shifts both alike: read the ratio).

    PYTHONPATH=src .venv/bin/python bench/conflicts.py [--memories 10000] [--rounds 40]
    PYTHONPATH=src .venv/bin/python bench/conflicts.py --neo4j bolt://127.0.0.1:7687
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from memspace.domain.models import Memory, Relation, RelationType
from memspace.domain.ports import WriteBatch
from memspace.domain.text import content_hash
from memspace.embeddings.local import LocalEmbedder
from memspace.services.access.access import AccessService
from memspace.services.memories.conflict_recorder import ConflictRecorder
from memspace.services.shared.clock import SystemClock, new_id
from memspace.startup.container import build
from memspace.startup.settings import Settings

OPERATOR = AccessService.operator()


def timed(work: Callable[[], object], rounds: int) -> tuple[float, float]:
    took = []
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        took.append((time.perf_counter() - start) * 1000)
    took.sort()
    return statistics.median(took), took[int(0.95 * (len(took) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--neo4j", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        settings = (Settings(_env_file=None, store="neo4j", neo4j_uri=args.neo4j,  # type: ignore[call-arg]
                             data_dir=Path(folder)) if args.neo4j
                    else Settings(_env_file=None, data_dir=Path(folder)))  # type: ignore[call-arg]
        embedder = LocalEmbedder()
        app = build(settings, embedder=embedder)
        try:
            run(app, embedder.dimensions, args.memories, args.rounds,
                "neo4j" if args.neo4j else "sqlite")
        finally:
            app.close()


def run(app, dims: int, n: int, rounds: int, store: str) -> None:  # type: ignore[no-untyped-def]
    slug = f"queue-bench-{uuid.uuid4().hex[:8]}"
    app.admin.create_space(slug)
    space = app.store.directory.get_space_by_slug(slug)
    rng = np.random.default_rng(7)
    base = datetime.now(UTC) - timedelta(days=30)
    made: list[Memory] = []
    for start in range(0, n, 1000):
        batch = []
        for i in range(start, min(n, start + 1000)):
            vector = rng.standard_normal(dims).astype(np.float32)
            text = f"fact {i}: service {i % 97} talks to queue {(i * 7) % 89}"
            batch.append(Memory(new_id(), space.id, text, f"c{i % 9}",
                                (vector / np.linalg.norm(vector)).tolist(), True,
                                base + timedelta(seconds=i), "bench", content_hash(text)))
        app.store.writes.write(WriteBatch(space.id, batch))
        made += batch
    recorder = ConflictRecorder(app.store.conflicts, SystemClock())
    brief_plain = type(app.briefings)(app.store, app.embedder, app.access, SystemClock(),
                                      lambda t: len(t) // 4)
    brief_counted = type(app.briefings)(app.store, app.embedder, app.access, SystemClock(),
                                        lambda t: len(t) // 4, open_conflicts=app.conflicts.count)
    print(f"{store}: {n:,} memories, {rounds} rounds each (a shared machine: read the ratios)")
    opened = 0
    for target in (0, 100, 400):
        while opened < target:
            a, b = made[2 * opened], made[2 * opened + 1]
            kind = opened % 4
            if kind == 0:
                app.lifecycle.mark(OPERATOR, a.id, "disputed", "bench", slug)
            elif kind == 1:
                app.store.writes.write(WriteBatch(space.id, [], [Relation(
                    b.id, a.id, RelationType.UPDATES, b.created_at, "bench", "bench")]))
            elif kind == 2:
                recorder.suggested(space.id, b, a, 0.3, 0.84)
            else:
                recorder.contradiction(space.id, b, a, "bench")
            opened += 1
        assert app.conflicts.count(space.id) == target
        listing = timed(lambda: app.conflicts.listing(OPERATOR, slug, 20), rounds)
        count = timed(lambda: app.conflicts.count(space.id), rounds)
        plain, counted = [], []
        for _ in range(rounds):  # alternate, so load shifts both alike
            plain.append(timed(lambda: brief_plain.brief(OPERATOR, space=slug), 1)[0])
            counted.append(timed(lambda: brief_counted.brief(OPERATOR, space=slug), 1)[0])
        p = (statistics.median(plain), sorted(plain)[int(0.95 * (rounds - 1))])
        c = (statistics.median(counted), sorted(counted)[int(0.95 * (rounds - 1))])
        print(f"open={target:3}  list_conflicts p50 {listing[0]:7.1f} p95 {listing[1]:7.1f} ms | "
              f"count p50 {count[0]:6.1f} p95 {count[1]:6.1f} ms | get_context p50 {p[0]:6.1f} -> "
              f"{c[0]:6.1f} ms, p95 {p[1]:6.1f} -> {c[1]:6.1f} ms (x{c[1] / p[1]:.2f} at p95)")


if __name__ == "__main__":
    main()

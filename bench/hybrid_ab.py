"""Hybrid search latency of two source trees on the same store, taking turns, and with
`--adds` the latency of adds too. Prints; asserts nothing.

A change to the ranking (services/search/ranking.py, services/search/search.py) is timed against the code
before it without trusting a busy machine: N memories are loaded once (bench_service.py's
sentences, through add_many), then two worker processes — one importing `--before` sources,
one `--after` — open that store and answer the same hybrid queries in alternating batches, so
both see the same load. Vectors come from a hashing embedder (a fixed pseudo-random unit vector
per text): the model's time is the same for both sides and is left out, so the figures are the
store's reads and the ranking's work, the part that changed. With `--adds N` each side also
saves N new memories a round (MemoryService.add: checks, the repeat check, the write, similar
memories), after its searches, so the figures include the service path of an add but not a
model's time.

Usage: hybrid_ab.py --before DIR/src --after DIR/src [--memories 100000] [--queries 200]
                    [--rounds 6] [--adds 0]
  e.g. git archive 419efba src | tar -x -C /tmp/before && \\
       bench/hybrid_ab.py --before /tmp/before/src --after src
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DIMENSIONS = 384


class HashingEmbedder:
    """A fixed pseudo-random unit vector per text (queries alike), no model."""

    dimensions = DIMENSIONS

    def __init__(self) -> None:
        try:
            from memspace.domain.embedder import MINILM_CALIBRATION
        except ImportError:  # a tree from before domain/ports.py was split (the --before side)
            from memspace.domain.ports import MINILM_CALIBRATION  # type: ignore[attr-defined,no-redef]
        self.calibration = MINILM_CALIBRATION

    def embed(self, texts: Any) -> list[Any]:
        import numpy as np

        out = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            v = np.random.default_rng(seed).standard_normal(DIMENSIONS).astype(np.float32)
            out.append(v / np.linalg.norm(v))
        return out

    embed_queries = embed


def settings(data_dir: str) -> Any:
    from memspace.startup.settings import Settings

    return Settings(_env_file=None, data_dir=Path(data_dir), store="sqlite",  # type: ignore[call-arg]
                    embedding_model="e5-small-v2", llm_model="")


def load(data_dir: str, memories: int) -> None:
    sys.path.insert(0, str(HERE))
    from bench_service import sentence

    from memspace.services.access import AccessService  # the same name in both trees
    from memspace.startup.container import build

    app = build(settings(data_dir), embedder=HashingEmbedder())
    app.admin.create_space("ab")
    rng = random.Random(7)
    texts = [sentence(rng, n) for n in range(memories)]
    for start in range(0, memories, 5_000):
        app.memories.add_many(AccessService.operator(), texts[start:start + 5_000], "ab")
    from memspace.domain.models import Access

    key = app.admin.create_key("ab", {"ab": Access.READWRITE}).raw
    (Path(data_dir) / "key").write_text(key)
    app.close()


def worker(data_dir: str) -> None:
    """Reads batches on stdin (one JSON object a line: queries to search, texts to add),
    answers their latencies (ms)."""
    from memspace.services.search import SearchRequest  # the same name in both trees
    from memspace.startup.container import build

    app = build(settings(data_dir), embedder=HashingEmbedder())
    app.search.warm_up()
    who = app.access.authenticate((Path(data_dir) / "key").read_text())
    print("ready", flush=True)
    for line in sys.stdin:
        batch = json.loads(line)
        took: dict[str, list[float]] = {"search": [], "add": []}
        for query in batch["queries"]:
            began = time.perf_counter()
            app.search.search(who, SearchRequest(query=query, space="ab", include_profile=False))
            took["search"].append((time.perf_counter() - began) * 1000)
        for text in batch["adds"]:
            began = time.perf_counter()
            app.memories.add(who, text, space="ab")
            took["add"].append((time.perf_counter() - began) * 1000)
        print(json.dumps(took), flush=True)
    app.close()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, required=True)
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--adds", type=int, default=0, help="memories each side adds a round")
    args = parser.parse_args()
    data_dir = tempfile.mkdtemp(prefix="memspace-ab-")
    sources = {"before": args.before.resolve(), "after": args.after.resolve()}
    began = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--_load", data_dir, str(args.memories)],
                   check=True, env={**os.environ, "PYTHONPATH": str(sources["after"])})
    print(f"{args.memories:,} memories loaded in {time.perf_counter() - began:.0f} s "
          f"(after's sources), cores {os.cpu_count()}")
    workers = {side: subprocess.Popen(
        [sys.executable, __file__, "--_worker", data_dir], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(src)})
        for side, src in sources.items()}
    took: dict[str, dict[str, list[float]]] = {side: {"search": [], "add": []} for side in workers}
    try:
        for w in workers.values():
            assert w.stdout is not None and w.stdout.readline().strip() == "ready"
        sys.path[:0] = [str(sources["after"]), str(HERE)]  # bench_service imports memspace
        from bench_service import sentence

        rng = random.Random(11)
        for n in range(args.rounds):
            queries = [" ".join(sentence(rng, 0).split()[:4]) for _ in range(args.queries)]
            for side in (("before", "after") if n % 2 == 0 else ("after", "before")):
                w = workers[side]
                assert w.stdin is not None and w.stdout is not None
                # distinct texts per side and round: a repeat would answer `duplicate` early
                adds = [f"{sentence(rng, n)} ({side} {n}.{i})" for i in range(args.adds)]
                w.stdin.write(json.dumps({"queries": queries, "adds": adds}) + "\n")
                w.stdin.flush()
                for kind, values in json.loads(w.stdout.readline()).items():
                    took[side][kind] += values
    finally:
        for w in workers.values():
            if w.stdin is not None:
                w.stdin.close()
            w.wait(timeout=120)
    for kind in ("search", "add"):
        if not took["before"][kind]:
            continue
        for side in took:
            values = took[side][kind]
            print(f"  {side:6s} {'hybrid' if kind == 'search' else 'add':6s} p50 "
                  f"{statistics.median(values):6.1f} ms   p95 {pct(values, 0.95):6.1f} ms   "
                  f"(n={len(values)})")
        ratio = pct(took["after"][kind], 0.95) / pct(took["before"][kind], 0.95)
        print(f"  {kind} after/before p95 {ratio:.3f}  (one session, alternating batches; "
              "shared machine)")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--_load":
        load(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) > 1 and sys.argv[1] == "--_worker":
        worker(sys.argv[2])
    else:
        main()

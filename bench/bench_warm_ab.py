"""A/B of the warm search path between two source trees on one store, in one session. Prints.

Usage: bench_warm_ab.py --other /work/main/src [--memories 100000] [--searches 200] [--rounds 3]

Loads one space of N memories (stand-in vectors, bench_scale.py's loader) into a SQLite file,
then alternates processes of this tree and the other, each loading the space and timing
`searches` hybrid searches in process (the real model embeds each query), and prints each
round's p50/p95 and the ratio this/other of their medians. Only ratios mean anything on a
shared machine; alternating rounds spreads the machine's load over both sides.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"

PROBE = """
import json, random, sys, time
from pathlib import Path
from memspace.startup.container import build
from memspace.startup.settings import Settings
from memspace.services.search.search import SearchRequest
data_dir, key, slug, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
app = build(Settings(_env_file=None, data_dir=Path(data_dir), llm_model=""))
who = app.access.authenticate(key)
app.search.search(who, SearchRequest(query="warm", space=slug))
cache = getattr(app.search, "_cache", None)
if cache is not None:
    cache.idle(600)
app.search.search(who, SearchRequest(query="warm again", space=slug))
words = [w for w in open(sys.argv[5]).read().split()]
rng = random.Random(1)
times = []
for _ in range(n):
    q = " ".join(rng.choices(words, k=4))
    began = time.perf_counter()
    found = app.search.search(who, SearchRequest(query=q, space=slug, include_profile=False))
    times.append((time.perf_counter() - began) * 1000)
    assert getattr(found, "path", "warm") == "warm"
print(json.dumps(times))
app.close()
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--other", required=True, help="the other tree's src directory")
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    import bench_scale

    data_dir = tempfile.mkdtemp(prefix="memspace-ab-")
    loader = argparse.Namespace(memories=args.memories, spaces=1, store="sqlite",
                                neo4j_uri=None, cache_mb=0)
    loaded = bench_scale.load(loader, data_dir, "ab")
    words = Path(data_dir) / "words.txt"
    words.write_text(" ".join(bench_scale.vocabulary()))
    print(f"$ {' '.join([Path(sys.executable).name, *sys.argv])}")
    print(f"{args.memories:,} memories in one space, loaded at {loaded['load_rate']:,.0f}/s; "
          f"cores {os.cpu_count()} (shared)")
    medians: dict[str, list[float]] = {"this": [], "other": []}
    for n in range(args.rounds):
        for name, src in (("this", SRC), ("other", Path(args.other))):
            out = subprocess.run(
                [sys.executable, "-c", PROBE, data_dir, loaded["key"], loaded["slugs"][0],
                 str(args.searches), str(words)],
                env={**os.environ, "PYTHONPATH": str(src)}, capture_output=True, text=True,
                check=True)
            times = sorted(json.loads(out.stdout.strip().splitlines()[-1]))
            p50, p95 = statistics.median(times), times[int(0.95 * (len(times) - 1))]
            medians[name].append(p50)
            print(f"round {n} {name:5s}: p50 {p50:6.1f} ms  p95 {p95:6.1f} ms")
    ratio = statistics.median(medians["this"]) / statistics.median(medians["other"])
    print(f"warm hybrid search p50, this / other: {ratio:.2f}")


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    main()

"""Where an add's time goes on Neo4j: each store call and the embedding of one add, in the order
they run, with the thread that ran it, one add at a time.

Runs on a kept bench_scale run (`bench_scale.py --keep` or `--load-only`, then this with
`--reuse RUN`). The `--warm N` largest spaces are loaded first and the adds go to them in turn,
each with words and a run mark of its own (a replay would be a duplicate, refused by one read).
Prints the adds' p50 and, for each call, its mean offset from the add's start, its mean time
and how many of the adds made it (the vector feed runs after the commit, on its own thread, for
some of them). Asserts nothing; the adds stay in the store.

    PYTHONPATH=src .venv/bin/python bench/add_profile.py --reuse RUN --memories 200000 \\
        --spaces 200 --neo4j-uri bolt://127.0.0.1:7697 [--adds 80] [--warm 3]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_scale import reuse, settings_for, vocabulary  # noqa: E402
from cold_profile import _held, _name  # noqa: E402

from memspace.startup.container import build  # noqa: E402

Event = tuple[float, float, str, str]  # offset from the add's start, time taken, call, thread


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reuse", metavar="RUN", required=True)
    parser.add_argument("--memories", type=int, default=200_000)
    parser.add_argument("--spaces", type=int, default=200)
    parser.add_argument("--neo4j-uri", default="bolt://127.0.0.1:7697")
    parser.add_argument("--adds", type=int, default=80)
    parser.add_argument("--warm", type=int, default=3, metavar="N")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    args.store, args.cache_mb = "neo4j", 1024
    mark = os.urandom(4).hex()
    with tempfile.TemporaryDirectory() as data_dir:
        job = reuse(args, data_dir)
        app = build(settings_for(args, data_dir))
        who = app.access.authenticate(job["key"])
        app.embedder.embed(["warm the model"])
        slugs = _held(app, who, job["slugs"][: args.warm])
        events: list[Event] = []
        began = [0.0]
        db = app.store.kit.db  # type: ignore[attr-defined]
        _timed(db, "read", lambda a: "read " + _name(a[0]), events, began)
        _timed(db, "write_one", lambda a: "write " + _name(a[0]), events, began)
        _timed(db, "write", lambda a: "write (transaction)", events, began)
        _timed(app.embedder, "embed", lambda a: "embedding", events, began)
        words, rng = vocabulary(), random.Random(args.seed)
        took: list[float] = []
        times: dict[tuple[str, int, str], list[float]] = defaultdict(list)
        offsets: dict[tuple[str, int, str], list[float]] = defaultdict(list)
        for n in range(args.adds + 5):  # the first five warm the statements' plans
            said = " ".join(rng.choices(words, k=rng.randint(6, 10)))
            events.clear()
            began[0] = time.perf_counter()
            app.memories.add(who, f"{said} added in the profile run {mark} {n}",
                             space=slugs[n % len(slugs)])
            if n < 5:
                continue
            took.append((time.perf_counter() - began[0]) * 1000)
            seen: dict[str, int] = defaultdict(int)
            for offset, spent, call, thread in sorted(events):
                seen[call] += 1
                times[(call, seen[call], thread)].append(spent * 1000)
                offsets[(call, seen[call], thread)].append(offset * 1000)
        print(f"{len(took)} adds to the {len(slugs)} largest spaces, held: "
              f"p50 {statistics.median(took):.1f} ms, mean {statistics.mean(took):.1f} ms")
        for key in sorted(times, key=lambda k: statistics.mean(offsets[k])):
            call, nth, thread = key
            print(f"  at {statistics.mean(offsets[key]):6.1f} ms  "
                  f"{statistics.mean(times[key]):6.1f} ms  in {len(times[key]) / len(took):.2f} "
                  f"of the adds  {thread:<24} {call}" + (f" (#{nth})" if nth > 1 else ""))
        app.close()


def _timed(owner: Any, name: str, label: Callable[[tuple[Any, ...]], str],
           events: list[Event], began: list[float]) -> None:
    plain = getattr(owner, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return plain(*args, **kwargs)
        finally:
            events.append((start - began[0], time.perf_counter() - start, label(args),
                           threading.current_thread().name))

    setattr(owner, name, timed)


if __name__ == "__main__":
    main()

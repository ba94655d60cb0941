"""Where a cold (or, with `--warm N`, a warm) search's time goes on Neo4j: each store read
timed, one search at a time.

Runs on a kept bench_scale run (`bench_scale.py --load-only` then this with `--reuse RUN`), with
a budget of 0 so that every search takes the cold path, the spaces drawn as bench_scale's
workload draws them (Zipf over the spaces by size rank). Prints, per class of space (scanned:
at most cold.SCAN_MAX memories; indexed: larger), the searches' p50/p95 end to end through the
search service, and each read's mean time and count per search. Asserts nothing.

`--warm N`: the N largest spaces are loaded first (budget 1 GB) and only they are searched, so
every search is warm; `--cprofile` adds the functions that took most of the searches' time.

    PYTHONPATH=src .venv/bin/python bench/cold_profile.py --reuse RUN --memories 1000000 \\
        --spaces 1000 --neo4j-uri bolt://127.0.0.1:7699 [--searches 300] [--warm 3 --cprofile]
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import pkgutil
import pstats
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_scale import pct, reuse, settings_for, sizes, vocabulary  # noqa: E402

from memspace.startup.container import build  # noqa: E402
from memspace.stores.neo4j import cold  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reuse", metavar="RUN", required=True)
    parser.add_argument("--memories", type=int, default=1_000_000)
    parser.add_argument("--spaces", type=int, default=1_000)
    parser.add_argument("--neo4j-uri", default="bolt://127.0.0.1:7699")
    parser.add_argument("--searches", type=int, default=300)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--warm", type=int, default=0, metavar="N",
                        help="hold the N largest spaces and search only them")
    parser.add_argument("--cprofile", action="store_true")
    args = parser.parse_args()
    args.store, args.cache_mb = "neo4j", 1024 if args.warm else 0
    with tempfile.TemporaryDirectory() as data_dir:
        job = reuse(args, data_dir)
        app = build(settings_for(args, data_dir))
        from memspace.services.search.search import SearchRequest

        who = app.access.authenticate(job["key"])
        app.embedder.embed_queries(["warm the model"])
        db = app.store.kit.db  # type: ignore[attr-defined]
        reads: dict[str, list[float]] = defaultdict(list)
        plain_read = db.read

        def timed(query: str, **params: object) -> list[dict[str, object]]:
            began = time.perf_counter()
            try:
                return plain_read(query, **params)
            finally:
                reads[_name(query)].append((time.perf_counter() - began) * 1000)

        db.read = timed  # type: ignore[method-assign]
        slugs: list[str] = job["slugs"]
        size_of = dict(zip(slugs, sizes(args.memories, args.spaces), strict=True))
        if args.warm:
            slugs = _held(app, who, slugs[: args.warm])
        weights = [1 / (i + 1) ** 1.1 for i in range(len(slugs))]
        words = vocabulary()
        rng = random.Random(args.seed)
        per_class: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        totals: dict[str, list[float]] = defaultdict(list)
        profiler = cProfile.Profile() if args.cprofile else None
        for _ in range(args.searches):
            slug = rng.choices(slugs, weights)[0]
            text = " ".join(rng.choices(words, k=rng.randint(2, 5)))
            reads.clear()
            began = time.perf_counter()
            if profiler is not None:
                profiler.enable()
            found = app.search.search(who, SearchRequest(query=text, space=slug,
                                                         include_profile=False))
            if profiler is not None:
                profiler.disable()
            took = (time.perf_counter() - began) * 1000
            kind = "scanned" if size_of[slug] <= cold.SCAN_MAX else "indexed"
            if found.path != ("warm" if args.warm else "cold"):
                continue
            kind = f"{found.path} {kind}"
            totals[kind].append(took)
            for name, times in reads.items():
                per_class[kind][name].append(sum(times))
                per_class[kind][name + " (count)"].append(len(times))
        for kind, took in sorted(totals.items()):
            print(f"{kind}: {len(took)} searches, p50 {pct(took, 0.5):.1f} ms, "
                  f"p95 {pct(took, 0.95):.1f} ms")
            n = len(took)
            for name, times in sorted(per_class[kind].items()):
                if name.endswith("(count)"):
                    continue
                counts = per_class[kind][name + " (count)"]
                print(f"  {name:<28} {sum(times) / n:7.1f} ms per search "
                      f"({sum(counts) / n:.2f} reads; p95 of a search's share "
                      f"{pct(times, 0.95):.1f} ms)")
            spent = sum(sum(t) for k, t in per_class[kind].items() if not k.endswith("(count)"))
            print(f"  {'all reads':<28} {spent / n:7.1f} ms per search; the rest "
                  f"{statistics.mean(took) - spent / n:.1f} ms")
        if profiler is not None:
            pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        app.close()


def _held(app: object, who: object, slugs: list[str]) -> list[str]:
    """Load each of `slugs` into the cache now (a search of each, then its load waited for)."""
    from memspace.services.search.search import SearchRequest

    for slug in slugs:
        app.search.search(who, SearchRequest(query="load it", space=slug,  # type: ignore[attr-defined]
                                             include_profile=False))
    cache = app.search._cache  # type: ignore[attr-defined]
    while not all(cache.holds(app.access.resolve(who, s).space.id)  # type: ignore[attr-defined]
                  for s in slugs):
        time.sleep(0.2)
    return slugs


def _queries() -> dict[str, str]:
    """Every named Cypher text of the Neo4j store, by its text."""
    import memspace.stores.neo4j.cypher as package

    named: dict[str, str] = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for name, value in vars(module).items():
            if name.isupper() and isinstance(value, str):
                named.setdefault(value, f"{info.name}.{name}")
    return named


NAMED = _queries()


def _name(query: str) -> str:
    return NAMED.get(query) or " ".join(query.split())[:28]


if __name__ == "__main__":
    main()

"""search_memory with `knownAt`, before and after reads of the past showed records as they stood
then (docs/time.md, "What a read at knownAt shows"), alternated in one run. Prints; asserts
nothing.

Usage: known_at_ab.py [--memories N] [--corrections C] [--rounds R] [--before COMMIT]

Loads N memories into one space of a fresh store (MEMSPACE_STORE, sqlite by default, in a
temporary data dir), corrects C of them, then asks R rounds of the same hybrid query with
`knownAt` at the instant before the corrections, in process, through two SearchServices over the
same store, cache and embedder: the current one, and services/search/search.py as it stood at
`--before` (the git commit before the change; it read today's records and profile). The order
of the two within a round is drawn at random, so drift of a shared machine falls on both.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "src"))

from bench_service import history, hybrid_query, pct, sentence  # noqa: E402

from memspace.services.access.access import AccessService  # noqa: E402
from memspace.services.search.search import SearchRequest  # noqa: E402
from memspace.startup.container import build  # noqa: E402
from memspace.startup.settings import Settings  # noqa: E402


def search_as_of(commit: str) -> Any:
    """services/search/search.py as it stood at `commit`, loaded beside the current one."""
    # the module moved into the search package; a commit before that has it at services/
    for where in ("services/search/search.py", "services/search.py"):
        shown = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:src/memspace/{where}"],
                               capture_output=True, text=True)
        if shown.returncode == 0:
            break
    shown.check_returncode()
    source = shown.stdout
    path = Path(tempfile.mkdtemp()) / "search_before.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("memspace.services.search_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def before_service(app: Any, commit: str) -> Any:
    """The earlier SearchService over the same store, embedder, cache and profile."""
    now = app.search
    old = search_as_of(commit).SearchService
    return old(now._store, now._embedder, now._access, now._profiles, now._max_query_chars,
               now._quarantines, now.features, now._cache, now._cold, now._clock)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--corrections", type=int, default=1_000)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--before", default="b1fe099~1")
    args = parser.parse_args()
    rng = random.Random(7)
    settings = Settings(data_dir=Path(tempfile.mkdtemp(prefix="known-at-ab-")))
    app = build(settings)
    slug = "bench-known-at"
    app.admin.create_space(slug)
    operator = AccessService.operator()
    start = time.perf_counter()
    app.memories.add_many(operator, [sentence(rng, n) for n in range(args.memories)], slug)
    print(f"store: {settings.store}   loaded {args.memories:,} memories in "
          f"{time.perf_counter() - start:.0f} s", flush=True)
    known_at = history(app, slug, args.corrections, rng)
    services = {"before": before_service(app, args.before), "after": app.search}
    times: dict[str, list[float]] = {name: [] for name in services}
    for round_ in range(args.rounds + 10):
        query = hybrid_query(rng)
        for name in rng.sample(list(services), len(services)):
            request = SearchRequest(query, space=slug, known_at=known_at)
            began = time.perf_counter()
            services[name].search(operator, request)
            if round_ >= 10:  # the first rounds warm both up
                times[name].append((time.perf_counter() - began) * 1000)
    p95 = {name: pct(values, 0.95) for name, values in times.items()}
    for name, values in times.items():
        print(f"  search_memory (hybrid, knownAt) {name:6}  p50 {pct(values, 0.5):6.1f} ms   "
              f"p95 {p95[name]:6.1f} ms")
    print(f"  p95 ratio after/before {p95['after'] / p95['before']:.2f}")
    app.search.close()
    app.store.close()


if __name__ == "__main__":
    main()

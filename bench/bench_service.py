"""Bulk-load, cold-start and MCP-over-HTTP figures for one store. Prints; asserts nothing.

Usage: bench_service.py [--memories N] [--requests R] [--writers W] [--profile Q] [--port P]
                        [--settle S] [--as-of] [--corrections C]
The store comes from MEMSPACE_STORE (sqlite by default, in a temporary data dir; for Neo4j set
MEMSPACE_STORE=neo4j and MEMSPACE_NEO4J_URI). The memories are loaded through the service's
bulk path (add_many: batched embedding, one transaction per batch) and compared with the raw
embedding rate, the mean of one measured before the load and one after; once the machine is idle
again (--settle), a server is started on that store and timed from spawn to /readyz and to its
first search. --writers W adds W clients adding at once to the same space; --profile Q ends
with a cProfile of Q in-process hybrid searches (cumulative-time shares). --as-of corrects C
memories after the load (history: each correction a new version, the old one superseded) and
times searches with `asOf` and `knownAt` at the instant before the corrections beside the
current-only ones, in the same loop (docs/time.md). Figures are honest only on an idle machine.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memspace.domain.models import Access  # noqa: E402
from memspace.services.access.access import AccessService  # noqa: E402
from memspace.startup.container import build  # noqa: E402
from memspace.startup.settings import Settings  # noqa: E402

SUBJECTS = ["billing", "search", "auth", "payments", "mobile", "web", "data", "infra", "ml",
            "support", "growth", "security", "platform", "docs", "release", "design"]
THINGS = ["service", "queue", "database", "cache", "cluster", "pipeline", "dashboard", "job",
          "endpoint", "bucket", "index", "worker", "gateway", "scheduler", "report", "model"]
VERBS = ["owns", "deploys", "monitors", "migrated", "deprecated", "reviews", "rebuilt", "scaled"]
PEOPLE = ["Ana", "Bo", "Chen", "Dara", "Eli", "Fatima", "Gus", "Hana", "Ivan", "Jun", "Kofi",
          "Lena", "Mateo", "Nia", "Omar", "Priya", "Quinn", "Ravi", "Sara", "Tomas"]
DETAILS = ["on Fridays", "every two weeks", "since March", "behind a feature flag",
           "with a 7 day retention", "in eu-west-1", "after the outage", "for the Q3 launch",
           "using Postgres 16", "with three replicas", "at 200 requests per second",
           "through Kafka", "with nightly backups", "owned by the on-call rotation"]


def sentence(rng: random.Random, n: int) -> str:
    return (f"{rng.choice(PEOPLE)} {rng.choice(VERBS)} the {rng.choice(SUBJECTS)} "
            f"{rng.choice(THINGS)} {rng.choice(DETAILS)} (note {n})")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def busy_share(window_s: float = 3.0) -> float | None:
    """The share of the machine's CPU time spent busy over the next `window_s` (Linux's
    /proc/stat; None elsewhere)."""
    def times() -> tuple[int, int]:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        return sum(fields), fields[3] + fields[4]  # all, idle + iowait

    try:
        total, idle = times()
        time.sleep(window_s)
        total2, idle2 = times()
    except (OSError, ValueError, IndexError):
        return None
    return 1 - (idle2 - idle) / max(1, total2 - total)


def settle(max_s: float, quiet: float = 0.1) -> tuple[float, float | None]:
    """Wait (up to `max_s`) until the machine is idle: a store keeps working after a bulk
    load (Neo4j merges its index segments and checkpoints), and figures taken meanwhile are
    those of that work, not of the store. Returns the wait and the last busy share seen."""
    start = time.perf_counter()
    busy = None
    while time.perf_counter() - start < max_s:
        busy = busy_share()
        if busy is None or busy < quiet:
            break
    return time.perf_counter() - start, busy


def hybrid_query(rng: random.Random) -> str:
    return f"who {rng.choice(VERBS)} the {rng.choice(SUBJECTS)} {rng.choice(THINGS)}?"


def mcp_client(url: str, key: str) -> Any:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=180)
    return http, Client(streamable_http_client(f"{url}/mcp", http_client=http))


async def first_search(url: str, key: str, rng: random.Random) -> float:
    """ms of the first search a fresh server answers (its vector cache may still be loading)."""
    http, client = mcp_client(url, key)
    async with http, client:
        start = time.perf_counter()
        result = await client.call_tool("search_memory", {"query": hybrid_query(rng)})
        if result.is_error:
            raise SystemExit(f"search_memory failed: {result.content}")
        return (time.perf_counter() - start) * 1000


async def concurrent_adds(url: str, key: str, writers: int, each: int) -> tuple[list[float], int]:
    """`writers` clients adding `each` memories at once to one space: (latencies ms, errors)."""
    times: list[float] = []
    errors = 0

    async def writer(w: int) -> None:
        nonlocal errors
        http, client = mcp_client(url, key)
        async with http, client:
            rng = random.Random(1000 + w)
            for i in range(each):
                start = time.perf_counter()
                try:
                    result = await client.call_tool(
                        "add_memory", {"content": sentence(rng, 20_000_000 + w * each + i)})
                    errors += bool(result.is_error)
                except Exception:  # a dropped connection or timeout is an error, not a crash
                    errors += 1
                times.append((time.perf_counter() - start) * 1000)

    await asyncio.gather(*(writer(w) for w in range(writers)))
    return times, errors


async def mcp_latency(url: str, key: str, requests: int, rng: random.Random,
                      added: list[str], before: str | None = None) -> dict[str, list[float]]:
    """Sequential add, hybrid search and keyword search; the added contents go to `added`.
    `before`: also the same searches with asOf / knownAt at that instant, in the same loop."""
    timings: dict[str, list[float]] = {"add_memory": [], "search_memory (hybrid)": [],
                                       "search_memory (keyword)": []}
    http, client = mcp_client(url, key)
    async with http, client:
        await client.call_tool("search_memory", {"query": "warm up"})
        for i in range(requests):
            added.append(sentence(rng, 10_000_000 + i))
            query, keyword = hybrid_query(rng), rng.choice(THINGS) + "s"
            calls: list[tuple[str, dict[str, Any]]] = [
                ("add_memory", {"content": added[-1]}),
                ("search_memory (hybrid)", {"query": query}),
                ("search_memory (keyword)", {"keyword": keyword}),
            ]
            if before is not None:
                calls += [("search_memory (hybrid, asOf)", {"query": query, "asOf": before}),
                          ("search_memory (hybrid, knownAt)", {"query": query, "knownAt": before}),
                          ("search_memory (keyword, asOf)", {"keyword": keyword, "asOf": before})]
                # The first search after an add pays for applying it (cache, profile): the
                # searches take that place in turn, so no kind always pays it.
                searches = calls[1:]
                rng.shuffle(searches)
                calls = calls[:1] + searches
            for name, args in calls:
                tool = name.split(" ")[0]
                start = time.perf_counter()
                result = await client.call_tool(tool, args)
                timings.setdefault(name, []).append((time.perf_counter() - start) * 1000)
                if result.is_error:
                    raise SystemExit(f"{tool} failed: {result.content}")
    return timings


def row(name: str, values: list[float]) -> str:
    return (f"  {name:26s} p50 {statistics.median(values):7.1f} ms   p95 {pct(values, 0.95):7.1f} ms"
            f"   max {max(values):7.1f} ms")


def embedding_cost(embedder: Any, added: list[str]) -> list[float]:
    """ms to embed what a flat add of each text embeds: its content, one text per call."""
    times = []
    for content in added:
        start = time.perf_counter()
        embedder.embed([content])
        times.append((time.perf_counter() - start) * 1000)
    return times


def profile_searches(app: Any, slug: str, queries: int, rng: random.Random) -> None:
    """cProfile of in-process hybrid searches: where the server's time goes, HTTP aside."""
    import cProfile
    import pstats

    from memspace.services.search.search import SearchRequest

    operator = AccessService.operator()
    app.search.search(operator, SearchRequest(query="warm up", space=slug))
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(queries):
        app.search.search(operator, SearchRequest(query=hybrid_query(rng), space=slug))
    profile.disable()
    stats = pstats.Stats(profile)
    total = stats.total_tt  # type: ignore[attr-defined]
    print(f"cProfile of {queries} hybrid searches (cumulative share of in-process time):")
    stats.sort_stats("cumulative").print_stats(r"memspace|sqlite3|neo4j|numpy", 25)
    print(f"  total {total * 1000 / queries:.1f} ms per search in process")


def history(app: Any, slug: str, corrections: int, rng: random.Random) -> str:
    """Correct `corrections` random memories (each a new version, the old one superseded) and
    return the instant just before: an asOf / knownAt there reads the replaced versions."""
    from datetime import UTC, datetime

    operator = AccessService.operator()
    before = datetime.now(UTC).isoformat()
    ids: list[str] = []
    cursor = None
    while len(ids) < corrections * 3:
        _, page = app.memories.list(operator, slug, limit=100, cursor=cursor)
        ids += [m.id for m in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
    start = time.perf_counter()
    for n, memory_id in enumerate(rng.sample(ids, min(corrections, len(ids)))):
        app.memories.correct(operator, memory_id, sentence(rng, 20_000_000 + n), slug,
                             reason="bench history")
    print(f"history: {min(corrections, len(ids)):,} corrections in "
          f"{time.perf_counter() - start:.0f} s; asOf / knownAt = {before}", flush=True)
    return before


def serve(port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "MEMSPACE_PORT": str(port)}
    return subprocess.Popen([sys.executable, "-m", "memspace.cli", "serve"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_ready(url: str) -> float:
    """ms until /readyz answers 200."""
    import httpx

    start = time.perf_counter()
    while time.perf_counter() - start < 300:
        try:
            if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                return (time.perf_counter() - start) * 1000
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise SystemExit("the server was not ready within 300 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--writers", type=int, default=0,
                        help="also time this many clients adding at once to the space")
    parser.add_argument("--adds-per-writer", type=int, default=50)
    parser.add_argument("--raw-sample", type=int, default=5_000,
                        help="texts embedded alone, before and after the load, to measure raw "
                             "embedding throughput (the load is compared with the mean)")
    parser.add_argument("--profile", type=int, default=0, metavar="Q",
                        help="end with a cProfile of Q in-process hybrid searches")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--as-of", action="store_true",
                        help="also time searches with asOf / knownAt (after --corrections)")
    parser.add_argument("--corrections", type=int, default=1_000,
                        help="with --as-of: memories corrected after the load (history)")
    parser.add_argument("--settle", type=float, default=180, metavar="S",
                        help="after the load, wait up to S seconds for the machine to go idle "
                             "(the store's own background work) before the server starts; "
                             "0 measures at once")
    args = parser.parse_args()
    rng = random.Random(7)
    data_dir = tempfile.mkdtemp(prefix="memspace-bench-")
    os.environ.setdefault("MEMSPACE_DATA_DIR", data_dir)
    settings = Settings()
    app = build(settings)
    slug = f"bench-{int(time.time())}"
    app.admin.create_space(slug)
    key = app.admin.create_key("bench", {slug: Access.READWRITE}).raw
    texts = [sentence(rng, n) for n in range(args.memories)]

    app.embedder.embed(["warm up"])  # model load is not part of either figure
    sample = texts[: args.raw_sample]

    def raw() -> float:
        start = time.perf_counter()
        app.embedder.embed(sample)
        return len(sample) / (time.perf_counter() - start)

    # The machine's speed drifts over a load of minutes (this one's raw rate measured 312 to
    # 505 texts/s on different runs): the load is compared with the mean of a raw rate taken
    # just before it and one just after.
    raw_before = raw()
    start = time.perf_counter()
    result = app.memories.add_many(AccessService.operator(), texts, slug)
    # Neo4j indexes the vectors after their writes (stores/neo4j/vector_index.py): the load
    # is done when its last memory is in the index too.
    flush_index = getattr(app.store, "flush_vector_index", None)
    indexed_at = time.perf_counter()
    if flush_index is not None:
        flush_index()
    index_tail = time.perf_counter() - indexed_at
    load_seconds = time.perf_counter() - start
    load_rate = result.created / load_seconds
    raw_after = raw()
    raw_rate = (raw_before + raw_after) / 2
    print(f"store: {settings.store}   memories: {args.memories:,}   cores: {os.cpu_count()}")
    print(f"raw embedding throughput     {raw_rate:8.0f} texts/s  ({len(sample):,} texts, "
          f"{raw_before:.0f} before the load, {raw_after:.0f} after)")
    print(f"bulk load (embed + store)    {load_rate:8.0f} memories/s  "
          f"= {100 * load_rate / raw_rate:.0f}% of raw embedding throughput "
          f"({load_seconds:.0f} s"
          + (f", the vector index's last {index_tail:.1f} s" if flush_index else "") + ")",
          flush=True)

    before = history(app, slug, args.corrections, rng) if args.as_of else None

    if args.settle:
        waited, busy = settle(args.settle)
        state = "idle" if busy is None or busy < 0.1 else f"still {100 * busy:.0f}% busy"
        print(f"after the load, the machine was {state} after {waited:.0f} s "
              f"(--settle {args.settle:.0f})", flush=True)

    url = f"http://127.0.0.1:{args.port}"
    server = serve(args.port)
    added: list[str] = []
    try:
        ready_ms = wait_ready(url)
        first_ms = asyncio.run(first_search(url, key, rng))
        print(f"cold start: /readyz after    {ready_ms:8.0f} ms;  first search after it "
              f"{first_ms:6.0f} ms", flush=True)
        timings = asyncio.run(mcp_latency(url, key, args.requests, rng, added, before))
        print(f"MCP over HTTP, {args.requests} calls each, space of {args.memories:,}+ memories:")
        for name, values in timings.items():
            print(row(name, values))
        if before is not None:
            for kind in ("hybrid, asOf", "hybrid, knownAt", "keyword, asOf"):
                base = timings[f"search_memory ({kind.split(',')[0]})"]
                print(f"  p95 ratio ({kind} / current-only): "
                      f"{pct(timings[f'search_memory ({kind})'], 0.95) / pct(base, 0.95):.2f}")
        if args.writers:
            times, errors = asyncio.run(
                concurrent_adds(url, key, args.writers, args.adds_per_writer))
            print(f"{args.writers} writers x {args.adds_per_writer} adds on one space, "
                  f"{errors} errors:")
            print(row("add_memory (concurrent)", times))
        print(f"server RSS after the run     {rss_mb(server.pid):8.0f} MB")
    finally:
        server.terminate()
        server.wait(timeout=30)
    # Again, now that the first server left its vector snapshot (stores/vector_snapshot.py).
    server = serve(args.port)
    try:
        ready_ms = wait_ready(url)
        first_ms = asyncio.run(first_search(url, key, rng))
        print(f"restart:    /readyz after    {ready_ms:8.0f} ms;  first search after it "
              f"{first_ms:6.0f} ms")
    finally:
        server.terminate()
        server.wait(timeout=30)
    embed_times = embedding_cost(app.embedder, added)
    print(row("embedding of those adds", embed_times))
    print(f"  add overhead beyond embedding: p50 "
          f"{statistics.median(timings['add_memory']) - statistics.median(embed_times):.1f} ms   "
          f"p95 {pct(timings['add_memory'], 0.95) - pct(embed_times, 0.95):.1f} ms (difference "
          "of the two distributions)")
    if args.profile:
        profile_searches(app, slug, args.profile, rng)
    app.close()


if __name__ == "__main__":
    main()

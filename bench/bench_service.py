"""Bulk-load and MCP-over-HTTP latency figures for one store. Prints; asserts nothing.

Usage: bench_service.py [--memories N] [--requests R] [--port P]
The store comes from MEMSPACE_STORE (sqlite by default, in a temporary data dir).
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memspace.bootstrap import build  # noqa: E402
from memspace.config import Settings  # noqa: E402
from memspace.domain.models import Access  # noqa: E402
from memspace.services.access import AccessService  # noqa: E402

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


async def mcp_latency(url: str, key: str, requests: int, rng: random.Random) -> dict[str, list[float]]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    timings: dict[str, list[float]] = {"add_memory": [], "search_memory (hybrid)": [],
                                       "search_memory (keyword)": []}
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60)
    async with http, Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
        await client.call_tool("search_memory", {"query": "warm up"})
        for i in range(requests):
            calls = [
                ("add_memory", {"content": sentence(rng, 10_000_000 + i)}),
                ("search_memory (hybrid)", {"query": f"who {rng.choice(VERBS)} the "
                                            f"{rng.choice(SUBJECTS)} {rng.choice(THINGS)}?"}),
                ("search_memory (keyword)", {"keyword": rng.choice(THINGS) + "s"}),
            ]
            for name, args in calls:
                tool = name.split(" ")[0]
                start = time.perf_counter()
                result = await client.call_tool(tool, args)
                timings[name].append((time.perf_counter() - start) * 1000)
                if result.is_error:
                    raise SystemExit(f"{tool} failed: {result.content}")
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--port", type=int, default=8765)
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
    start = time.perf_counter()
    app.embedder.embed(texts)
    raw_rate = len(texts) / (time.perf_counter() - start)
    start = time.perf_counter()
    result = app.memories.add_many(AccessService.operator(), texts, slug)
    load_rate = result.created / (time.perf_counter() - start)
    app.close()

    print(f"store: {settings.store}   memories: {args.memories:,}   cores: {os.cpu_count()}")
    print(f"raw embedding throughput     {raw_rate:8.0f} texts/s")
    print(f"bulk load (embed + store)    {load_rate:8.0f} memories/s  "
          f"= {100 * load_rate / raw_rate:.0f}% of raw embedding throughput")

    env = {**os.environ, "MEMSPACE_PORT": str(args.port)}
    server = subprocess.Popen([sys.executable, "-m", "memspace.cli", "serve"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        url = f"http://127.0.0.1:{args.port}"
        import httpx

        for _ in range(600):
            try:
                if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        timings = asyncio.run(mcp_latency(url, key, args.requests, rng))
        print(f"MCP over HTTP, {args.requests} calls each, space of {args.memories:,}+ memories:")
        for name, values in timings.items():
            print(f"  {name:26s} p50 {statistics.median(values):6.1f} ms   "
                  f"p95 {pct(values, 0.95):6.1f} ms")
        print(f"server RSS after the run     {rss_mb(server.pid):8.0f} MB")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()

"""N concurrent MCP clients against a served store. Prints; asserts nothing.

Usage: bench_load.py [--clients 16] [--adds 100] [--searches 20] [--store sqlite|neo4j]
                     [--neo4j bolt://127.0.0.1:7687] [--port P]
Starts `memspace serve` (the real embedding model) on a fresh data dir (and, for Neo4j, a fresh
space in the given database), then every client opens its own MCP session and, all at once:
saves `--adds` distinct facts, interleaved with `--searches` hybrid searches, and finally all
clients save one identical sentence at the same moment. Afterwards it lists the space and
prints acknowledgements, errors by kind, lost acknowledged writes, duplicated contents, and
p50/p95/max per operation. Latency figures are only honest on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_service import pct, sentence  # noqa: E402

from memspace.domain.models import Access  # noqa: E402
from memspace.startup.container import build  # noqa: E402
from memspace.startup.settings import Settings  # noqa: E402


class Tally:
    def __init__(self) -> None:
        self.timings: dict[str, list[float]] = {}
        self.errors: dict[str, Counter[str]] = {}
        self.statuses: dict[str, Counter[str]] = {}
        self.acked: list[str] = []

    def record(self, operation: str, seconds: float, result: Any, content: str | None) -> None:
        self.timings.setdefault(operation, []).append(seconds * 1000)
        if result.is_error:
            structured = result.structured_content or {}
            kind = structured.get("code") or str(result.content[0].text).split(":")[0][:40]
            self.errors.setdefault(operation, Counter())[kind] += 1
            return
        status = (result.structured_content or {}).get("status", "ok")
        self.statuses.setdefault(operation, Counter())[status] += 1
        if content is not None and status in ("created", "duplicate", "pending"):
            self.acked.append(content)


async def client(number: int, url: str, key: str, args: argparse.Namespace, tally: Tally,
                 ready: asyncio.Barrier, same: asyncio.Barrier) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    rng = random.Random(number)
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=300)
    async with http, Client(streamable_http_client(f"{url}/mcp", http_client=http)) as mcp:
        # The model loads on the first embedding: not part of any figure.
        await mcp.call_tool("search_memory", {"query": "warm up"})
        await ready.wait()
        every = max(1, args.adds // max(1, args.searches))
        for i in range(args.adds):
            content = f"client {number}: " + sentence(rng, i)
            began = time.perf_counter()
            result = await mcp.call_tool("add_memory", {"content": content})
            tally.record("add_memory", time.perf_counter() - began, result, content)
            if args.searches and i % every == 0:
                began = time.perf_counter()
                result = await mcp.call_tool("search_memory", {"query": sentence(rng, -1)})
                tally.record("search_memory", time.perf_counter() - began, result, None)
        await same.wait()
        content = "Every client saves this one identical sentence at the same moment."
        began = time.perf_counter()
        result = await mcp.call_tool("add_memory", {"content": content})
        tally.record("add_memory (identical)", time.perf_counter() - began, result, content)


async def stored_contents(url: str, key: str) -> Counter[str]:
    import httpx2

    seen: Counter[str] = Counter()
    async with httpx2.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {key}"},
                                  timeout=120) as http:
        cursor = None
        while True:
            params: dict[str, Any] = {"limit": 100, **({"cursor": cursor} if cursor else {})}
            page = (await http.get("/v1/memories", params=params)).json()
            seen.update(m["content"] for m in page["memories"])
            cursor = page["nextCursor"]
            if not cursor:
                return seen


async def run(url: str, key: str, args: argparse.Namespace) -> tuple[Tally, Counter[str], float]:
    tally = Tally()
    ready = asyncio.Barrier(args.clients + 1)  # every session open and warm: clock starts
    same = asyncio.Barrier(args.clients)
    tasks = [asyncio.create_task(client(n, url, key, args, tally, ready, same))
             for n in range(args.clients)]
    await ready.wait()
    began = time.perf_counter()
    await asyncio.gather(*tasks)
    wall = time.perf_counter() - began
    return tally, await stored_contents(url, key), wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--adds", type=int, default=100, help="distinct adds per client")
    parser.add_argument("--searches", type=int, default=20, help="searches per client")
    parser.add_argument("--store", choices=["sqlite", "neo4j"],
                        default=os.environ.get("MEMSPACE_STORE", "sqlite"))
    parser.add_argument("--neo4j", default=os.environ.get("MEMSPACE_NEO4J_URI",
                                                          "bolt://127.0.0.1:7687"))
    parser.add_argument("--port", type=int, default=8766)
    args = parser.parse_args()

    env = {**os.environ, "MEMSPACE_DATA_DIR": tempfile.mkdtemp(prefix="memspace-load-"),
           "MEMSPACE_STORE": args.store, "MEMSPACE_PORT": str(args.port)}
    if args.store == "neo4j":
        env["MEMSPACE_NEO4J_URI"] = args.neo4j
    os.environ.update({k: v for k, v in env.items() if k.startswith("MEMSPACE_")})
    setup = build(Settings(_env_file=None))  # type: ignore[call-arg]
    slug = f"load-{int(time.time())}"
    setup.admin.create_space(slug)
    key = setup.admin.create_key("bench-load", {slug: Access.READWRITE}, default_slug=slug).raw
    setup.close()

    server = subprocess.Popen([sys.executable, "-m", "memspace.cli", "serve"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        import httpx2

        url = f"http://127.0.0.1:{args.port}"
        for _ in range(1200):
            try:
                if httpx2.get(f"{url}/readyz", timeout=1).status_code == 200:
                    break
            except httpx2.HTTPError:
                pass
            time.sleep(0.1)
        tally, stored, wall = asyncio.run(run(url, key, args))
    finally:
        server.terminate()
        server.wait(timeout=30)

    lost = [c for c in set(tally.acked) if stored[c] == 0]
    duplicated = {c: n for c, n in stored.items() if n > 1}
    print(f"store: {args.store}   clients: {args.clients}   adds/client: {args.adds}   "
          f"searches/client: {args.searches}   cores: {os.cpu_count()}   wall: {wall:.1f} s")
    print(f"{'operation':24s} {'calls':>6s} {'acks':>6s} {'errors':>6s}  "
          f"{'p50 ms':>8s} {'p95 ms':>8s} {'max ms':>8s}  statuses / errors by kind")
    for operation, values in tally.timings.items():
        errors = tally.errors.get(operation, Counter())
        statuses = tally.statuses.get(operation, Counter())
        kinds = ", ".join(f"{k} {n}" for k, n in (statuses + errors).most_common())
        print(f"{operation:24s} {len(values):6d} {sum(statuses.values()):6d} "
              f"{sum(errors.values()):6d}  {pct(values, 0.5):8.1f} {pct(values, 0.95):8.1f} "
              f"{max(values):8.1f}  {kinds}")
    print(f"acknowledged writes lost: {len(lost)}   contents stored more than once: "
          f"{len(duplicated)} ({sum(duplicated.values())} copies)")


if __name__ == "__main__":
    main()

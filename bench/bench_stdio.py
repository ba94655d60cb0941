"""`memspace stdio` and the Claude Code hooks on a store of N memories (10,000 by default).
Prints only.

Usage: bench_stdio.py [--memories 10000] [--starts 10] [--calls 100] [--hooks 40]

1. stdio start: spawn `memspace stdio --space bench`, send `initialize`, time until its answer
   (what an editor waits for before it calls the process hung); then until the first keyword
   search is answered (the space's vectors and words loaded from their snapshot).
2. The added cost of a tool call over stdio against HTTP: one `memspace stdio` and one
   `memspace serve` subprocess on the same store, the same key, the same calls (whoAmI: the
   transport alone; search_memory with a keyword: a real read), alternated call by call so
   both see the same machine.
3. The hooks as Claude Code runs them (a new process each time, stdin the event's JSON):
   `prompt-recall` on prompts naming identifiers the space holds, and ones it does not, and
   `session-start`; on the local store and against the HTTP server (`--url`).

Memories are the synthetic sentences of bench_service.py, with synthetic vectors (the stdio
path never embeds a keyword search); one in 50 also names an identifier (snake_case,
camelCase, dotted or a path) that prompts then ask about.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_service import pct, sentence  # noqa: E402

from memspace.domain.models import Access, Memory, MemoryFilter  # noqa: E402
from memspace.domain.ports import WriteBatch  # noqa: E402
from memspace.domain.text import content_hash  # noqa: E402
from memspace.services import embedding_model  # noqa: E402
from memspace.services.access.access import AccessService  # noqa: E402
from memspace.services.shared.clock import SystemClock  # noqa: E402
from memspace.startup.container import build  # noqa: E402
from memspace.startup.settings import Settings  # noqa: E402
from memspace.stores.sqlite import SqliteStore  # noqa: E402

DIMS = 384
IDENTIFIER_EVERY = 50


def identifier(n: int) -> str:
    kinds = [f"billing_job_{n}", f"retryQueue{n}", f"services.worker{n}",
             f"src/jobs/task_{n}.py"]
    return kinds[n % len(kinds)]


def seed_store(data_dir: Path, size: int) -> tuple[str, list[str]]:
    """A SQLite store of `size` memories in space `bench`; a read-write key and the
    identifiers stored."""
    store = SqliteStore(data_dir / "memspace.db")
    store.set_store_info(embedding_model.KEY, embedding_model.E5_SMALL)
    store.close()
    settings = Settings(_env_file=None, data_dir=data_dir, store="sqlite",  # type: ignore[call-arg]
                        llm_model=None)
    app = build(settings)
    space = app.admin.create_space("bench")
    key = app.admin.create_key("bench", {"bench": Access.READWRITE}, "bench").raw
    rng = random.Random(35)
    vecs = np.random.default_rng(35).normal(size=(size, DIMS)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    names: list[str] = []
    clock = SystemClock()
    for start in range(0, size, 1000):
        batch = []
        for i in range(start, min(start + 1000, size)):
            text = sentence(rng, i)
            if i % IDENTIFIER_EVERY == 0:
                names.append(identifier(i))
                text += f" (see {names[-1]})"
            batch.append(Memory(uuid.uuid4().hex, space.id, text, "fact", vecs[i].tolist(), True,
                                clock.now(), "bench", content_hash(text)))
        app.store.writes.write(WriteBatch(space.id, batch))
    app.handoffs.save(AccessService.operator(), "Benchmarks half done", "bench", "stdio",
                      ["start time"], ["hook p95"], [], [], "bench")
    # loads the space's vectors and words once, which saves their snapshot for later starts
    app.store.search.keyword_search(MemoryFilter(space.id), names[0], 1)
    app.close()
    return key, names


def child_env(data_dir: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "MEMSPACE_DATA_DIR": str(data_dir), "MEMSPACE_STORE": "sqlite",
            "MEMSPACE_LLM_MODEL": "", "PYTHONPATH": str(ROOT / "src"), **extra}


def rpc(child: subprocess.Popen[bytes], message: dict[str, Any]) -> dict[str, Any]:
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write((json.dumps(message) + "\n").encode())
    child.stdin.flush()
    return dict(json.loads(child.stdout.readline())) if "id" in message else {}


def stdio_starts(data_dir: Path, rounds: int, name: str,
                 ) -> tuple[list[float], list[float], list[float]]:
    """ms from spawn to `initialize` answered, and to the first keyword search answered; CPU
    ms of each process (start, one search, exit)."""
    init, first, cpu = [], [], []
    for _ in range(rounds):
        cpu_before = child_cpu_ms()
        started = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", "memspace.cli", "stdio", "--space", "bench"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, env=child_env(data_dir))
        rpc(child, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"}}})
        init.append((time.perf_counter() - started) * 1000)
        rpc(child, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        answer = rpc(child, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "search_memory", "arguments": {"keyword": name}}})
        first.append((time.perf_counter() - started) * 1000)
        assert answer["result"]["structuredContent"]["total"] >= 1, answer
        child.communicate(timeout=60)
        cpu.append(child_cpu_ms() - cpu_before)
    return init, first, cpu


def serve(data_dir: Path, port: int) -> subprocess.Popen[bytes]:
    child = subprocess.Popen([sys.executable, "-m", "memspace.cli", "serve"],
                             env=child_env(data_dir, MEMSPACE_PORT=str(port)),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as r:
                if r.status == 200:
                    return child
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the HTTP server was not ready within 300 s")


async def call_costs(data_dir: Path, url: str, key: str, calls: int, names: list[str],
                     ) -> dict[str, list[float]]:
    import httpx2
    from mcp import Client, StdioServerParameters
    from mcp.client.streamable_http import streamable_http_client

    params = StdioServerParameters(command=sys.executable, env=child_env(data_dir), args=[
        "-m", "memspace.cli", "stdio", "--key", key, "--space", "bench"])
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60)
    out: dict[str, list[float]] = {}
    async with http, Client(params) as stdio, \
            Client(streamable_http_client(f"{url}/mcp", http_client=http)) as web:
        rng = random.Random(7)
        for tool, args in (("whoAmI", lambda: {}),
                           ("search_memory", lambda: {"keyword": rng.choice(names)})):
            for client in (stdio, web):  # warm both
                await client.call_tool(tool, args())
            for _ in range(calls):
                arguments = args()
                for transport, client in (("stdio", stdio), ("http", web)):
                    started = time.perf_counter()
                    result = await client.call_tool(tool, arguments)
                    out.setdefault(f"{tool} {transport}", []).append(
                        (time.perf_counter() - started) * 1000)
                    assert not result.is_error, result.content
    return out


def hook_runs(data_dir: Path, runs: int, names: list[str], url: str | None, key: str,
              ) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """ms per hook process, as Claude Code runs it; and its CPU ms."""
    rng = random.Random(11)
    env = child_env(data_dir, MEMSPACE_API_KEY=key)
    where = ["--url", url] if url else []
    out: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    for n in range(runs):
        hit = n % 2 == 0
        name = rng.choice(names) if hit else f"missing_name_{n}"
        prompt = {"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
                  "permission_mode": "default", "hook_event_name": "UserPromptSubmit",
                  "prompt": f"Why does {name} fail when the billing queue is full?"}
        for hook, stdin, label in (
                ("prompt-recall", json.dumps(prompt), "prompt-recall " + ("hit" if hit else "miss")),
                ("session-start", json.dumps({"hook_event_name": "SessionStart",
                                              "source": "startup"}), "session-start")):
            if hook == "session-start" and n % 4:
                continue
            started, cpu_before = time.perf_counter(), child_cpu_ms()
            done = subprocess.run([sys.executable, "-m", "memspace.cli", "hook", hook, "--space",
                                   "bench", *where], input=stdin.encode(), env=env,
                                  capture_output=True, check=True)
            out.setdefault(label, []).append((time.perf_counter() - started) * 1000)
            cpu.setdefault(label, []).append(child_cpu_ms() - cpu_before)
            if hook == "prompt-recall" and hit:
                assert name in done.stdout.decode(), f"{name} not recalled: {done.stdout!r}"
            elif hook == "prompt-recall":
                assert done.stdout == b"", done.stdout
    return out, cpu


def row(name: str, values: list[float], cpu: list[float] | None = None) -> str:
    line = (f"  {name:<24} n={len(values):<4} p50 {pct(values, 0.5):7.1f} ms   "
            f"p95 {pct(values, 0.95):7.1f} ms   min {min(values):7.1f} ms")
    if cpu:
        line += f"   cpu p50 {pct(cpu, 0.5):6.1f} ms"
    return line


def child_cpu_ms() -> float:
    """CPU time (user + system) of the children waited for so far, in ms: beside wall time on a
    shared machine, what the process itself cost."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (used.ru_utime + used.ru_stime) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--hooks", type=int, default=40)
    parser.add_argument("--port", type=int, default=8735)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        started = time.perf_counter()
        key, names = seed_store(data_dir, args.memories)
        print(f"store: {args.memories:,} memories in one space, {len(names)} naming an "
              f"identifier (seeded in {time.perf_counter() - started:.1f} s); "
              f"cpus {os.cpu_count()}, load {os.getloadavg()[0]:.1f}")
        init, first, cpu = stdio_starts(data_dir, args.starts, names[0])
        print("stdio start (spawn to answer; cpu: the whole process, start to exit):")
        print(row("initialize", init))
        print(row("first keyword search", first, cpu))
        url = f"http://127.0.0.1:{args.port}"
        server = serve(data_dir, args.port)
        try:
            costs = asyncio.run(call_costs(data_dir, url, key, args.calls, names))
            print("tool call, stdio beside HTTP (alternated, same key, same arguments):")
            for tool in ("whoAmI", "search_memory"):
                s, h = costs[f"{tool} stdio"], costs[f"{tool} http"]
                for label, values in ((f"{tool} stdio", s), (f"{tool} http", h)):
                    print(row(label, values))
                print(f"  {tool}: stdio - http p50 {pct(s, 0.5) - pct(h, 0.5):+.1f} ms, "
                      f"p95 {pct(s, 0.95) - pct(h, 0.95):+.1f} ms")
            for where in (None, url):
                runs, cpu_ms = hook_runs(data_dir, args.hooks, names, where, key)
                print(f"hooks, a process each ({'remote --url' if where else 'local store'}):")
                for label, values in sorted(runs.items()):
                    print(row(label, values, cpu_ms[label]))
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(f"load after: {os.getloadavg()[0]:.1f} (a shared machine inflates every figure)")


if __name__ == "__main__":
    main()

"""Many spaces, several replicas, a memory budget: warm and cold searches, adds, the cache's hit
ratio and each replica's RSS. Prints; asserts nothing (docs/scaling.md reads its figures).

Usage:
  bench_scale.py --memories N --spaces S --replicas R --cache-mb M --store sqlite|neo4j
                 [--ops 400] [--add-share 0.15] [--rate 0] [--neo4j-uri bolt://...] [--keep]
                 [--runs 1|2]
                 [--statements [--store-cpu]]
                 [--load-only | --reuse RUN] [--own-indexes build|off|as-is] [--idle-probe 15]

Both ways in one command: after the load, the workload runs on the fresh load (what a team that
imports its history and starts searching meets), then the same operations again on the database
as the first run left it (reused: what `--reuse` measures on a kept run); `--runs 1` stops
after the fresh run. Before each run it prints every index of the store and its state (online,
or populating with its percentage; SQLite builds none in the background), the machine's load
average and how busy it is over `--idle-probe` seconds with no operation (the store's
background work after a load, when it runs here), and after it the run's figures, with the
core-seconds the machine spent meanwhile (from the moment every replica has started and says it
is ready, as a server would before taking traffic: how long the starts took and the store's CPU
in them is printed apart) split into the replicas' own and the rest's (the
store's, when it runs on the same machine: /proc/stat), and the part of the replicas' spent in
the model's encoder (thread CPU in onnxruntime, per text and per operation), and the store's
by kind of thread (the JVM compiling and collecting, Neo4j's Bolt workers running statements,
its index sampling, the rest: /proc/<pid>/task). Last but one, one
line gives each run's CPU an operation by part: the replicas' beside the encoder, the encoder's,
and the store's (the Neo4j server's own process when it runs here, /proc/<pid>/stat; else the
machine's rest), with the encoder's time per text, so every figure carries the day's speed with
it; the first run's `scale:` line is last. The runs search
alike; each run's adds draw words of their own (seeded by the run's name), so that a second
run's adds are new writes too (replayed word for word they would all be refused as duplicates,
one read each: the reused runs measured before this had add figures of no write; with the same
words and the run's name they became corrections of the first run's adds). `--statements`
(Neo4j) times every statement the replicas send, by the operation running meanwhile (an add, a
search), and prints the costliest of each; with `--store-cpu` as well (best with `--replicas 1`)
each replica's statements run one at a time and each is charged the Neo4j server's CPU while it
ran: the store's CPU an operation, statement by statement.

Loading: S spaces of skewed sizes (the i-th ~ 1/i of the largest: a few large, many small),
N memories in all, written straight to the store in batches with a stand-in embedder (random
unit vectors, so a million memories do not wait for the model); their texts are drawn from a
fixed vocabulary so that full text matches. On Neo4j the spaces' slugs start with
`scale-<run>-` and --keep leaves them; otherwise they are deleted at the end. --load-only loads,
keeps and prints the run's name; --reuse RUN skips the load and runs the workload on a kept
run's spaces (same --memories and --spaces), so a long load is paid once and the workload can
be run on an idle machine, more than once.

Own vector indexes (Neo4j): a space of OWN_INDEX_MIN memories or more gets a vector index of its
own after its first cold search (stores/neo4j/space_vectors.py), built in the background. So
that the workload measures searches rather than those builds, `--own-indexes build` (the
default) builds them before the workload and prints how long that took; `off` makes the
replicas ignore them and never ask for one (the path before them, to compare in one session);
`as-is` leaves the store as it is.

Workload: R replica processes on the same store (SQLite file in WAL, or the one Neo4j), each
with MEMSPACE_CACHE_MB=M, run --ops operations each: a space drawn by Zipf (s = 1.1) over the
spaces by size rank, then a search (the real model embeds the query; the real search path) or,
with probability --add-share, an add (embedded by the model, the real add path). A search is
counted warm or cold by the path it took (SearchResult.path). The p95s are also printed by
quarter of each replica's operations: the first quarter is the cache filling (every space
cold until a load brings it in), the last is closer to a replica that has been running.

Pace: by default each replica runs its operations back to back, so the machine is saturated
whatever an operation costs, and a latency is its CPU times the contention (what a replica
meets at its peak). `--rate R` runs them open loop instead: operations arrive at random times,
R a second per replica on average (Poisson), and each one's latency counts from its arrival,
so one that waits behind a slower one counts the wait: what a replica serving R operations a
second meets, below saturation.

Each run's figures end with `fresh scale: …` / `reused scale: …`; the last line is the fresh
run's (the only run's with --reuse), for scripts comparing runs:
  scale: warm p95 X ms, cold p95 Y ms, add p95 Z ms, rss per replica W MB (budget M MB, model K MB)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from memspace.domain.errors import MemspaceError  # noqa: E402
from memspace.domain.models import Access, Memory  # noqa: E402
from memspace.domain.ports import WriteBatch  # noqa: E402
from memspace.domain.text import content_hash  # noqa: E402
from memspace.startup.container import build  # noqa: E402
from memspace.startup.settings import Settings  # noqa: E402

SYLLABLES = ["ka", "lo", "mi", "ren", "sa", "tor", "vel", "qui", "dan", "por", "zu", "bel",
             "nix", "ora", "tem", "gal", "fid", "mur", "sel", "ux"]
BATCH = 2_000
# Cold searches of spaces larger than this are also reported apart (on Neo4j, those ranked by
# its indexes rather than by a pass over the space: stores/neo4j/cold.py SCAN_MAX).
LARGE = 3_000
DIMENSIONS = 384


def vocabulary(size: int = 4_000) -> list[str]:
    rng = random.Random(7)
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def sizes(memories: int, spaces: int) -> list[int]:
    """Space sizes ~ 1/rank, summing to `memories`, each at least 1."""
    weights = [1 / (i + 1) for i in range(spaces)]
    total = sum(weights)
    out = [max(1, int(memories * w / total)) for w in weights]
    out[0] += memories - sum(out)
    return out


# How often a replica samples its RSS besides the figure at the end of its run (which catches
# a load of a space in flight, its rows as read, or not, by chance).
RSS_EVERY = 100


def rss_mb(field: str = "VmRSS") -> float:
    """This process's resident memory (VmRSS), or the highest it reached so far (VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return 0.0


def settings_for(args: argparse.Namespace, data_dir: str) -> Settings:
    return Settings(_env_file=None, data_dir=Path(data_dir), store=args.store,  # type: ignore[call-arg]
                    neo4j_uri=args.neo4j_uri if args.store == "neo4j" else None,
                    cache_mb=args.cache_mb, llm_model="")


def load(args: argparse.Namespace, data_dir: str, run: str) -> dict[str, Any]:
    """The spaces and their memories, written straight to the store; a key for the replicas."""
    app = build(settings_for(args, data_dir))
    words = vocabulary()
    rng = np.random.default_rng(39)
    pyrng = random.Random(39)
    slugs = [f"scale-{run}-{i}" for i in range(args.spaces)]
    started = time.perf_counter()
    now = datetime.now(UTC)
    for slug, size in zip(slugs, sizes(args.memories, args.spaces), strict=True):
        space = app.admin.create_space(slug)
        for first in range(0, size, BATCH):
            count = min(BATCH, size - first)
            vectors = rng.standard_normal((count, DIMENSIONS)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            batch = []
            for n in range(count):
                text = " ".join(pyrng.choices(words, k=pyrng.randint(6, 14))) + f" {slug} {first + n}"
                batch.append(Memory(id=uuid.uuid4().hex, space_id=space.id, content=text,
                                    category="general", embedding=vectors[n].tolist(),
                                    active=True, created_at=now, created_by="bench",
                                    content_hash=content_hash(text)))
            app.store.writes.write(WriteBatch(space.id, batch))
    seconds = time.perf_counter() - started
    key = app.admin.create_key("scale", {s: Access.READWRITE for s in slugs}).raw
    flush = getattr(app.store, "flush_vector_index", None)
    if flush is not None:
        flush(600.0)
    app.close()
    return {"slugs": slugs, "key": key, "load_rate": args.memories / seconds,
            "load_s": seconds}


def reuse(args: argparse.Namespace, data_dir: str) -> dict[str, Any]:
    """A kept run's spaces, and a new key for the replicas."""
    app = build(settings_for(args, data_dir))
    slugs = [f"scale-{args.reuse}-{i}" for i in range(args.spaces)]
    key = app.admin.create_key("scale", {s: Access.READWRITE for s in slugs}).raw
    app.close()
    return {"slugs": slugs, "key": key, "load_rate": float("nan"), "load_s": 0.0}


STATEMENTS: dict[str, dict[str, list[float]]] = {}  # operation -> statement -> ms (--statements)
STORE_CPU: dict[str, dict[str, list[float]]] = {}  # the same, the store's CPU ms (--store-cpu)
# The operation the replica's loop is running ("add", "search"): statements of every thread
# meanwhile count for it (an add's similar lookup runs on a thread of its own), and their text
# says which is a background load's or the vector feed's.
DOING = {"op": "start"}


def time_statements(store_cpu_of: int | None = None) -> None:
    """Every Neo4j statement timed, by the operation its thread was running: where an add's or
    a search's time goes, and what the background threads (loads, the vector feed) send.

    With `store_cpu_of` (the Neo4j server's pid, --store-cpu): the replica's statements run one
    at a time (a lock across its threads) and each is charged the server's CPU while it ran,
    so that with one replica the store's CPU is split exactly by statement (up to the server's
    own background work, which the idle probe shows)."""
    from memspace.stores.neo4j import connection

    # with --store-cpu, one statement at a time so that the server's CPU meanwhile is its own
    one_at_a_time = threading.Lock() if store_cpu_of is not None else contextlib.nullcontext()
    for name in ("read", "write_one", "write"):
        plain = getattr(connection.Neo4jConnection, name)

        def timed(self: Any, query: Any, *rest: Any, _plain: Any = plain, **params: Any) -> Any:
            text = query if isinstance(query, str) else getattr(query, "__qualname__", "tx")
            key = " ".join(text.split())[:80]
            op = DOING["op"]
            with one_at_a_time:
                began = time.perf_counter()
                used = process_cpu(store_cpu_of) if store_cpu_of is not None else 0.0
                try:
                    return _plain(self, query, *rest, **params)
                finally:
                    STATEMENTS.setdefault(op, {}).setdefault(key, []).append(
                        (time.perf_counter() - began) * 1000)
                    if store_cpu_of is not None:
                        STORE_CPU.setdefault(op, {}).setdefault(key, []).append(
                            (process_cpu(store_cpu_of) - used) * 1000)

        setattr(connection.Neo4jConnection, name, timed)


def process_cpu(pid: int) -> float:
    """Core-seconds one process has used so far (/proc/<pid>/stat: utime + stime)."""
    return process_cpu_of(Path(f"/proc/{pid}/stat"))


def process_cpu_of(stat: Path) -> float:
    """utime + stime of a process's or a thread's stat file, in core-seconds."""
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def worker(args: argparse.Namespace) -> None:
    """One replica: its own process and cache, the workload, its figures as one JSON line."""
    from memspace.services.search.search import SearchRequest

    job = json.loads(Path(args.job).read_text())
    if args.statements and args.store == "neo4j":
        time_statements(store_pid(port_of(args.neo4j_uri)) if args.store_cpu else None)
    if args.own_indexes == "off":
        without_own_indexes()
    base, began_start = rss_mb(), time.perf_counter()
    app = build(settings_for(args, job["data_dir"]))
    who = app.access.authenticate(job["key"])
    app.embedder.embed_queries(["warm the model"])
    model = rss_mb() - base
    # Ready; the run waits for every replica to be, so that its CPU is the operations' alone
    # (a replica's start, its model and first reads, is printed apart).
    print(json.dumps({"ready": f"started in {time.perf_counter() - began_start:.1f} s"}),
          flush=True)
    sys.stdin.readline()
    ready_cpu = cpu_seconds()
    words = vocabulary()
    rng = random.Random(job["seed"])
    fresh = random.Random(f"{job['seed']} {job['run']}")  # the adds' words, new in each run
    refused = 0
    slugs: list[str] = job["slugs"]
    weights = [1 / (i + 1) ** 1.1 for i in range(len(slugs))]
    timings: dict[str, list[float]] = {"warm": [], "cold": [], "add": [], "warm_loading": [],
                                       "cold_large": []}
    large = {slug for slug, size in zip(slugs, sizes(job["memories"], len(slugs)),
                                        strict=True) if size > LARGE}
    loader = app.search._cache  # to split the warm searches by a load running beside them
    loads = watch_loads(loader._cache)
    encoder = watch_encoder()
    DOING["op"] = "search"
    began_cpu = cpu_seconds()
    quarters: dict[str, list[int]] = {"warm": [], "cold": [], "add": []}
    sampled: list[float] = []  # RSS every RSS_EVERY operations
    pace = random.Random(f"{job['seed']} pace")  # arrivals (--rate), apart from the draws
    due = time.perf_counter()
    for op in range(args.ops):
        if op % RSS_EVERY == 0:
            sampled.append(rss_mb())
        slug = rng.choices(slugs, weights)[0]
        text = " ".join(rng.choices(words, k=rng.randint(2, 5)))
        if args.rate > 0:
            due += pace.expovariate(args.rate)
            if (wait := due - time.perf_counter()) > 0:
                time.sleep(wait)
            began = due  # late behind a slow operation: the wait counts
        else:
            began = time.perf_counter()
        if rng.random() < args.add_share:
            DOING["op"] = "add"
            # words of this run's own: a replay would be a duplicate, a near one a correction
            said = " ".join(fresh.choices(words, k=fresh.randint(6, 10)))
            try:
                app.memories.add(who, f"{said} added in the {job['run']} run", space=slug)
            except MemspaceError:  # e.g. the other replica's add changed the same memory
                refused += 1
            DOING["op"] = "search"
            timings["add"].append((time.perf_counter() - began) * 1000)
            quarters["add"].append(4 * op // args.ops)
        else:
            loading = getattr(loader, "loading", None) is not None
            found = app.search.search(who, SearchRequest(query=text, space=slug,
                                                         include_profile=False))
            timings[found.path].append((time.perf_counter() - began) * 1000)
            quarters[found.path].append(4 * op // args.ops)
            if found.path == "cold" and slug in large:
                timings["cold_large"].append(timings["cold"][-1])
            if found.path == "warm" and loading:
                timings["warm_loading"].append(timings["warm"][-1])
    budget = app.store.vector_cache.budget  # type: ignore[attr-defined]
    print(json.dumps({"timings": timings, "quarters": quarters, "rss": rss_mb(), "model": model,
                      "rss_sampled": max(sampled, default=0.0), "rss_peak": rss_mb("VmHWM"),
                      "loading_at_end": getattr(loader, "loading", None) is not None,
                      "hits": budget.hits, "misses": budget.misses,
                      "held_mb": budget.held_bytes / 2**20, "loads": loads,
                      "statements": STATEMENTS, "store_cpu": STORE_CPU, "refused": refused,
                      "cpu_s": cpu_seconds() - began_cpu,
                      "cpu_total_s": cpu_seconds() - ready_cpu,
                      "encoder": encoder}))
    app.close()


def cpu_seconds() -> float:
    """This process's CPU time, every thread (the searches, the loads, the vector feed)."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def machine_busy() -> tuple[float, float]:
    """(busy, total) core-seconds of the whole machine so far (/proc/stat; zeros elsewhere):
    over a run, what the replicas left is the store's and everything else's."""
    try:
        ticks = [int(t) for t in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    except (OSError, ValueError):
        return 0.0, 0.0
    hz = os.sysconf("SC_CLK_TCK")
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle and waiting for I/O
    return (sum(ticks) - idle) / hz, sum(ticks) / hz


def store_pids(port: int | None) -> list[int]:
    """The Neo4j servers of this machine (/proc: the processes whose command line names neo4j);
    of those started with `--port <port>` (tools/neo4j-local) only the one serving the bench's
    port. Empty when none runs here."""
    found: dict[int, bytes] = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            command = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if b"neo4j" in command.lower() and b"java" in command:
            found[int(proc.name)] = command
    serving = [pid for pid, c in found.items() if f"--port\0{port}\0".encode() in c + b"\0"]
    return serving or list(found)


def store_pid(port: int | None) -> int:
    pids = store_pids(port)
    if len(pids) != 1:
        raise SystemExit(f"--store-cpu needs the one Neo4j server of port {port} on this "
                         f"machine; found {len(pids)}")
    return pids[0]


def port_of(uri: str) -> int | None:
    return urlparse(uri).port


# The store's threads by name (HotSpot's "C2 CompilerThre", "GC Thread#0", "G1 Conc#0", …;
# Neo4j's "neo4j.BoltWorker", "neo4j.IndexSampling", …), first match wins; "other" is the rest.
THREAD_KINDS = {"compiling": ("C1 CompilerThre", "C2 CompilerThre"),
                "collecting": ("GC Thread", "G1 ", "VM Thread"),
                "statements": ("neo4j.BoltWorke",),
                "index sampling": ("neo4j.IndexSamp",)}


class StoreThreads:
    """The store's CPU over a window by kind of thread. The JVM ends idle compiler threads and
    Neo4j ends idle pool threads, taking their CPU with them, so every live thread is read once a
    second and a thread counts with its last reading (at most a second of an ending thread's
    CPU is missed, and then counted as "other")."""

    def __init__(self, port: int | None) -> None:
        self.pids = store_pids(port) if port is not None else []
        self.first: dict[tuple[int, int], float] = {}
        self.last: dict[tuple[int, int], tuple[str, float]] = {}
        self.stopping = threading.Event()
        self.sampler = threading.Thread(target=self.sample_each_second, daemon=True)

    def read(self) -> dict[tuple[int, int], tuple[str, float]]:
        seen = {}
        for pid in self.pids:
            try:
                tasks = list(Path(f"/proc/{pid}/task").iterdir())
            except OSError:
                continue
            for task in tasks:
                try:
                    seen[(pid, int(task.name))] = ((task / "comm").read_text().strip(),
                                                   process_cpu_of(task / "stat"))
                except OSError:
                    continue
        return seen

    def start(self) -> None:
        if self.pids:
            self.last = self.read()
            self.first = {tid: cpu for tid, (_, cpu) in self.last.items()}
            self.sampler.start()

    def sample_each_second(self) -> None:
        while not self.stopping.wait(1.0):
            self.last.update(self.read())

    def stop(self, store_s: float | None, ops: int) -> str | None:
        """The store's CPU an operation by kind of thread, None without a store here."""
        self.stopping.set()  # the sampler ends whatever is printed
        if self.sampler.is_alive():
            self.sampler.join()
        if not self.pids or store_s is None or not ops:
            return None
        self.last.update(self.read())
        spent = dict.fromkeys(THREAD_KINDS, 0.0)
        for tid, (name, cpu) in self.last.items():
            kind = next((k for k, names in THREAD_KINDS.items() if name.startswith(names)), None)
            if kind is not None:
                spent[kind] += cpu - self.first.get(tid, 0.0)
        parts = [f"{kind} {1000 * s / ops:.1f}" for kind, s in spent.items()]
        other = 1000 * (store_s - sum(spent.values())) / ops
        return f"store by thread: {', '.join(parts)}, other {other:.1f} ms an operation"


def store_busy(port: int | None) -> float | None:
    """Core-seconds used so far by the Neo4j server of this machine serving the bench's port
    (store_pids), None when none runs here or the store is not Neo4j (no port): the store's
    own CPU, apart from whatever else shares the machine."""
    if port is None:
        return None
    used = []
    for pid in store_pids(port):
        try:
            used.append(process_cpu(pid))
        except OSError:
            continue
    return sum(used) if used else None


def watch_encoder() -> dict[str, float]:
    """The CPU the model's encoder takes, on whichever thread runs it (a search's, an add's,
    the one serving coalesced calls): its texts, their tokens and the thread's CPU seconds in
    the network (onnxruntime runs a text on the calling thread, one onnxruntime thread each)."""
    from memspace.embeddings.onnx_encoder import OnnxEncoder

    spent = {"texts": 0, "tokens": 0, "cpu_s": 0.0}
    plain = OnnxEncoder.hidden

    def hidden(self: Any, ids: list[int]) -> Any:
        began = time.thread_time()
        out = plain(self, ids)
        spent["cpu_s"] += time.thread_time() - began
        spent["texts"] += 1
        spent["tokens"] += len(ids)
        return out

    OnnxEncoder.hidden = hidden  # type: ignore[method-assign]
    return spent


def watch_loads(cache: Any) -> list[float]:
    """The seconds each background load that brought a space in took (the CPU and store reads
    the warming takes beside the searches)."""
    loads: list[float] = []
    plain = cache.load

    def load(source: Any, space_id: str) -> None:
        held = cache.holds(space_id)
        began = time.perf_counter()
        plain(source, space_id)
        if not held and cache.holds(space_id):
            loads.append(time.perf_counter() - began)

    cache.load = load
    return loads


def without_own_indexes() -> None:
    """This replica's cold path as before spaces had vector indexes of their own."""
    from memspace.stores.neo4j import cold

    size_of = cold.Neo4jColdSearch._space
    cold.OWN_INDEX_MIN = 2**62
    cold.Neo4jColdSearch._space = (  # type: ignore[method-assign]
        lambda self, space_id: (size_of(self, space_id)[0], None))


def build_own_indexes(args: argparse.Namespace, data_dir: str, slugs: list[str]) -> None:
    """What replicas build in the background after a large space's first cold search, now."""
    from memspace.stores.neo4j.space_vectors import OWN_INDEX_MIN, SpaceVectorIndexes

    app = build(settings_for(args, data_dir))
    db = app.store.kit.db  # type: ignore[attr-defined]
    indexes = SpaceVectorIndexes(db)
    started, built, memories = time.perf_counter(), 0, 0
    for slug in slugs:
        [row] = db.read("MATCH (s:Space {slug: $slug}) RETURN s.id AS id, "
                        "coalesce(s.seq, 0) AS seq, s.vectorIndexReady AS ready", slug=slug)
        if row["seq"] < OWN_INDEX_MIN or row["ready"]:
            continue
        began = time.perf_counter()
        indexes.build(row["id"])
        built, memories = built + 1, memories + int(row["seq"])
        print(f"  own vector index of {slug} ({row['seq']:,} memories): "
              f"{time.perf_counter() - began:.1f} s")
    print(f"own vector indexes: {built} built ({memories:,} memories) in "
          f"{time.perf_counter() - started:.1f} s")
    indexes.close()
    app.close()


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))]


def cleanup(args: argparse.Namespace, data_dir: str, slugs: list[str]) -> None:
    if args.store != "neo4j" or args.keep:
        return
    from neo4j import GraphDatabase

    with GraphDatabase.driver(args.neo4j_uri, auth=None) as driver:
        for slug in slugs:
            [row] = driver.execute_query("MATCH (s:Space {slug: $slug}) RETURN s.id AS id",
                                         slug=slug).records
            while driver.execute_query(
                    "MATCH (m:Memory {spaceId: $id}) WITH m LIMIT 5000 DETACH DELETE m "
                    "RETURN count(*) AS n", id=row["id"]).records[0]["n"]:
                pass
            driver.execute_query("MATCH (s:Space {id: $id}) DETACH DELETE s", id=row["id"])
            driver.execute_query(f"DROP INDEX `space_vectors_{row['id']}` IF EXISTS")


def index_states(args: argparse.Namespace, data_dir: str) -> list[str]:
    """Every index of the store and its state, as lines to print: what the operations about
    to start run on."""
    app = build(settings_for(args, data_dir))
    states = getattr(app.store, "index_states", None)
    if states is None:
        app.close()
        return ["  sqlite: every index is written inside each transaction; none builds later"]
    found = states()
    app.close()
    lines = []
    for state in ("POPULATING", "FAILED", "ONLINE"):
        named = [f"{s.name} {s.percent:.1f}%" if state != "ONLINE" else s.name
                 for s in found if s.state == state]
        if named:
            lines.append(f"  {state.lower()} ({len(named)}): {', '.join(named)}")
    others = sorted({s.state for s in found} - {"POPULATING", "FAILED", "ONLINE"})
    for state in others:
        lines.append(f"  {state.lower()}: "
                     + ", ".join(f"{s.name} {s.percent:.1f}%" for s in found if s.state == state))
    return lines


def run_replicas(args: argparse.Namespace, data_dir: str, loaded: dict[str, Any],
                 label: str, ready: Callable[[], None]) -> list[dict[str, Any]]:
    """The workload on R replica processes at once; each one's report. The same searches and
    adds in every run, but each run's adds say which run they are: replayed word for word, a
    second run's adds would all be refused as contents the space already holds (an exact
    duplicate is found by one read, and nothing is written). `ready` is called once every
    replica has started and warmed up, before any runs an operation."""
    replicas = []
    for n in range(args.replicas):
        job = Path(data_dir) / f"job-{n}.json"
        job.write_text(json.dumps({"data_dir": data_dir, "key": loaded["key"],
                                   "slugs": loaded["slugs"], "seed": n,
                                   "memories": args.memories, "run": label}))
        replicas.append(subprocess.Popen(
            [sys.executable, __file__, "--worker", "--job", str(job), *sys.argv[1:]],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
    for n, proc in enumerate(replicas):  # each says it is ready, as serve would
        assert proc.stdout is not None and proc.stdin is not None
        line = proc.stdout.readline()
        if not line:
            raise SystemExit(f"replica {n} ended before it was ready (its errors are above)")
        print(f"  replica {n}: {json.loads(line)['ready']}")
    ready()
    for proc in replicas:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    reports = []
    for proc in replicas:
        out, _ = proc.communicate(timeout=7200)
        reports.append(json.loads(out.strip().splitlines()[-1]))
    return reports


def summary(args: argparse.Namespace, reports: list[dict[str, Any]]) -> str:
    """Prints one run's figures; answers its `scale:` line."""
    merged: dict[str, list[float]] = {k: [] for k in ("warm", "cold", "add", "warm_loading",
                                                      "cold_large")}
    for report in reports:
        for k, values in report["timings"].items():
            merged[k] += values
    for k, values in merged.items():
        label = {"warm_loading": "  ... while the replica was loading a space",
                 "cold_large": f"  ... of spaces over {LARGE:,} memories"}.get(k, f"{k:5s}")
        print(f"{label} n={len(values):5d}  p50 {pct(values, 0.5):7.1f} ms  "
              f"p95 {pct(values, 0.95):7.1f} ms")
    print("p95 by quarter of each replica's operations (the first is the cache filling):")
    for k in ("warm", "cold", "add"):
        by_quarter: list[list[float]] = [[], [], [], []]
        for report in reports:
            for value, quarter in zip(report["timings"][k], report["quarters"][k], strict=True):
                by_quarter[quarter].append(value)
        print(f"  {k:5s} " + "  ".join(f"{pct(values, 0.95):7.1f} ms (n={len(values)})"
                                       for values in by_quarter))
    refused = sum(r.get("refused", 0) for r in reports)
    if refused:
        print(f"adds refused: {refused} (counted in the add timings)")
    hits = sum(r["hits"] for r in reports)
    asked = hits + sum(r["misses"] for r in reports)
    print(f"cache hit ratio {hits / max(asked, 1):.2f} ({hits} of {asked} searches warm)")
    for n, r in enumerate(reports):
        print(f"replica {n}: rss {r['rss']:.0f} MB"
              f"{' (a load running)' if r.get('loading_at_end') else ''}, highest of the "
              f"samples every {RSS_EVERY} operations {r.get('rss_sampled', 0.0):.0f} MB, the "
              f"highest of the process's life {r.get('rss_peak', 0.0):.0f} MB (VmHWM), cache "
              f"held {r['held_mb']:.0f} MB, model {r['model']:.0f} MB, {len(r['loads'])} "
              f"spaces loaded in {sum(r['loads']):.1f} s")
    print_statements(reports)
    print_store_cpu(reports, sum(len(r["timings"][k]) for r in reports
                                 for k in ("warm", "cold", "add")))
    rss = max(r["rss"] for r in reports)
    model = statistics.mean(r["model"] for r in reports)
    return (f"scale: warm p95 {pct(merged['warm'], 0.95):.1f} ms, cold p95 "
            f"{pct(merged['cold'], 0.95):.1f} ms, add p95 {pct(merged['add'], 0.95):.1f} ms, "
            f"rss per replica {rss:.0f} MB (budget {args.cache_mb} MB, model {model:.0f} MB)")


def merged_statements(reports: list[dict[str, Any]], field: str) -> dict[str, dict[str, list[float]]]:
    """The replicas' per-statement figures (`statements` or `store_cpu`) in one:
    operation -> statement -> values."""
    merged: dict[str, dict[str, list[float]]] = {}
    for report in reports:
        for op, statements in report.get(field, {}).items():
            for key, values in statements.items():
                merged.setdefault(op, {}).setdefault(key, []).extend(values)
    return merged


def print_statements(reports: list[dict[str, Any]]) -> None:
    """With --statements: per operation, the statements that took most of its time."""
    for op, statements in sorted(merged_statements(reports, "statements").items()):
        print(f"statements of {op} (both replicas), by total time:")
        for key, values in sorted(statements.items(), key=lambda kv: -sum(kv[1]))[:8]:
            print(f"  {sum(values) / 1000:7.1f} s  n={len(values):5d}  p50 {pct(values, 0.5):7.1f} "
                  f"ms  p95 {pct(values, 0.95):7.1f} ms  {key}")


def print_store_cpu(reports: list[dict[str, Any]], operations: int) -> None:
    """With --store-cpu: per operation, the statements that took most of the store's CPU, and
    what each costs the store an operation of the run."""
    per_op = 1 / max(operations, 1)
    for op, statements in sorted(merged_statements(reports, "store_cpu").items()):
        total = sum(sum(v) for v in statements.values())
        print(f"store CPU of {op}: {total / 1000:.1f} core-s, {total * per_op:.1f} "
              "ms an operation of the run; by statement:")
        for key, values in sorted(statements.items(), key=lambda kv: -sum(kv[1]))[:10]:
            print(f"  {sum(values) * per_op:6.2f} ms an operation  n={len(values):5d}  "
                  f"{sum(values) / len(values):6.2f} ms each  {key}")


def operations(reports: list[dict[str, Any]]) -> int:
    return sum(len(r["timings"][kind]) for r in reports for kind in ("warm", "cold", "add"))


def print_cpu(reports: list[dict[str, Any]], seconds: float, before: tuple[float, float],
              after: tuple[float, float], store_s: float | None) -> str:
    """Where the machine's cores went during a run: the replicas' own CPU and the rest (the
    store, when it runs on this machine, and anything else). Answers the run's CPU an
    operation by part (`store_s`: the Neo4j server's core-seconds over the run, when it runs
    here), with the encoder's time per text, for the line printed last but one."""
    ops = operations(reports)
    working = sum(r.get("cpu_s", 0.0) for r in reports)
    replicas = sum(r.get("cpu_total_s", 0.0) for r in reports)  # since they were ready
    busy = after[0] - before[0]
    cores = (after[1] - before[1]) / seconds if seconds else 0.0
    print(f"cpu: machine busy {busy:.1f} core-s of {after[1] - before[1]:.1f} "
          f"({busy / seconds:.2f} of {cores:.0f} cores); replicas {replicas:.1f} core-s, "
          f"{working:.1f} of them during the operations "
          f"({1000 * working / max(ops, 1):.0f} ms an operation); the rest (the store and "
          f"anything else) {busy - replicas:.1f} core-s "
          f"({1000 * (busy - replicas) / max(ops, 1):.0f} ms an operation)")
    spent = [r["encoder"] for r in reports if r.get("encoder")]
    texts = sum(e["texts"] for e in spent)
    if texts:
        cpu = sum(e["cpu_s"] for e in spent)
        print(f"cpu: of the replicas', the model's encoder {cpu:.1f} core-s for {texts} texts "
              f"({1000 * cpu / texts:.1f} ms a text of {sum(e['tokens'] for e in spent) / texts:.1f} "
              f"tokens on average; {1000 * cpu / max(ops, 1):.0f} ms an operation)")
    encoder = sum(e["cpu_s"] for e in spent)
    per_op = 1000 / max(ops, 1)
    store = ("store (Neo4j's process) " + f"{store_s * per_op:.1f}" if store_s is not None
             else "store and the rest " + f"{(busy - replicas) * per_op:.1f}")
    per_text = f"{1000 * encoder / texts:.1f} ms a text" if texts else "no text encoded"
    return (f"replicas beside the encoder {(working - encoder) * per_op:.1f}, encoder "
            f"{encoder * per_op:.1f}, {store} ms an operation; the encoder {per_text}")


def idle_probe(seconds: float) -> str:
    """How busy the machine is with no operation running: what the store does in the background
    after a load (index merges and sampling, checkpoints, garbage collection), when it runs
    here, besides anything else on the machine."""
    before, began = machine_busy(), time.perf_counter()
    time.sleep(seconds)
    after, took = machine_busy(), time.perf_counter() - began
    return (f"idle, before the operations: machine busy {after[0] - before[0]:.1f} core-s in "
            f"{took:.0f} s ({(after[0] - before[0]) / took:.2f} cores)")


def loadavg() -> str:
    return "load average " + " ".join(Path("/proc/loadavg").read_text().split()[:3])


class Window:
    """A run's CPU window: from the moment every replica is ready (started and warmed up, as
    serve is before /readyz says ready) to the end; what the start took is printed apart."""

    def __init__(self, port: int | None) -> None:
        self.port = port
        self.spawned, self.before_start = time.perf_counter(), store_busy(port)
        self.started, self.busy, self.store = self.spawned, machine_busy(), self.before_start
        self.threads = StoreThreads(port)

    def ready(self) -> None:
        self.started, self.busy, self.store = (time.perf_counter(), machine_busy(),
                                               store_busy(self.port))
        self.threads.start()
        used = (f", the store's CPU meanwhile {self.store - self.before_start:.1f} core-s"
                if self.store is not None and self.before_start is not None else "")
        print(f"replicas ready in {self.started - self.spawned:.1f} s{used}")


def workloads(args: argparse.Namespace, data_dir: str, loaded: dict[str, Any],
              cpu_lines: list[str]) -> list[str]:
    """The operations on the fresh load, then the same again on the database as it is after
    them (reused), or once with --reuse; each run's `scale:` line. Each run's CPU an operation
    by part goes to `cpu_lines`."""
    lines = []
    for label in (["reused"] if args.reuse else ["fresh", "reused"][:args.runs]):
        if args.store == "neo4j" and args.own_indexes == "build":
            build_own_indexes(args, data_dir, loaded["slugs"])
        print(f"--- {label} run: indexes as the operations start ({loadavg()}):")
        for line in index_states(args, data_dir):
            print(line)
        if args.idle_probe > 0:
            print(idle_probe(args.idle_probe))
        port = urlparse(args.neo4j_uri).port if args.store == "neo4j" else None
        window = Window(port)
        reports = run_replicas(args, data_dir, loaded, f"{label} {uuid.uuid4().hex[:6]}",
                               window.ready)
        started, busy, store = window.started, window.busy, window.store
        seconds = time.perf_counter() - started
        store_after = store_busy(port)
        print(f"{label} run: {seconds:.0f} s, {loadavg()}")
        store_s = store_after - store if store is not None and store_after is not None else None
        cpu_lines.append(f"{label}: " + print_cpu(reports, seconds, busy, machine_busy(),
                                                  store_s))
        split = window.threads.stop(store_s, operations(reports))
        if split:
            print(split)
        lines.append(summary(args, reports))
        print(f"{label} " + lines[-1])
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--spaces", type=int, default=100)
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--cache-mb", type=int, default=64)
    parser.add_argument("--store", choices=("sqlite", "neo4j"), default="sqlite")
    parser.add_argument("--neo4j-uri",
                        default=os.environ.get("MEMSPACE_NEO4J_URI", "bolt://127.0.0.1:7687"))
    parser.add_argument("--ops", type=int, default=400, help="operations per replica")
    parser.add_argument("--idle-probe", type=float, default=15.0, metavar="S",
                        help="seconds of no operation before each run, its busy cores printed")
    parser.add_argument("--add-share", type=float, default=0.15)
    parser.add_argument("--rate", type=float, default=0.0,
                        help="operations a second per replica, arriving at random (open loop); "
                             "0: back to back")
    parser.add_argument("--runs", type=int, choices=(1, 2), default=2,
                        help="after a load: the fresh run, then (2) the same on the reused "
                             "database")
    parser.add_argument("--keep", action="store_true", help="(neo4j) leave the data")
    parser.add_argument("--load-only", action="store_true",
                        help="(neo4j) load, keep, print the run's name and stop")
    parser.add_argument("--reuse", metavar="RUN",
                        help="(neo4j) no load: the workload on a kept run's spaces")
    parser.add_argument("--own-indexes", choices=("build", "off", "as-is"), default="build",
                        help="(neo4j) large spaces' own vector indexes: build them before the "
                             "workload, have the replicas ignore them, or leave them as they are")
    parser.add_argument("--statements", action="store_true",
                        help="(neo4j) time every statement the replicas send, by operation")
    parser.add_argument("--store-cpu", action="store_true",
                        help="(neo4j, with --statements, best with --replicas 1) each statement "
                             "charged the Neo4j server's CPU while it ran; a replica's statements "
                             "then run one at a time")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--job", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    if (args.load_only or args.reuse) and args.store != "neo4j":
        parser.error("--load-only and --reuse keep data in Neo4j: add --store neo4j")
    if args.store_cpu and not (args.statements and args.store == "neo4j"):
        parser.error("--store-cpu charges statements: add --statements --store neo4j")
    if args.load_only:
        args.keep = True
    data_dir = tempfile.mkdtemp(prefix="memspace-scale-")
    run = args.reuse or uuid.uuid4().hex[:6]
    print(f"$ {' '.join([Path(sys.executable).name, *sys.argv])}")
    print(f"store {args.store}, {args.memories:,} memories in {args.spaces} spaces "
          f"(largest {sizes(args.memories, args.spaces)[0]:,}), {args.replicas} replicas, "
          f"budget {args.cache_mb} MB, cores {os.cpu_count()} (shared: figures are ratios), "
          f"{f'{args.rate:g} operations/s per replica' if args.rate else 'back to back'}, "
          f"{loadavg()}")
    if args.reuse:
        args.keep = True
        loaded = reuse(args, data_dir)
        print(f"load: none, the kept run {run}")
    else:
        loaded = load(args, data_dir, run)
        print(f"load: {loaded['load_rate']:,.0f} memories/s ({loaded['load_s']:.0f} s, stand-in "
              f"embedder), run {run}, {loadavg()}")
    if args.load_only:
        print(f"kept: run the workload with --reuse {run}")
        return
    cpu_lines: list[str] = []
    try:
        lines = workloads(args, data_dir, loaded, cpu_lines)
    finally:
        cleanup(args, data_dir, loaded["slugs"])
    # Last but one: each run's CPU an operation by part beside the encoder's time per text, so
    # every figure above carries the day's speed with it; last, the first run's `scale:` line.
    print("cpu an operation, " + "; ".join(cpu_lines))
    print(lines[0])


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    main()

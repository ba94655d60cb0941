"""Retrieval recall on LoCoMo, by the protocol of shared/bench/README.md. Prints; asserts nothing.

One space per conversation, one memory per turn ("<speaker>: <text>", saved with `speaker` and
`observedAt` = the session's date, as an agent logging the conversation would), flat mode (no
model). Every question of categories 1-4 with evidence is asked through `search_memory` with
default arguments (top 10; top 20 for R@20); a question is an any-hit at k when one of its
evidence turns is in the top k, an all-hit when all are. The vector and full-text lists the
search blends are also scored on their own, straight from the store.

Conversations 26-44 are the part the search was tuned on; 47-50 are reported apart as held out.

Usage:
  recall_locomo.py [--store sqlite|neo4j] [--neo4j-uri bolt://...] [--mcp] [--only 26,30]
                   [--embedder e5-small-v2|all-minilm-l6-v2]
                   [--data ../shared/bench/locomo10]
  --mcp  loads and asks through a `memspace serve` subprocess over MCP (streamable HTTP), the
         way agents reach it, instead of calling the services in process.
  --cold also asks every question served cold (the store's own indexes, as a replica answers a
         space it does not hold: docs/scaling.md) and prints the gap to warm at each k.
  --cold-scan-max N  (Neo4j) spaces of more than N memories take the vector and full-text
         index path when cold (stores/neo4j/cold.py SCAN_MAX); 0 sends every space there.
  --own-index-min N  (Neo4j) spaces of N memories or more on that path get a vector index of
         their own (stores/neo4j/space_vectors.py OWN_INDEX_MIN), built before their questions;
         with --cold-scan-max 0 and 0 here, every cold question asks a space's own index. The
         indexes stay in the database, as the spaces do.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from memspace.domain.models import Access, MemoryFilter  # noqa: E402
from memspace.services.search.search import SearchRequest  # noqa: E402
from memspace.startup.container import build  # noqa: E402
from memspace.startup.settings import Settings  # noqa: E402

# ../shared/bench/locomo10 beside the checkout (or beside the folder of worktrees)
DATA = next((p for p in (ROOT.parent / "shared" / "bench" / "locomo10",
                         ROOT.parents[1] / "shared" / "bench" / "locomo10") if p.exists()),
            ROOT.parent / "shared" / "bench" / "locomo10")
TUNED = {"26", "30", "41", "42", "43", "44"}
CACHE = Path.home() / ".cache" / "memspace"  # vectors of earlier runs, per model
KS = (5, 10, 20)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


@dataclass
class Turn:
    dia_id: str
    speaker: str
    content: str
    observed_at: datetime | None
    session: int


@dataclass
class Conversation:
    name: str
    turns: list[Turn]
    questions: list[dict[str, Any]]


@dataclass
class Tally:
    n: int = 0
    any_hits: dict[int, int] = field(default_factory=lambda: dict.fromkeys(KS, 0))
    all_hits: dict[int, int] = field(default_factory=lambda: dict.fromkeys(KS, 0))

    def count(self, evidence: set[str], found: Sequence[set[str]]) -> None:
        self.n += 1
        for k in KS:
            seen = set().union(*found[:k]) if found[:k] else set()
            self.any_hits[k] += bool(evidence & seen)
            self.all_hits[k] += evidence <= seen

    def row(self) -> str:
        if not self.n:
            return "(no questions)"
        a, b = self.any_hits, self.all_hits
        return (f"R@5 any {a[5] / self.n:.3f}  R@10 any {a[10] / self.n:.3f}  "
                f"R@20 any {a[20] / self.n:.3f}  R@10 all {b[10] / self.n:.3f}  (n={self.n})")


def session_time(text: str | None) -> datetime | None:
    """LoCoMo writes "1:56 pm on 8 May, 2023"; no zone is given, so UTC."""
    if not text:
        return None
    try:
        return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    except ValueError:
        return None


def load(data: Path, only: set[str] | None) -> list[Conversation]:
    out = []
    for path in sorted(data.glob("*.json")):
        if only and path.stem not in only:
            continue
        raw = json.loads(path.read_text())
        turns: list[Turn] = []
        n = 1
        while f"session_{n}" in raw:
            when = session_time(raw.get(f"session_{n}_date_time"))
            for t in raw[f"session_{n}"]:
                turns.append(Turn(t["dia_id"], t["speaker"], f'{t["speaker"]}: {t["text"]}', when, n))
            n += 1
        questions = [q for q in raw["qa"] if q.get("category") in CATEGORIES and q.get("evidence")]
        out.append(Conversation(path.stem, turns, questions))
    return out


class CachedEmbedder:
    """The real embedder, primed in large batches with the texts the adds and searches will ask
    for (a memory's content, the questions as queries): loading is faster, vectors identical."""

    QUERY = "\0query\0"  # a query's key in the cache: a model may read a query differently

    def __init__(self, inner: Any, keep: Path | None = None) -> None:
        self._inner = inner
        self._ready: dict[str, Any] = {}
        self._keep = keep  # vectors of earlier runs (same model), so a rerun skips the model
        if keep is not None and keep.exists():
            saved = json.loads(keep.read_text())
            self._ready.update((t, v) for t, v in saved.items())

    def save(self) -> None:
        if self._keep is not None:
            self._keep.parent.mkdir(parents=True, exist_ok=True)
            self._keep.write_text(json.dumps({t: [float(x) for x in v]
                                              for t, v in self._ready.items()}))

    @property
    def dimensions(self) -> int:
        return int(self._inner.dimensions)

    @property
    def calibration(self) -> Any:
        return self._inner.calibration

    def prime(self, texts: Sequence[str], queries: Sequence[str] = ()) -> None:
        for keys, strip, embed in ((texts, "", self._inner.embed),
                                   ([self.QUERY + q for q in queries], self.QUERY,
                                    self._inner.embed_queries)):
            missing = [t for t in dict.fromkeys(keys) if t not in self._ready]
            for start in range(0, len(missing), 256):
                batch = missing[start:start + 256]
                self._ready.update(zip(batch, embed([t[len(strip):] for t in batch]), strict=True))

    def embed(self, texts: Sequence[str]) -> list[Any]:
        self.prime(texts)
        return [self._ready[t] for t in texts]

    def embed_queries(self, texts: Sequence[str]) -> list[Any]:
        self.prime((), texts)
        return [self._ready[self.QUERY + t] for t in texts]


def likely_texts(conversations: Sequence[Conversation]) -> tuple[list[str], list[str]]:
    """The turns' contents and the questions."""
    return ([t.content for c in conversations for t in c.turns],
            [q["question"] for c in conversations for q in c.questions])


def score(conversations: Sequence[Conversation], answers: dict[str, dict[str, list[set[str]]]],
          lists: Sequence[str]) -> None:
    for part, names in (("all ten", None), ("tuned on (26-44)", TUNED),
                        ("held out (47-50)", {c.name for c in conversations} - TUNED)):
        print(f"\n{part}:")
        for name in lists:
            tally = Tally()
            for c in conversations:
                if names is not None and c.name not in names:
                    continue
                for q, found in zip(c.questions, answers[name][c.name], strict=True):
                    tally.count(set(q["evidence"]), found)
            print(f"  {name:28s} {tally.row()}")
    print("\nsearch_memory by category (all ten):")
    for cat, label in CATEGORIES.items():
        tally = Tally()
        for c in conversations:
            for q, found in zip(c.questions, answers["search_memory"][c.name], strict=True):
                if q["category"] == cat:
                    tally.count(set(q["evidence"]), found)
        print(f"  {cat} {label:12s} {tally.row()}")


class _AlwaysCold:
    """A SpaceCache for which no space is ever held: every search takes the cold path."""

    def is_warm(self, space_id: str) -> bool:
        return False

    def warm_later(self, space_id: str) -> None:
        pass

    def full(self) -> bool:
        return True


def in_process(conversations: Sequence[Conversation], settings: Settings,
               cold: bool = False, own_indexes: bool = False) -> dict[str, Any]:
    from memspace.embeddings.local import LOCAL_MODELS, LocalEmbedder

    model = LOCAL_MODELS[settings.embedding_model]
    keep = CACHE / f"locomo-{model.name}-vectors.json"
    embedder = CachedEmbedder(LocalEmbedder(model), keep)
    start = time.perf_counter()
    embedder.prime(*likely_texts(conversations))
    embedder.save()
    print(f"embedded ahead in {time.perf_counter() - start:.0f} s")
    app = build(settings, embedder=embedder)
    cold_search = None
    if cold:
        from memspace.services.search.search import SearchService
        from memspace.startup.container import build_search_paths

        _, cold_path = build_search_paths(settings, app.store)
        cold_search = SearchService(app.store, embedder, app.access, app.profiles,
                                    settings.max_query_chars, features=app.search.features,
                                    cache=_AlwaysCold(), cold=cold_path)
    run = int(time.time())
    slugs = {c.name: f"locomo-{c.name}-{run}" for c in conversations}
    for slug in slugs.values():
        app.admin.create_space(slug)
    who = app.access.authenticate(app.admin.create_key(
        "locomo", {s: Access.READWRITE for s in slugs.values()}).raw)
    answers: dict[str, dict[str, list[set[str]]]] = defaultdict(dict)
    latencies: list[float] = []
    start = time.perf_counter()
    for c in conversations:
        dia: dict[str, set[str]] = defaultdict(set)
        for t in c.turns:
            result = app.memories.add(who, t.content, space=slugs[c.name], speaker=t.speaker,
                                      observed_at=t.observed_at)
            dia[result.memories[0].id].add(t.dia_id)
        space_id = app.store.directory.get_space_by_slug(slugs[c.name]).id  # type: ignore[union-attr]
        where = MemoryFilter(space_id)
        app.store.vector_cache.load(app.store.search, space_id)  # type: ignore[attr-defined]
        flush = getattr(app.store, "flush_vector_index", None)  # Neo4j: its indexes caught up
        if cold_search is not None and flush is not None:
            flush(600.0)
            indexes = getattr(cold_path, "indexes", None)
            if own_indexes and indexes is not None and not indexes.build(space_id):
                raise SystemExit(f"the own vector index of {slugs[c.name]} was not built")
        for name in ("search_memory", "vector list alone", "full-text list alone",
                     "search_memory cold"):
            answers[name][c.name] = []
        for q in c.questions:
            if cold_search is not None:
                ask = SearchRequest(query=q["question"], space=slugs[c.name],
                                    include_profile=False)
                cold10 = cold_search.search(who, ask)
                cold20 = cold_search.search(who, replace(ask, limit=20))
                assert cold10.path == cold20.path == "cold"
                answers["search_memory cold"][c.name].append(
                    [dia[h.memory.id] for h in [*cold10.hits, *cold20.hits[10:]]])
            began = time.perf_counter()
            top10 = app.search.search(who, SearchRequest(query=q["question"], space=slugs[c.name],
                                                         include_profile=False)).hits
            latencies.append((time.perf_counter() - began) * 1000)
            top20 = app.search.search(who, SearchRequest(query=q["question"], space=slugs[c.name],
                                                         limit=20, include_profile=False)).hits
            ranked = [h.memory.id for h in top10] + [h.memory.id for h in top20[10:]]
            answers["search_memory"][c.name].append([dia[i] for i in ranked])
            [vector] = embedder.embed_queries([q["question"]])
            answers["vector list alone"][c.name].append(
                [dia[h.memory.id] for h in app.store.search.vector_search(where, vector, 20)])
            answers["full-text list alone"][c.name].append(
                [dia[h.memory.id] for h in app.store.search.text_search(where, q["question"], 20)])
    print(f"loaded and asked in {time.perf_counter() - start:.0f} s")
    app.close()
    return {"answers": answers, "latencies": latencies}


def served(conversations: Sequence[Conversation], settings: Settings,
           env: dict[str, str]) -> dict[str, Any]:
    """Spaces and a key made in the data dir, then `memspace serve` on it, asked over MCP."""
    app = build(settings)
    run = int(time.time())
    slugs = {c.name: f"locomo-{c.name}-{run}" for c in conversations}
    for slug in slugs.values():
        app.admin.create_space(slug)
    key = app.admin.create_key("locomo", {s: Access.READWRITE for s in slugs.values()}).raw
    app.close()
    server = subprocess.Popen([sys.executable, "-m", "memspace.cli", "serve"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        return asyncio.run(over_mcp(conversations, slugs, key, server,
                                    f"http://127.0.0.1:{env['MEMSPACE_PORT']}"))
    finally:
        server.terminate()
        server.wait(timeout=60)


async def over_mcp(conversations: Sequence[Conversation], slugs: dict[str, str], key: str,
                   server: subprocess.Popen[bytes], url: str) -> dict[str, Any]:
    import httpx
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    answers: dict[str, dict[str, list[set[str]]]] = defaultdict(dict)
    latencies: list[float] = []
    async with httpx.AsyncClient(timeout=5) as probe:
        while True:
            if server.poll() is not None:
                raise SystemExit(f"memspace serve exited with {server.returncode}")
            try:
                if (await probe.get(f"{url}/readyz")).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.2)
    http = httpx.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=120)
    async with http, Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
        for c in conversations:
            dia: dict[str, set[str]] = defaultdict(set)
            for t in c.turns:
                args: dict[str, Any] = {"content": t.content, "space": slugs[c.name],
                                        "speaker": t.speaker}
                if t.observed_at is not None:
                    args["observedAt"] = t.observed_at.isoformat()
                added = await client.call_tool("add_memory", args)
                dia[added.structured_content["memories"][0]["id"]].add(t.dia_id)  # type: ignore[index]
            answers["search_memory"][c.name] = []
            for q in c.questions:
                began = time.perf_counter()
                top10 = await client.call_tool("search_memory", {
                    "query": q["question"], "space": slugs[c.name]})
                latencies.append((time.perf_counter() - began) * 1000)
                top20 = await client.call_tool("search_memory", {
                    "query": q["question"], "space": slugs[c.name], "limit": 20,
                    "includeProfile": False})
                ranked = ([r["id"] for r in top10.structured_content["results"]]  # type: ignore[index]
                          + [r["id"] for r in top20.structured_content["results"][10:]])  # type: ignore[index]
                answers["search_memory"][c.name].append([dia[i] for i in ranked])
    return {"answers": answers, "latencies": latencies}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", choices=("sqlite", "neo4j"), default="sqlite")
    parser.add_argument("--neo4j-uri",
                        default=os.environ.get("MEMSPACE_NEO4J_URI", "bolt://127.0.0.1:7687"))
    parser.add_argument("--mcp", action="store_true", help="through `memspace serve` over MCP")
    parser.add_argument("--only", default="", help="comma-separated conversation names (file stems)")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--port", type=int, default=8791)
    parser.add_argument("--cold", action="store_true",
                        help="also ask every question served cold, and print the gap")
    parser.add_argument("--cold-scan-max", type=int, default=None,
                        help="(neo4j) cold spaces above this size use the indexes")
    parser.add_argument("--own-index-min", type=int, default=None,
                        help="(neo4j) cold spaces this large get their own vector index")
    parser.add_argument("--embedder", choices=("e5-small-v2", "all-minilm-l6-v2"),
                        default="e5-small-v2", help="the local model (default: the server's own)")
    args = parser.parse_args()
    conversations = load(args.data, set(args.only.split(",")) if args.only else None)
    if not conversations:
        raise SystemExit(f"no LoCoMo conversations found in {args.data}")
    data_dir = tempfile.mkdtemp(prefix="memspace-locomo-")
    env = {**os.environ, "MEMSPACE_DATA_DIR": data_dir, "MEMSPACE_STORE": args.store,
           "MEMSPACE_PORT": str(args.port), "MEMSPACE_LLM_MODEL": "",
           "MEMSPACE_EMBEDDING_MODEL": args.embedder}
    if args.store == "neo4j":
        env["MEMSPACE_NEO4J_URI"] = args.neo4j_uri
    settings = Settings(_env_file=None, data_dir=Path(data_dir), store=args.store,  # type: ignore[call-arg]
                        embedding_model=args.embedder,
                        neo4j_uri=args.neo4j_uri if args.store == "neo4j" else None)
    print(f"$ {' '.join([Path(sys.executable).name, *sys.argv])}")
    print(f"store {args.store}, embedder {args.embedder}, "
          f"{'MCP over HTTP' if args.mcp else 'in process'}, "
          f"{sum(len(c.turns) for c in conversations):,} turns, "
          f"{sum(len(c.questions) for c in conversations):,} questions, cores {os.cpu_count()}")
    if args.mcp:
        result = served(conversations, settings, env)
        lists = ["search_memory"]
    else:
        if args.cold_scan_max is not None:
            from memspace.stores.neo4j import cold as neo4j_cold

            neo4j_cold.SCAN_MAX = args.cold_scan_max
        if args.own_index_min is not None:
            from memspace.stores.neo4j import cold as neo4j_cold

            neo4j_cold.OWN_INDEX_MIN = args.own_index_min
        result = in_process(conversations, settings, args.cold,
                            own_indexes=args.own_index_min is not None)
        lists = ["search_memory", "vector list alone", "full-text list alone"]
        if args.cold:
            lists.append("search_memory cold")
    score(conversations, result["answers"], lists)
    if args.cold and not args.mcp:
        for k in (10, 20):
            hit = {name: [bool(set(q["evidence"]) & set().union(set(), *found[:k]))
                          for c in conversations
                          for q, found in zip(c.questions, result["answers"][name][c.name],
                                              strict=True)]
                   for name in ("search_memory", "search_memory cold")}
            warm, cold = (sum(v) / len(v) for v in hit.values())
            print(f"cold vs warm R@{k} (any): warm {warm:.3f}, cold {cold:.3f}, "
                  f"gap {warm - cold:+.3f}")
    lat = sorted(result["latencies"])
    # The questions' vectors come from CachedEmbedder, primed before: the model's cost per
    # query is not in this figure (bench/encoder_cost.py measures it).
    print(f"\nsearch_memory latency (default arguments, the query's vector ready): "
          f"p50 {statistics.median(lat):.1f} ms  p95 {lat[int(0.95 * (len(lat) - 1))]:.1f} ms"
          "  (a figure only on an idle machine)")


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    main()

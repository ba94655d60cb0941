"""How much of a large space's exact nearest memories its own vector index finds, by `k`.

A large cold space on Neo4j is asked of its own vector index (HNSW, stores/neo4j/space_vectors.py)
for `k` nodes; the cold path keeps the best 2 x limit of them by the index's score and re-ranks
those by the exact cosine (stores/neo4j/cold.py). bench_scale loads random stand-in vectors, on
which such a graph finds least (nothing clusters); this bench measures the same reads on text
embedded by the default model (e5-small-v2), beside a space of stand-in vectors of the same
size, in one Neo4j, one run.

The text: sentences of the docstrings of the Python installed here (its standard library and
site-packages: real English on many subjects, no dataset's wording), cut at sentence ends, 40 to
300 characters, duplicates dropped, shuffled by a seed. N of them are stored in one space; the
queries are other sentences of the same pool, embedded as queries. The exact answer is every
vector of the space scored in numpy. For each `k` it prints, over the queries, the share of the
exact top 10 and top 50 the re-ranked list holds, and the read's median time. The queries are
split in two halves: a `k` is chosen on the first (`tune`) and the second (`report`) is the
figure to quote.

    PYTHONPATH=src .venv/bin/python bench/own_index_recall.py --neo4j-uri bolt://127.0.0.1:7697

Needs a Neo4j of its own (it writes two spaces and deletes them at the end; --keep leaves
them). The vectors are cached in ~/.cache/memspace/own-index-recall-<N>.npz. Asserts nothing.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import random
import re
import statistics
import sys
import sysconfig
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_scale import BATCH, DIMENSIONS, cleanup, sizes  # noqa: E402

from memspace.domain.models import Memory  # noqa: E402
from memspace.domain.ports import WriteBatch  # noqa: E402
from memspace.domain.text import content_hash  # noqa: E402
from memspace.startup.container import build  # noqa: E402
from memspace.startup.settings import Settings  # noqa: E402
from memspace.stores.neo4j import cold  # noqa: E402
from memspace.stores.neo4j.cypher import cold as cypher  # noqa: E402
from memspace.stores.neo4j.space_vectors import SpaceVectorIndexes, names  # noqa: E402

CACHE = Path.home() / ".cache" / "memspace"
LIMIT = 50  # the search service's fusion depth (services/search/search.py FUSION_DEPTH)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def sentences(wanted: int, seed: int) -> list[str]:
    """Distinct docstring sentences of the installed Python, shuffled by `seed`."""
    roots = {Path(sysconfig.get_paths()[k]) for k in ("stdlib", "purelib", "platlib")}
    found: set[str] = set()
    for root in sorted(roots):
        for path in sorted(root.rglob("*.py")):
            if "test" in path.parts or "tests" in path.parts:
                continue
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError, ValueError, OSError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                              | ast.AsyncFunctionDef):
                    doc = ast.get_docstring(node) or ""
                    for part in _SENTENCE_END.split(" ".join(doc.split())):
                        letters = sum(c.isalpha() or c == " " for c in part)
                        if 40 <= len(part) <= 300 and letters >= 0.8 * len(part) \
                                and len(part.split()) >= 6:
                            found.add(part)
    pool = sorted(found)
    random.Random(seed).shuffle(pool)
    if len(pool) < wanted:
        raise SystemExit(f"only {len(pool):,} sentences here; ask for fewer (--memories)")
    return pool[:wanted]


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def embedded(app: object, texts: list[str], queries: int) -> tuple[np.ndarray, np.ndarray]:
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    path = CACHE / f"own-index-recall-{len(texts)}-{digest}.npz"
    if path.exists():
        kept = np.load(path)
        return kept["stored"], kept["asked"]
    began = time.perf_counter()
    stored = np.concatenate([
        np.asarray(app.embedder.embed(texts[start:start + 5_000]), dtype=np.float32)  # type: ignore[attr-defined]
        for start in range(queries, len(texts), 5_000)])
    asked = np.asarray(app.embedder.embed_queries(texts[:queries]), dtype=np.float32)  # type: ignore[attr-defined]
    print(f"embedded {len(texts):,} sentences in {time.perf_counter() - began:.0f} s")
    CACHE.mkdir(parents=True, exist_ok=True)
    np.savez(path, stored=stored, asked=asked)
    return stored, asked


def store_space(app: object, slug: str, vectors: np.ndarray, texts: list[str]) -> str:
    space = app.admin.create_space(slug)  # type: ignore[attr-defined]
    now = datetime.now(UTC)
    for first in range(0, len(vectors), BATCH):
        batch = [Memory(id=uuid.uuid4().hex, space_id=space.id, content=text, category="general",
                        embedding=vector.tolist(), active=True, created_at=now,
                        created_by="bench", content_hash=content_hash(text))
                 for vector, text in zip(vectors[first:first + BATCH],
                                         texts[first:first + BATCH], strict=True)]
        app.store.writes.write(WriteBatch(space.id, batch))  # type: ignore[attr-defined]
    return str(space.id)


def measure(db: object, space_id: str, vectors: np.ndarray, queries: np.ndarray,
            ks: list[int]) -> dict[int, tuple[list[float], list[float], list[float]]]:
    """Per k: each query's share of the exact top 10 and top 50 found, and the read's ms."""
    index, _ = names(space_id)  # type: ignore[misc]
    [row] = db.read("MATCH (m:Memory {spaceId: $space}) WITH m ORDER BY m.seq "  # type: ignore[attr-defined]
                    "RETURN collect(m.seq) AS seqs", space=space_id)
    seqs = np.asarray(row["seqs"])
    unit = unit_rows(vectors)
    out: dict[int, tuple[list[float], list[float], list[float]]] = {
        k: ([], [], []) for k in ks}
    for query in queries:
        exact = seqs[np.argsort(-(unit @ (query / np.linalg.norm(query))), kind="stable")[:LIMIT]]
        for k in ks:
            began = time.perf_counter()
            [listed] = db.read(cypher.BY_VECTOR_INDEX, index=index, k=k,  # type: ignore[attr-defined]
                               vector=query.tolist(), space=space_id)
            rows = listed["rows"]
            took = (time.perf_counter() - began) * 1000
            kept = {int(r["seq"]) for r in rows[:2 * LIMIT]}
            # the exact re-ranking of the kept: what it holds of the exact top n
            tens, fifties, times = out[k]
            tens.append(len(kept & set(exact[:10].tolist())) / 10)
            fifties.append(len(kept & set(exact.tolist())) / LIMIT)
            times.append(took)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--neo4j-uri", required=True)
    parser.add_argument("--memories", type=int, default=sizes(1_000_000, 1_000)[0],
                        help="the space's size (default: bench_scale's largest at a million)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--ks", default="100,150,200,300,400")
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    ks = [int(k) for k in args.ks.split(",")]
    print(f"$ {' '.join([Path(sys.executable).name, *sys.argv])}")
    texts = sentences(args.memories + args.queries, args.seed)
    with tempfile.TemporaryDirectory() as data_dir:
        app = build(Settings(_env_file=None, data_dir=Path(data_dir), store="neo4j",  # type: ignore[call-arg]
                             neo4j_uri=args.neo4j_uri, cache_mb=0, llm_model=""))
        stored, asked = embedded(app, texts, args.queries)
        # one memory per distinct content, as the store keeps them (content_hash normalises)
        first = {content_hash(t): n for n, t in reversed(list(enumerate(texts[args.queries:])))}
        distinct = sorted(first.values())
        stored, texts = stored[distinct], texts[:args.queries] + [
            texts[args.queries + n] for n in distinct]
        rng = np.random.default_rng(args.seed)
        stand_in = unit_rows(rng.standard_normal(stored.shape).astype(np.float32))
        db = app.store.kit.db  # type: ignore[attr-defined]
        indexes = SpaceVectorIndexes(db)
        run = uuid.uuid4().hex[:6]
        spaces: dict[str, str] = {}
        try:
            for name, vectors in (("e5-small-v2", stored), ("stand-in", stand_in)):
                began = time.perf_counter()
                space_id = store_space(app, f"recall-{run}-{name}", vectors,
                                       texts[args.queries:])
                indexes.build(space_id)
                spaces[name] = space_id
                print(f"{name}: {len(vectors):,} memories stored and indexed in "
                      f"{time.perf_counter() - began:.0f} s")
            half = args.queries // 2
            print(f"share of the exact top 10 / top 50 among the {2 * LIMIT} kept of k "
                  f"(limit {LIMIT}, as cold.py keeps them); the read's median ms")
            for name, vectors in (("e5-small-v2", stored), ("stand-in", stand_in)):
                queries = asked if name == "e5-small-v2" else unit_rows(
                    rng.standard_normal((args.queries, DIMENSIONS)).astype(np.float32))
                got = measure(db, spaces[name], vectors, queries, ks)
                for part, picked in (("tune", slice(0, half)), ("report", slice(half, None))):
                    for k in ks:
                        tens, fifties, times = got[k]
                        print(f"  {name:<12} {part:<6} k={k:<4} top10 "
                              f"{statistics.mean(tens[picked]):.3f}  top50 "
                              f"{statistics.mean(fifties[picked]):.3f}  "
                              f"{statistics.median(times[picked]):.1f} ms")
            print(f"cold.py asks k = {max(cold.OWN_K_MIN, cold.OWN_K_OVERSAMPLE * LIMIT)}")
        finally:
            indexes.close()
            app.close()
            args.store = "neo4j"
            cleanup(args, data_dir, [f"recall-{run}-{name}" for name in spaces])


if __name__ == "__main__":
    main()

"""The cache's reads of a space, and the fetch of the memories the cache ranked (vectors, full
text and keywords are ranked in process: stores/vector_cache.py, stores/term_index.py,
stores/keyword_index.py).

Vector search is not here: it runs on the in-process cache of stores/vector_cache.py. Measured
on tools/neo4j-local (2 busy cores), 10 spaces x 10,000 memories, 384 dims clustered like
sentence embeddings, top 10, median of 30 queries: an exact Cypher scan
(`vector.similarity.cosine` over the space) took 190-270 ms; the vector index
(`db.index.vector.queryNodes`, which cannot filter by space) took 19-33 ms fetching 100 with
recall@10 0.41, 30-45 ms fetching 1,000 (0.51), 62-83 ms fetching 10,000 (0.52). The cache
answers exactly in a few milliseconds.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

from memspace.domain.heads import ScoredHead
from memspace.domain.models import MemoryFilter, ScoredMemory
from memspace.stores.neo4j import records as rec
from memspace.stores.neo4j.connection import Neo4jConnection
from memspace.stores.neo4j.cypher import search as cypher
from memspace.stores.sliced_ranking import sliced
from memspace.stores.space_vectors import Row as CacheRow
from memspace.stores.vector_cache import VectorCache

# Memories per read of a cold cache load: ~15 MB of vectors a record.
SEQS_PER_READ = 10_000
# Reads of a cold load in flight at once: the server reads one range while another is decoded.
LOAD_READERS = 2


# -- the vector cache's view (VectorSource, stores/vector_cache.py) ---------------------------


def vector_version(conn: Neo4jConnection, space_id: str) -> int:
    rows = conn.read(cypher.VECTOR_VERSION, space=space_id)
    return int(rows[0]["version"]) if rows else 0


def vectors_after(conn: Neo4jConnection, space_id: str, after_seq: int,
                  limit: int | None = None) -> list[CacheRow]:
    """The cache's rows past `after_seq`, read in ranges of SEQS_PER_READ sequence numbers up
    to the space's last one (writes take their numbers in commit order, so a write committed
    after the first read is found by the next refresh); with `limit`, the numbers up to
    after_seq + limit, and the next ones while fewer than `limit` were found (a number whose
    memory is gone): fewer than `limit` rows means there are no more."""
    rows = conn.read(cypher.LAST_SEQ, space=space_id)
    end = int(rows[0]["seq"]) if rows else 0
    if limit is None:
        return _rows_between(conn, space_id, after_seq, end, SEQS_PER_READ)
    found: list[CacheRow] = []
    while len(found) < limit and after_seq < end:
        upto = min(end, after_seq + limit - len(found))
        # a refresh's few rows in one read; a load's LOAD_READERS ranges at once
        found += _rows_between(conn, space_id, after_seq, upto,
                               max(SEQS_PER_READ // LOAD_READERS,
                                   -(-(upto - after_seq) // LOAD_READERS)))
        after_seq = upto
    return found


def _rows_between(conn: Neo4jConnection, space_id: str, after_seq: int, last: int,
                  step: int) -> list[CacheRow]:
    """Rows with after_seq < seq <= last, read in ranges of `step`, LOAD_READERS at once."""

    def read(start: int) -> list[CacheRow]:
        [chunk] = conn.read(cypher.VECTORS_IN_RANGE, space=space_id, after=start,
                            upto=min(start + step, last))
        return [(int(seq), vector, str(category), terms, str(content))
                for seq, vector, category, terms, content in chunk["rows"]]

    starts = range(after_seq, last, step)
    if len(starts) <= 1:
        return read(starts[0]) if starts else []
    # A cold load: LOAD_READERS ranges in flight, in order.
    with ThreadPoolExecutor(max_workers=LOAD_READERS, thread_name_prefix="vector-load") as pool:
        return [row for rows_of in pool.map(read, starts) for row in rows_of]


def memory_count(conn: Neo4jConnection, space_id: str) -> int:
    """The space's last sequence number: every memory it holds takes the next one."""
    rows = conn.read(cypher.LAST_SEQ, space=space_id)
    return int(rows[0]["seq"]) if rows else 0


def inactive_seqs(conn: Neo4jConnection, space_id: str, upto_seq: int) -> list[int]:
    rows = conn.read(cypher.INACTIVE_SEQS, space=space_id, upto=upto_seq)
    return [int(r["seq"]) for r in rows]


# -- ranked on the cache, fetched by sequence number ------------------------------------------


def scored(ranked: list[list[tuple[int, float]]], pairs: list[list[Any]]) -> list[list[ScoredMemory]]:
    """Each ranking of (seq, score) as memories, from the [seq, memory] pairs read for them."""
    by_seq = {seq: rec.memory_from(memory) for seq, memory in pairs}
    return [[ScoredMemory(by_seq[seq], score) for seq, score in hits if seq in by_seq]
            for hits in ranked]


def lists_from_cache(
    conn: Neo4jConnection, vectors: VectorCache, where: MemoryFilter,
    rank: Callable[[int | None], list[list[tuple[int, float]]]],
) -> list[list[ScoredMemory]]:
    """Several rankings by the cache (`rank(version)`), their memories fetched in one read."""
    ranked, pairs = _fetched(conn, vectors, where, rank, cypher.MEMORIES_BY_SEQ_AT_VERSION,
                             cypher.MEMORIES_BY_SEQ)
    return scored(ranked, pairs)


def heads_from_cache(
    conn: Neo4jConnection, vectors: VectorCache, where: MemoryFilter,
    rank: Callable[[int | None], list[list[tuple[int, float]]]],
) -> list[list[ScoredHead]]:
    """lists_from_cache with each memory's head only (domain/heads.py)."""
    ranked, pairs = _fetched(conn, vectors, where, rank, cypher.HEADS_BY_SEQ_AT_VERSION,
                             cypher.HEADS_BY_SEQ)
    by_seq = {seq: rec.head_from(head) for seq, head in pairs}
    return [[ScoredHead(by_seq[seq], score) for seq, score in hits if seq in by_seq]
            for hits in ranked]


def _fetched(
    conn: Neo4jConnection, vectors: VectorCache, where: MemoryFilter,
    rank: Callable[[int | None], list[list[tuple[int, float]]]], at_version: str, now: str,
) -> tuple[list[list[tuple[int, float]]], list[list[Any]]]:
    """The rankings and the [seq, projection] pairs of their memories: `at_version` reads them
    with the space's version, `now` as stored now."""
    known = vectors.version_of(where.space_id)
    if known is not None:
        # Rank on the cache as it is and check its version in the fetch's round trip (each
        # read is ~3 bolt exchanges; a hybrid search made four). A write since then costs
        # the lookup, refresh and fetch below instead.
        ranked = rank(known)
        rows = conn.read(at_version, space=where.space_id, seqs=_union(ranked))
        if rows and int(rows[0]["version"]) == known:
            return ranked, rows[0]["rows"]
    ranked = rank(None)
    return ranked, _by_seq(conn, where.space_id, _union(ranked), now)


def by_seq(conn: Neo4jConnection, space_id: str,
           ranked: list[tuple[int, float]]) -> list[ScoredMemory]:
    """The memories of (seq, score) hits, in the hits' order, as stored now."""
    [hits] = scored([ranked], _by_seq(conn, space_id, _union([ranked])))
    return hits


def _by_seq(conn: Neo4jConnection, space_id: str, seqs: list[int],
            statement: str = cypher.MEMORIES_BY_SEQ) -> list[list[Any]]:
    if not seqs:
        return []
    [row] = conn.read(statement, space=space_id, seqs=seqs)
    return cast(list[list[Any]], row["rows"])


def _union(ranked: list[list[tuple[int, float]]]) -> list[int]:
    return list({seq: None for hits in ranked for seq, _ in hits})


def sliced_from_cache(
    conn: Neo4jConnection, vectors: VectorCache, where: MemoryFilter,
    rank: Callable[[int, int | None], list[tuple[int, float]]], limit: int,
) -> list[ScoredMemory]:
    """A ranking at a point in time (`where.at`): `rank(depth, version)` on the cache, the
    slice applied in the fetch (stores/sliced_ranking.py), the cache's version checked in the
    same round trip as lists_from_cache does."""
    statement, params = cypher.sliced_by_seq(where)
    version = [vectors.version_of(where.space_id)]

    def read(depth: int) -> tuple[int, list[ScoredMemory]]:
        while True:
            ranked = rank(depth, version[0])
            rows = conn.read(statement, seqs=[seq for seq, _ in ranked], limit=limit, **params)
            if version[0] is None or (rows and int(rows[0]["version"]) == version[0]):
                [hits] = scored([ranked], rows[0]["rows"] if rows else [])
                return len(ranked), hits
            version[0] = None  # written since the cache last looked: refresh and read again

    return sliced(read, limit)

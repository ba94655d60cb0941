"""The fetch of the memories the cache ranked (vectors, full text and keywords are ranked in
process: stores/vector_cache.py, stores/term_index.py, stores/keyword_index.py), shared by the
search role's lists (memory_search.py, which also reads the cache's rows) and the cold search
(cold.py).

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
from typing import Any, cast

from memspace.domain.heads import ScoredHead
from memspace.domain.models import MemoryFilter, ScoredMemory
from memspace.stores.neo4j import records as rec
from memspace.stores.neo4j.connection import Neo4jConnection
from memspace.stores.neo4j.cypher import search as cypher
from memspace.stores.sliced_ranking import sliced
from memspace.stores.vector_cache import VectorCache

# Memories per read of a cold cache load: ~15 MB of vectors a record. The load itself is
# memory_search.py's vectors_after; this stays here, read when the load runs, as
# tests/integration/test_neo4j_cache_load.py lowers it on this module.
SEQS_PER_READ = 10_000
# Reads of a cold load in flight at once: the server reads one range while another is decoded.
LOAD_READERS = 2


# -- ranked on the cache, fetched by sequence number ------------------------------------------


def scored(ranked: list[list[tuple[int, float]]], pairs: list[list[Any]]) -> list[list[ScoredMemory]]:
    """Each ranking of (seq, score) as memories, from the [seq, memory] pairs read for them."""
    by_seq = {seq: rec.memory_from(memory) for seq, memory in pairs}
    return [[ScoredMemory(by_seq[seq], score) for seq, score in hits if seq in by_seq]
            for hits in ranked]


def scored_heads(ranked: list[list[tuple[int, float]]],
                 pairs: list[list[Any]]) -> list[list[ScoredHead]]:
    """Each ranking of (seq, score) as heads, from the [seq, head] pairs read for them."""
    by_seq = {seq: rec.head_from(head) for seq, head in pairs}
    return [[ScoredHead(by_seq[seq], score) for seq, score in hits if seq in by_seq]
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
    return scored_heads(ranked, pairs)


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

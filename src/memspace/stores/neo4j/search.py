"""Vector, full-text and typo-tolerant keyword search over one space's memories."""

from __future__ import annotations

from memspace.domain.models import MemoryFilter, ScoredMemory
from memspace.domain.ports import Vector
from memspace.domain.text import max_edits, query_words, tolerated, words
from memspace.stores.neo4j import cypher
from memspace.stores.neo4j import records as rec
from memspace.stores.neo4j.connection import Neo4jConnection, Row

# The full-text index cannot filter by category or `active`, so a search asks Lucene for more
# candidates than it returns and filters them in Cypher. The space itself is required inside
# the Lucene query (cypher.lucene_in_space), so only inactive or other-category memories of the
# same space can use up the window: when more than 10x `limit` + 100 better-scoring matches
# are inactive or off-category, fewer hits than exist come back. Keyword search also drops
# candidates in Python (the symmetric typo rule), which the margin absorbs.
OVERFETCH_FACTOR = 10
OVERFETCH_MARGIN = 100


def vector_search(
    conn: Neo4jConnection, where: MemoryFilter, embedding: Vector, limit: int
) -> list[ScoredMemory]:
    """Exact: a cosine scan of the space's memories, not the approximate vector index.

    Measured on tools/neo4j-local (2 busy cores), 10 spaces x 10,000 memories, 384 dims
    clustered like sentence embeddings (1,000 shared topics), top 10, median of 30 queries:
    the exact scan took 190-270 ms; the index path (`vector_search_by_index`) 19-33 ms at
    fetch=100 but with recall@10 0.41 and only 4.1 of 10 hits in the space, 30-45 ms at
    fetch=1,000 with recall@10 0.51, 62-83 ms at fetch=10,000 with recall@10 0.52. On
    random vectors its recall@10 was 0.00-0.01. Neo4j 5.26 quantises the index and cannot
    filter it by space, and the port promises the exact top `limit`, so the scan it is.
    """
    condition, params = cypher.memory_filter(where)
    rows = conn.read(cypher.vector_scan(condition), vector=rec.floats(embedding), limit=limit,
                     **params)
    return _scored(rows)


def vector_search_by_index(
    conn: Neo4jConnection, where: MemoryFilter, embedding: Vector, limit: int, fetch: int
) -> list[ScoredMemory]:
    """The approximate alternative measured above: `fetch` neighbours, then scoped."""
    condition, params = cypher.memory_filter(where)
    rows = conn.read(cypher.vector_index(condition), vector=rec.floats(embedding), limit=limit,
                     fetch=fetch, **params)
    return _scored(rows)


def text_search(
    conn: Neo4jConnection, where: MemoryFilter, text: str, limit: int
) -> list[ScoredMemory]:
    """Any of the query's words (stop words dropped, as in every store), by Lucene BM25."""
    terms = query_words(text)
    if not terms:
        return []
    return _lucene(conn, where, cypher.lucene_any(terms), _fetch(limit))[:limit]


def keyword_search(
    conn: Neo4jConnection, where: MemoryFilter, keyword: str, limit: int
) -> list[ScoredMemory]:
    """Lucene fuzzy terms (edit budget from domain.text.max_edits) find candidates holding
    every word; the symmetric `tolerated` rule then keeps only true matches, so `plant`
    never finds `plan`. The index keeps stop words, so every word of a keyword counts."""
    terms = words(keyword)
    if not terms:
        return []
    lucene = cypher.lucene_fuzzy_all([(t, max_edits(t)) for t in terms])
    kept = []
    for hit in _lucene(conn, where, lucene, _fetch(limit)):
        vocabulary = words(hit.memory.content)
        if all(any(tolerated(t, w) for w in vocabulary) for t in terms):
            kept.append(hit)
    return kept[:limit]


def _fetch(limit: int) -> int:
    return limit * OVERFETCH_FACTOR + OVERFETCH_MARGIN


def _lucene(
    conn: Neo4jConnection, where: MemoryFilter, content_query: str, fetch: int
) -> list[ScoredMemory]:
    condition, params = cypher.memory_filter(where)
    lucene = cypher.lucene_in_space(where.space_id, content_query)
    return _scored(conn.read(cypher.text_query(condition), lucene=lucene, fetch=fetch,
                             limit=fetch, **params))


def _scored(rows: list[Row]) -> list[ScoredMemory]:
    return [ScoredMemory(rec.memory_from(r["memory"]), float(r["score"])) for r in rows]

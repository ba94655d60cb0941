"""Typo-tolerant keyword search over one space's memories (ranked full text and vectors run
on the in-process cache: stores/vector_cache.py, stores/term_index.py).

Vector search is not here: it runs on the in-process cache of stores/vector_cache.py. Measured
on tools/neo4j-local (2 busy cores), 10 spaces x 10,000 memories, 384 dims clustered like
sentence embeddings, top 10, median of 30 queries: an exact Cypher scan
(`vector.similarity.cosine` over the space) took 190-270 ms; the vector index
(`db.index.vector.queryNodes`, which cannot filter by space) took 19-33 ms fetching 100 with
recall@10 0.41, 30-45 ms fetching 1,000 (0.51), 62-83 ms fetching 10,000 (0.52). The cache
answers exactly in a few milliseconds.
"""

from __future__ import annotations

from memspace.domain.models import MemoryFilter, ScoredMemory
from memspace.domain.text import max_edits, tolerated, words
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
    for hit in _lucene(conn, where, lucene, _fetch(limit), _fetch(limit)):
        vocabulary = words(hit.memory.content)
        if all(any(tolerated(t, w) for w in vocabulary) for t in terms):
            kept.append(hit)
    return kept[:limit]


def _fetch(limit: int) -> int:
    return limit * OVERFETCH_FACTOR + OVERFETCH_MARGIN


def _lucene(
    conn: Neo4jConnection, where: MemoryFilter, content_query: str, fetch: int, limit: int
) -> list[ScoredMemory]:
    """`fetch` candidates from Lucene, filtered in Cypher, the best `limit` sent back (each row
    sent costs ~0.2 ms to decode: return no more than the caller keeps)."""
    condition, params = cypher.memory_filter(where)
    lucene = cypher.lucene_in_space(where.space_id, content_query)
    return _scored(conn.read(cypher.text_query(condition), lucene=lucene, fetch=fetch,
                             limit=limit, **params))


def _scored(rows: list[Row]) -> list[ScoredMemory]:
    return [ScoredMemory(rec.memory_from(r["memory"]), float(r["score"])) for r in rows]

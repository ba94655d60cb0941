"""The vector cache's view of a space and the full-text queries (stores/neo4j/search.py)."""

from __future__ import annotations

import re

from memspace.stores.neo4j.cypher.fields import memory_fields
from memspace.stores.neo4j.schema import TEXT_INDEX

# -- the vector cache's view (stores/vector_cache.py) -----------------------------------------

VECTOR_VERSION = "MATCH (s:Space {id: $space}) RETURN coalesce(s.version, 0) AS version"
# `vector` (float32 bytes) where the memory has it, else the float array written before it
# existed (records.memory_row). Rows come back as columns of one record per range of sequence
# numbers: bolt costs ~45 us per record, 4.5 s of a cold load of 100,000 one record each.
# One list per memory, as collect() drops nulls (a memory without a vector).
VECTORS_IN_RANGE = """
MATCH (m:Memory) WHERE m.spaceId = $space AND m.seq > $after AND m.seq <= $upto
WITH m ORDER BY m.seq
RETURN collect([m.seq, coalesce(m.vector, m.embedding), m.category, coalesce(m.terms, '')])
       AS rows
"""
LAST_SEQ = "MATCH (s:Space {id: $space}) RETURN coalesce(s.seq, 0) AS seq"
INACTIVE_SEQS = """
MATCH (m:Memory) WHERE m.spaceId = $space AND m.active = false AND m.seq <= $upto
RETURN m.seq AS seq
"""
# The memories ranked on the cache, as one record of [seq, memory] pairs: bolt costs a message
# per record, and ~90 records made a third of a search's fetch at 100,000 memories.
MEMORIES_BY_SEQ = f"""
MATCH (m:Memory) WHERE m.spaceId = $space AND m.seq IN $seqs
RETURN collect([m.seq, {memory_fields("m")}]) AS rows
"""
# The same fetch with the space's version, so a search on a cache believed current needs one
# round trip, not two (stores/neo4j/search.py lists_from_cache).
MEMORIES_BY_SEQ_AT_VERSION = f"""
MATCH (s:Space {{id: $space}})
OPTIONAL MATCH (m:Memory) WHERE m.spaceId = $space AND m.seq IN $seqs
RETURN coalesce(s.version, 0) AS version,
       collect(CASE WHEN m IS NOT NULL THEN [m.seq, {memory_fields("m")}] END) AS rows
"""

# -- search -----------------------------------------------------------------------------------


def text_candidates(condition: str, index: str = TEXT_INDEX) -> str:
    """A keyword search's first step: ids, contents and scores only, for the typo rule to check
    in Python (a whole memory record costs ~0.2 ms to decode, and most candidates are dropped)."""
    return f"""
CALL db.index.fulltext.queryNodes('{index}', $lucene, {{limit: $fetch}}) YIELD node AS m, score
WITH m, score WHERE {condition}
RETURN m.id AS id, m.content AS content, score
ORDER BY score DESC, m.createdAt DESC, m.id LIMIT $limit
"""


# Its second step: the records of the kept ids.
MEMORIES_BY_IDS = f"""
UNWIND $ids AS id
MATCH (m:Memory {{id: id}}) WHERE m.spaceId = $space
RETURN m.id AS id, {memory_fields("m")} AS memory
"""


# -- Lucene -----------------------------------------------------------------------------------

_LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')


def lucene_escape(term: str) -> str:
    """Backslash-escape Lucene's query syntax (`+ - && || ! ( ) { } [ ] ^ " ~ * ? : \\ /`)."""
    return _LUCENE_SPECIAL.sub(r"\\\1", term)


def lucene_in_space(space_id: str, content_query: str) -> str:
    """Require the space inside Lucene, so another space's matches cannot crowd ours out.

    The space clause is boosted to zero, so scores stay the BM25 of the content alone. The
    analyzer may split an id into several tokens, so the Cypher filter on `spaceId` stays.
    """
    return f'+spaceId:"{lucene_escape(space_id)}"^0 +({content_query})'


def lucene_fuzzy_all(terms: list[tuple[str, int]]) -> str:
    """Every word, each within its edit budget (0 = exact term)."""
    return " AND ".join(
        f"content:{lucene_escape(t)}~{edits}" if edits else f'content:"{lucene_escape(t)}"'
        for t, edits in terms
    )

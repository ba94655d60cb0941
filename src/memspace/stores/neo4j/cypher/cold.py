"""The cold path's reads (stores/neo4j/cold.py): a small space's rows in ranges of sequence
numbers, and a large space's candidates from the vector and full-text indexes."""

from __future__ import annotations

from memspace.stores.cold_scan import HYBRID, KEYWORD, TEXT, VECTOR, Columns
from memspace.stores.neo4j.cypher.fields import head_fields, memory_fields
from memspace.stores.neo4j.cypher.search import VECTOR_OR_ARRAY

# Until every committed write is in the full-text indexes (eventually consistent).
AWAIT_TEXT_INDEXES = "CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()"
# The space's size, and its own vector index once that is ready (stores/neo4j/space_vectors.py).
SPACE_SIZE = """
MATCH (s:Space {id: $space})
RETURN coalesce(s.seq, 0) AS seq, CASE WHEN s.vectorIndexReady THEN s.vectorIndex END AS own
"""
STORE_SIZE = "MATCH (m:Memory) RETURN count(m) AS n"



def rows_in_range(columns: Columns) -> str:
    """What the cache reads (cypher/search.py VECTORS_IN_RANGE), with `active`, of the columns
    a search needs: a column left out is neither fetched nor sent (null or '' in its place)."""
    vector = VECTOR_OR_ARRAY if columns.vector else "null"
    terms = "coalesce(m.terms, '')" if columns.terms else "''"
    content = "m.content" if columns.content else "''"
    return f"""
MATCH (m:Memory) WHERE m.spaceId = $space AND m.seq > $after AND m.seq <= $upto
WITH m ORDER BY m.seq
RETURN collect([m.seq, {vector}, m.category, {terms}, {content}, m.active]) AS rows
"""


ROWS_IN_RANGE = {columns: rows_in_range(columns) for columns in (HYBRID, VECTOR, TEXT, KEYWORD)}

# The store-wide vector index ranks the whole store (5.26 cannot filter inside it): `k` is
# sized by the caller for the space's share of the store, and the space is kept after. A
# space's own index (space_vectors.py) holds the space alone; the filter then keeps them all.
# Each of these ranked lists comes back as one record, a map per candidate: bolt costs the
# client a message per record, and the 200 records of an own index at k = 200 took 4.3-6.3 ms
# of its CPU against 1.2-1.8 ms as one (bench/store_statements.py, on the kept 200,000).
BY_VECTOR_INDEX = """
CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node AS m, score
WITH m, score WHERE m.spaceId = $space
WITH m, score ORDER BY score DESC
RETURN collect({seq: m.seq, category: m.category, active: m.active, score: score}) AS rows
"""
# The same answer, exact: every vector of the space scored inside Neo4j (the caller picks this
# when it costs less than asking the index for `k`: a mid-sized space in a large store).
BY_EXACT_COSINE = """
MATCH (m:Memory) WHERE m.spaceId = $space AND m.embedding IS NOT NULL
WITH m, vector.similarity.cosine(m.embedding, $vector) AS score
ORDER BY score DESC LIMIT $k
RETURN collect({seq: m.seq, category: m.category, active: m.active, score: score}) AS rows
"""
# Lucene with the space required inside the query (`+spaceId:"…"`).
BY_TEXT_INDEX = """
CALL db.index.fulltext.queryNodes($index, $lucene, {limit: $k}) YIELD node AS m, score
WHERE m.spaceId = $space
WITH m, score ORDER BY score DESC
RETURN collect({seq: m.seq, category: m.category, active: m.active, score: score,
                terms: coalesce(m.terms, '')}) AS rows
"""
# A space's own document frequency of each query term: Lucene's matches for
# `+spaceId:"…" +terms:<term>` (each `$queries` item is [term, that query]), counted up to $cap.
TERM_COUNTS = """
UNWIND $queries AS q
CALL (q) {
  CALL db.index.fulltext.queryNodes($index, q[1], {limit: $cap}) YIELD node
  RETURN count(node) AS df
}
RETURN q[0] AS term, df
"""
# Evenly spaced memories of a space (by seq): the terms each holds (the space's average length,
# and the frequency of terms too common for Lucene to count).
TERMS_SAMPLE = """
MATCH (m:Memory) WHERE m.spaceId = $space AND m.seq IN $seqs
RETURN count(*) AS rows, collect(coalesce(m.terms, '')) AS terms
"""
# A large space's keyword candidates as the cold pass reads rows (ROWS_IN_RANGE), by seq.
ROWS_BY_SEQ = """
MATCH (m:Memory) WHERE m.spaceId = $space AND m.seq IN $seqs
RETURN collect([m.seq, m.category, m.content, m.active]) AS rows
"""
# The candidates' memories, with their cosine to the query where the index property is set.
MEMORIES_WITH_COSINE = f"""
MATCH (m:Memory) WHERE m.spaceId = $space AND m.seq IN $seqs
RETURN collect([m.seq, {memory_fields("m")},
                CASE WHEN m.embedding IS NULL THEN null
                     ELSE vector.similarity.cosine(m.embedding, $vector) END,
                coalesce(m.terms, '')]) AS rows
"""
# The same with each memory's head only (domain/heads.py).
HEADS_WITH_COSINE = MEMORIES_WITH_COSINE.replace(memory_fields("m"), head_fields("m"))

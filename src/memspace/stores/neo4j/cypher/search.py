"""The vector cache's view of a space and the fetch of what it ranked (stores/neo4j/search.py)."""

from __future__ import annotations

from memspace.domain.models import MemoryFilter
from memspace.stores.neo4j.cypher.fields import head_fields, memory_fields, memory_filter

# -- the vector cache's view (stores/vector_cache.py) -----------------------------------------

VECTOR_VERSION = "MATCH (s:Space {id: $space}) RETURN coalesce(s.version, 0) AS version"
# `vector` (float32 bytes) where the memory has it, else the float array written before it
# existed (records.memory_row). Rows come back as columns of one record per range of sequence
# numbers: bolt costs ~45 us per record, 4.5 s of a cold load of 100,000 one record each.
# One list per memory, as collect() drops nulls (a memory without a vector).
# VECTOR_OR_ARRAY, not coalesce(m.vector, m.embedding): for a coalesce the planner reads both
# properties of every row ahead (CacheProperties), the 1.5 KB array too where `vector` is set
# (PROFILE: 6 db hits a row against 4; a 1,389-row read 0.6-0.7x the time, docs/scaling.md).
VECTOR_OR_ARRAY = "CASE WHEN m.vector IS NULL THEN m.embedding ELSE m.vector END"
VECTORS_IN_RANGE = f"""
MATCH (m:Memory) WHERE m.spaceId = $space AND m.seq > $after AND m.seq <= $upto
WITH m ORDER BY m.seq
RETURN collect([m.seq, {VECTOR_OR_ARRAY}, m.category, coalesce(m.terms, ''),
                m.content]) AS rows
"""
LAST_SEQ = "MATCH (s:Space {id: $space}) RETURN coalesce(s.seq, 0) AS seq"
# A space's retired memories (a space's load into the cache), from the (spaceId, active) index:
# unhinted, the planner may take the (spaceId, seq) range and read the whole space (72 ms for
# 134,000 memories, 3.8 hinted).
INACTIVE_SEQS = """
MATCH (m:Memory) USING INDEX m:Memory(spaceId, active)
WHERE m.spaceId = $space AND m.active = false AND m.seq <= $upto
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
# Both with each memory's head only (domain/heads.py): a hybrid search's ~100 candidates.
HEADS_BY_SEQ = MEMORIES_BY_SEQ.replace(memory_fields("m"), head_fields("m"))
HEADS_BY_SEQ_AT_VERSION = MEMORIES_BY_SEQ_AT_VERSION.replace(memory_fields("m"), head_fields("m"))


def sliced_by_seq(where: MemoryFilter) -> tuple[str, dict[str, object]]:
    """Of the memories ranked on the cache ($seqs, best first), the first $limit the filter
    holds (a time slice: stores/sliced_ranking.py), as one record of [seq, memory] pairs with
    the space's version. Versions outside the slice are dropped on the (spaceId, seq) index
    before any is projected."""
    condition, params = memory_filter(where)
    return f"""
MATCH (s:Space {{id: $space}})
CALL () {{
  UNWIND range(0, size($seqs) - 1) AS rank
  MATCH (m:Memory) WHERE m.seq = $seqs[rank] AND {condition}
  WITH rank, m ORDER BY rank LIMIT $limit
  RETURN collect([m.seq, {memory_fields("m")}]) AS rows
}}
RETURN coalesce(s.version, 0) AS version, rows
""", params

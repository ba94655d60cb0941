"""A large space's own vector index (stores/neo4j/space_vectors.py): its memories carry a label
of their own, which a vector index covers, so a cold search asks it for the space's nearest
memories instead of asking the store-wide index for `k` over every space."""

from __future__ import annotations

# Claims the build (or takes over one claimed before $stale) and names the label: from this
# commit on, every write that sets a memory's `embedding` in this space also labels it
# (cypher/memories.py). Answers the space's last sequence number: what the backfill labels.
CLAIM = """
MATCH (s:Space {id: $space})
WHERE coalesce(s.vectorIndexReady, false) = false
  AND (s.vectorIndexClaim IS NULL OR s.vectorIndexClaim < $stale)
SET s.vectorIndexClaim = $now, s.vectorLabel = $label, s.vectorIndex = $index
RETURN coalesce(s.seq, 0) AS seq
"""
# The space's memories in one range of sequence numbers, labelled (through the (spaceId, seq)
# index). Every memory, with or without its `embedding` yet: one whose index write is in
# flight waits for this statement's lock or is labelled by that write itself.
LABEL_RANGE = """
MATCH (m:Memory) WHERE m.spaceId = $space AND m.seq > $after AND m.seq <= $upto
SET m:$($label)
RETURN count(m) AS labelled
"""
IS_READY = "MATCH (s:Space {id: $space}) RETURN s.vectorIndexReady AS ready"
INDEX_STATE = "SHOW INDEXES YIELD name, state, populationPercent WHERE name = $index"
READY = """
MATCH (s:Space {id: $space}) WHERE s.vectorIndex = $index
SET s.vectorIndexReady = true
REMOVE s.vectorIndexClaim
RETURN s.id AS id
"""


def create_index(index: str, label: str, dimensions: int) -> str:
    """The schema statement (names cannot be parameters there: both are made by
    space_vectors.names from the space's id, letters, digits and `_` only)."""
    return (f"CREATE VECTOR INDEX `{index}` IF NOT EXISTS FOR (m:`{label}`) ON (m.embedding) "
            f"OPTIONS {{indexConfig: {{`vector.dimensions`: {dimensions}, "
            "`vector.similarity_function`: 'cosine'}}")

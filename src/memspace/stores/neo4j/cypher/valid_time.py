"""Valid time for memories stored before it (stores/neo4j/valid_time_backfill.py): the same
derivation as SQLite's migration 17 (docs/time.md)."""

from __future__ import annotations

# validFrom: the observedAt given (ISO text in the caller's offset; a time without one is UTC),
# else createdAt. Batched: each run fills up to $limit memories.
MEMORIES_WITHOUT_VALID_FROM = """
MATCH (m:Memory) WHERE m.validFrom IS NULL AND ($space IS NULL OR m.spaceId = $space)
WITH m LIMIT $limit
SET m.validFrom = CASE WHEN m.observedAt IS NULL THEN m.createdAt
                       ELSE datetime({datetime: datetime(m.observedAt), timezone: 'UTC'}) END
RETURN count(m) AS done
"""
# validTo of a superseded memory: the validFrom of the memory that superseded it (its
# invalidatedAt when that memory is gone). Forgotten memories stay open (never read back).
SUPERSEDED_WITHOUT_VALID_TO = """
MATCH (m:Memory) WHERE m.validTo IS NULL AND m.invalidatedBy IS NOT NULL
  AND m.forgottenBy IS NULL AND ($space IS NULL OR m.spaceId = $space)
WITH m LIMIT $limit
OPTIONAL MATCH (n:Memory {id: m.invalidatedBy}) WHERE n.spaceId = m.spaceId
SET m.validTo = coalesce(n.validFrom, n.createdAt, m.invalidatedAt)
RETURN count(m) AS done
"""

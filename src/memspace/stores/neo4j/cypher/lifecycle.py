"""A memory's status set by hand, and the StatusMark nodes that record who, when and why
(stores/neo4j/lifecycle.py)."""

from __future__ import annotations

from memspace.stores.neo4j.cypher.fields import memory_fields

MARK_STATE = """
MATCH (m:Memory {id: $id}) WHERE m.spaceId = $space
SET m._lock = true
RETURN m.active AS active, coalesce(m.version, 1) AS version, m.status AS status
"""
MARK = f"""
MATCH (m:Memory {{id: $id}}) WHERE m.spaceId = $space
SET m.status = $status, m.version = coalesce(m.version, 1) + 1, m.changed = $changed
REMOVE m._lock
CREATE (k:StatusMark {{spaceId: $space, memoryId: $id, version: m.version, kind: 'marked',
                      status: $status, reason: $reason, markedBy: $by, markedAt: $at}})
RETURN {memory_fields("m")} AS memory
"""
MARKS_OF = """
MATCH (k:StatusMark {spaceId: $space}) WHERE k.memoryId IN $ids
RETURN k {.spaceId, .memoryId, .version, .kind, .status, .reason, .markedBy, .markedAt} AS mark
ORDER BY k.markedAt, k.version
"""

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
# Memories past their expiry (LifecycleStore.expire_due): found first, on the (spaceId,
# expiresAt) index, so a pass with nothing due leaves the space's version where it was.
DUE = """
MATCH (m:Memory) WHERE m.spaceId = $space AND m.expiresAt <= $now AND m.active = true
RETURN m.id AS id ORDER BY m.expiresAt, m.id LIMIT $limit
"""
# Then, with the space and the memories locked (the lost-update recipe), those still active
# leave the current set as of their expiry, each with its `expired` StatusMark.
EXPIRE = f"""
UNWIND $ids AS id
MATCH (m:Memory {{id: id}}) WHERE m.spaceId = $space
REMOVE m._lock
WITH m WHERE m.active = true AND m.expiresAt <= $now
SET m.active = false, m.status = 'historical', m.invalidatedAt = m.expiresAt,
    m.validTo = m.expiresAt, m.forgetReason = $reason, m.forgottenBy = $by, m.changed = $changed,
    m.version = coalesce(m.version, 1) + 1
CREATE (k:StatusMark {{spaceId: $space, memoryId: m.id, version: m.version, kind: 'expired',
                      status: 'historical', reason: $reason, markedBy: $by,
                      markedAt: m.expiresAt}})
RETURN {memory_fields("m")} AS memory ORDER BY m.expiresAt, m.id
"""

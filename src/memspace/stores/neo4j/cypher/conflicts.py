"""The conflict queue's records (:Conflict nodes) and a settlement's changes to its memories
(stores/neo4j/conflicts.py, docs/conflicts.md)."""

from __future__ import annotations

RECORD = """
MERGE (c:Conflict {id: $id})
ON CREATE SET c.spaceId = $space, c.kind = $kind, c.memoryIds = $ids, c.why = $why,
              c.recordedBy = $by, c.recordedAt = $at, c.proposal = $proposal,
              c.proposalHash = $hash, c._created = true
WITH c, coalesce(c._created, false) AS created
REMOVE c._created
RETURN created
"""
_FIELDS = "c {.id, .spaceId, .kind, .memoryIds, .why, .recordedBy, .recordedAt, .proposal}"
# Unsettled, every memory still current, and (for a proposal) its text not stored since by
# another add.
_OPEN = """c.resolvedAt IS NULL
  AND all(id IN c.memoryIds WHERE EXISTS {
    MATCH (m:Memory {id: id}) WHERE m.spaceId = c.spaceId AND m.active })
  AND (c.proposalHash IS NULL OR NOT EXISTS {
    MATCH (m:Memory) WHERE m.spaceId = c.spaceId AND m.contentHash = c.proposalHash AND m.active })"""
OPEN_RECORDED = f"""
MATCH (c:Conflict {{spaceId: $space}}) WHERE {_OPEN}
RETURN {_FIELDS} AS conflict ORDER BY c.recordedAt DESC, c.id LIMIT $limit
"""
GET_RECORDED = f"""
MATCH (c:Conflict {{id: $id}}) WHERE c.spaceId = $space AND {_OPEN}
RETURN {_FIELDS} AS conflict
"""
STATE = """
UNWIND $ids AS id
OPTIONAL MATCH (m:Memory {id: id}) WHERE m.spaceId = $space
SET m._lock = true
RETURN id, m.active AS active, coalesce(m.version, 1) AS version
"""
SUPERSEDE = """
MATCH (m:Memory {id: $old}) WHERE m.spaceId = $space
SET m.active = false, m.invalidatedAt = $at, m.invalidatedBy = $keep, m.status = 'superseded',
    m.changed = $changed, m.version = coalesce(m.version, 1) + 1,
    m.validTo = coalesce($validTo, m.validTo)
REMOVE m._lock
WITH m
MATCH (k:Memory {id: $keep}) WHERE k.spaceId = $space
AND NOT (k)-[:UPDATES]->(m) AND NOT (m)-[:UPDATES]->(k)
CREATE (k)-[:UPDATES {spaceId: $space, createdAt: $at, createdBy: $by, reason: $reason}]->(m)
"""
RETIRE = """
MATCH (m:Memory {id: $old}) WHERE m.spaceId = $space
SET m.active = false, m.invalidatedAt = $at, m.forgetReason = $reason, m.forgottenBy = $by,
    m.status = 'historical', m.changed = $changed, m.version = coalesce(m.version, 1) + 1,
    m.validTo = coalesce($validTo, m.validTo)
REMOVE m._lock
"""
KEEP = """
MATCH (m:Memory {id: $keep}) WHERE m.spaceId = $space
SET m.version = CASE WHEN m.status = 'disputed' THEN coalesce(m.version, 1) + 1
                     ELSE coalesce(m.version, 1) END,
    m.changed = CASE WHEN m.status = 'disputed' THEN $changed ELSE m.changed END,
    m.status = CASE WHEN m.status = 'disputed' THEN 'current' ELSE m.status END
REMOVE m._lock
"""
HISTORY = """
MATCH (m:Memory {id: $id}) WHERE m.spaceId = $space
CREATE (:StatusMark {spaceId: $space, memoryId: $id, version: coalesce(m.version, 1),
                     kind: 'resolved', status: $status, reason: $reason, markedBy: $by,
                     markedAt: $at})
"""
SETTLED = """
MERGE (c:Conflict {id: $id})
ON CREATE SET c.spaceId = $space, c.kind = $kind, c.memoryIds = $ids, c.why = $why,
              c.recordedBy = $recordedBy, c.recordedAt = $recordedAt, c.proposal = $proposal,
              c.proposalHash = $hash
SET c.resolvedAt = $at, c.resolvedBy = $by, c.resolution = $reason, c.kept = $keep,
    c.superseded = $superseded
"""

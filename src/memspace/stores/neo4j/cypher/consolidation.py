"""The consolidation pass's records (stores/neo4j/consolidation.py, docs/consolidation.md): one
:Consolidation node per space (its lease and cursor), a :ConsolidationPass node per pass, and
the links and the undo a pass writes in the space's write turn."""

from __future__ import annotations

from memspace.stores.neo4j.cypher.fields import EDGE_TYPES

SCHEMA = (
    "CREATE CONSTRAINT consolidation_space IF NOT EXISTS FOR (c:Consolidation) "
    "REQUIRE c.spaceId IS UNIQUE",
    "CREATE CONSTRAINT consolidation_pass_id IF NOT EXISTS FOR (p:ConsolidationPass) "
    "REQUIRE p.id IS UNIQUE",
    "CREATE INDEX consolidation_pass_space IF NOT EXISTS FOR (p:ConsolidationPass) "
    "ON (p.spaceId, p.startedAt)",
)
LABELS = ("Consolidation", "ConsolidationPass")
PROPERTY_KEYS = (
    "spaceId", "leaseHolder", "leaseUntil", "cursor", "_claim", "id", "startedAt", "finishedAt",
    "sinceVersion", "untilVersion", "changes", "cost", "undoneAt", "undoneBy", "cursorAfter",
    "sinceAfter", "untilAfter",
)

# MERGE on the unique spaceId makes one node per space even when two processes ask first at
# once; setting `_claim` takes its write lock before the next clause reads the lease, so of two
# claimers one waits and then sees the other's lease (Neo4j's lost-update recipe).
TAKE_LEASE = """
MERGE (c:Consolidation {spaceId: $space})
SET c._claim = true
WITH c, (c.leaseHolder IS NULL OR c.leaseHolder = $holder OR c.leaseUntil <= $now) AS free
SET c.leaseHolder = CASE WHEN free THEN $holder ELSE c.leaseHolder END,
    c.leaseUntil = CASE WHEN free THEN $until ELSE c.leaseUntil END
REMOVE c._claim
RETURN free AS held
"""
RELEASE_LEASE = """
MATCH (c:Consolidation {spaceId: $space}) WHERE c.leaseHolder = $holder
SET c.leaseHolder = null, c.leaseUntil = null
"""
CURSOR = """
MATCH (c:Consolidation {spaceId: $space})
RETURN c.cursor AS cursor, c.cursorAfter AS after
"""

SAVE_PASS = """
MERGE (p:ConsolidationPass {id: $id})
SET p.spaceId = $space, p.startedAt = $startedAt, p.finishedAt = $finishedAt,
    p.sinceVersion = $since, p.untilVersion = $until, p.changes = $changes, p.cost = $cost,
    p.undoneAt = $undoneAt, p.undoneBy = $undoneBy, p.sinceAfter = $sinceAfter,
    p.untilAfter = $untilAfter
"""
# The cursor under its node's write lock (`_claim`, as TAKE_LEASE): the caller compares it with
# the pass's end (PassCursor.ahead_of) and, in the same transaction, moves it or leaves it
# (`$move`), giving the claim back either way.
CLAIM_CURSOR = """
MERGE (c:Consolidation {spaceId: $space})
SET c._claim = true
RETURN c.cursor AS cursor, c.cursorAfter AS after
"""
MOVE_CURSOR = """
MATCH (c:Consolidation {spaceId: $space})
SET c.cursor = CASE WHEN $move THEN $until ELSE c.cursor END,
    c.cursorAfter = CASE WHEN $move THEN $after ELSE c.cursorAfter END
REMOVE c._claim
"""
_PASS_FIELDS = ("p {.id, .spaceId, .startedAt, .finishedAt, .sinceVersion, .untilVersion, "
                ".changes, .cost, .undoneAt, .undoneBy, .sinceAfter, .untilAfter}")
GET_PASS = f"""
MATCH (p:ConsolidationPass {{id: $id}}) WHERE p.spaceId = $space
RETURN {_PASS_FIELDS} AS pass
"""
LIST_PASSES = f"""
MATCH (p:ConsolidationPass {{spaceId: $space}})
RETURN {_PASS_FIELDS} AS pass ORDER BY p.startedAt DESC, p.id DESC LIMIT $limit
"""
# Run after BEGIN_SPACE_WRITE holds the space's lock, so the pass cannot be undone twice at once.
PASS_STATE = """
MATCH (p:ConsolidationPass {id: $id}) WHERE p.spaceId = $space
RETURN p.undoneAt IS NOT NULL AS undone
"""
PASS_UNDONE = """
MATCH (p:ConsolidationPass {id: $id}) WHERE p.spaceId = $space
SET p.undoneAt = $at, p.undoneBy = $by
"""
DECIDED = """
MATCH (c:Conflict) WHERE c.id IN $ids AND c.spaceId = $space
RETURN c.id AS id
"""

# A memory made current again: still inactive at the version the pass left it at, and its
# content held by no active memory of the space (one active memory per content, as every write
# keeps it). Its history gets a `restored` mark.
RESTORE = """
MATCH (m:Memory {id: $id}) WHERE m.spaceId = $space AND m.active = false
  AND coalesce(m.version, 1) = $version
  AND NOT EXISTS { MATCH (o:Memory) WHERE o.spaceId = $space AND o.contentHash = m.contentHash
                   AND o.active = true }
SET m.active = true, m.status = 'current', m.invalidatedAt = null, m.invalidatedBy = null,
    m.forgetReason = null, m.forgottenBy = null, m.validTo = null,
    m.version = coalesce(m.version, 1) + 1, m.changed = $changed
CREATE (:StatusMark {spaceId: $space, memoryId: $id, version: m.version, kind: 'restored',
                     status: 'current', reason: $reason, markedBy: $by, markedAt: $at})
RETURN m.id AS id
"""


def _edge_type(edge_type: str) -> str:
    """Cypher 5 cannot take a relationship type as a parameter: one statement per type."""
    if edge_type not in EDGE_TYPES.split("|"):
        raise ValueError(f"unknown relation type {edge_type!r}")
    return edge_type


def link(edge_type: str) -> str:
    """One relation, written when both ends are active memories of the space and no relation
    joins them yet (either direction)."""
    return f"""
MATCH (s:Memory {{id: $source}}) WHERE s.spaceId = $space AND s.active = true
MATCH (t:Memory {{id: $target}}) WHERE t.spaceId = $space AND t.active = true AND t <> s
  AND NOT EXISTS {{ MATCH (s)-[:{EDGE_TYPES}]-(t) }}
CREATE (s)-[:{_edge_type(edge_type)} {{spaceId: $space, createdAt: $createdAt,
                                       createdBy: $createdBy, reason: $reason}}]->(t)
RETURN count(*) AS made
"""


def unlink(edge_type: str) -> str:
    """The relations of this type between these ends written by `$createdBy`, removed."""
    return f"""
MATCH (s:Memory {{id: $source}})-[r:{_edge_type(edge_type)}]->(t:Memory {{id: $target}})
WHERE s.spaceId = $space AND t.spaceId = $space AND r.createdBy = $createdBy
DELETE r
"""

"""Documents and their processing lease (stores/neo4j/documents.py)."""

from __future__ import annotations

# -- documents --------------------------------------------------------------------------------

DOCUMENT_FIELDS = (
    "d {.id, .spaceId, .title, .kind, .sizeBytes, .sha256, .status, .error, .factCount, "
    ".createdAt, .createdBy, .chunksTotal, .chunksDone, .uploadedByKey}"
)
CREATE_DOCUMENT = "CREATE (d:Document) SET d = $props"
# The documents whose id starts with each prefix, read from the id constraint's index (hinted,
# as memories' IDS_WITH_PREFIX: else the planner may read the whole space for each prefix).
IDS_WITH_PREFIX = """
UNWIND $prefixes AS prefix
CALL (prefix) {
  MATCH (d:Document) USING INDEX d:Document(id) WHERE d.id STARTS WITH prefix AND d.spaceId = $space
  RETURN d.id AS id ORDER BY id LIMIT $limit
}
RETURN collect(id) AS ids
"""
GET_DOCUMENT = f"""
MATCH (d:Document {{id: $id}}) WHERE d.spaceId = $space RETURN {DOCUMENT_FIELDS} AS document
"""


FIND_DOCUMENT_BY_SHA256 = f"""
MATCH (d:Document {{spaceId: $space, sha256: $sha256}}) RETURN {DOCUMENT_FIELDS} AS document
"""
DOCUMENTS_WITH_STATUS = f"""
MATCH (d:Document) WHERE d.status IN $statuses
RETURN {DOCUMENT_FIELDS} AS document ORDER BY d.createdAt, d.id
"""
UPDATE_DOCUMENT = f"""
MATCH (d:Document {{id: $id}}) WHERE d.spaceId = $space
SET d.status = $status, d.error = $error, d.chunksTotal = coalesce($total, d.chunksTotal),
    d.chunksDone = coalesce($done, d.chunksDone), d.uploadedByKey = coalesce($key, d.uploadedByKey)
RETURN {DOCUMENT_FIELDS} AS document
"""
# The processing lease (GraphStore.claim_document). SET on the node takes its write lock before
# the WHERE of the next clause reads it again, so of two claimers one waits and then sees the
# other's lease.
CLAIM_DOCUMENT = f"""
MATCH (d:Document {{id: $id}}) WHERE d.spaceId = $space
SET d._claim = true
WITH d
WHERE d.status = 'queued' OR (d.status = 'processing' AND (d.leaseOwner IS NULL
      OR d.leaseOwner = $owner OR d.leaseUntil IS NULL OR d.leaseUntil < $now))
SET d.status = 'processing', d.leaseOwner = $owner, d.leaseUntil = $until
REMOVE d._claim
RETURN {DOCUMENT_FIELDS} AS document
"""
RELEASE_DOCUMENT = """
MATCH (d:Document {id: $id}) WHERE d.spaceId = $space AND d.leaseOwner = $owner
SET d.leaseOwner = null, d.leaseUntil = null
"""


def list_documents(paged: bool) -> str:
    after = " AND (d.createdAt < $at OR (d.createdAt = $at AND d.id < $id))" if paged else ""
    return f"""
MATCH (d:Document) WHERE d.spaceId = $space{after}
RETURN {DOCUMENT_FIELDS} AS document ORDER BY d.createdAt DESC, d.id DESC LIMIT $limit
"""

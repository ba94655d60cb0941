"""Space policies and the audit log (stores/neo4j/security.py)."""

from __future__ import annotations

# A space's policy: two properties on its node (absent: the defaults).
GET_SPACE_POLICY = """
MATCH (s:Space {id: $space}) RETURN s.secretsPolicy AS secrets, s.injectionPolicy AS injections
"""
SET_SPACE_POLICY = """
MATCH (s:Space {id: $space}) SET s.secretsPolicy = $secrets, s.injectionPolicy = $injections
"""
# The audit log: one AuditEntry node per action, never updated.
AUDIT_ADD = "CREATE (a:AuditEntry) SET a = $props"
AUDIT_SINCE = """
MATCH (a:AuditEntry) WHERE a.at >= $since
RETURN a {.*} AS entry ORDER BY a.at, a.id LIMIT $limit
"""
# `memspace scan --redact`: a memory's text rewritten in place (id, version and edges kept).
SCRUB_MEMORY = """
MATCH (m:Memory {id: $id, spaceId: $space})
SET m.content = $content, m.context = $context, m.contentHash = $hash, m.terms = $terms
RETURN m.id AS id
"""
SCRUB_BESIDE = """
MATCH (m:Memory {id: $id, spaceId: $space})
SET m.category = $category, m.speaker = $speaker, m.forgetReason = $forgetReason,
    m.evidence = $evidence
RETURN m.id AS id
"""
AUDIT_SCHEMA = (
    "CREATE CONSTRAINT audit_entry_id IF NOT EXISTS FOR (a:AuditEntry) REQUIRE a.id IS UNIQUE",
    "CREATE INDEX audit_entry_at IF NOT EXISTS FOR (a:AuditEntry) ON (a.at)",
)
SECURITY_PROPERTY_KEYS = ("secretsPolicy", "injectionPolicy", "actor", "action", "spaceId",
                          "provenanceKind", "provenanceSource", "suspicious",
                          "target", "detail", "at")

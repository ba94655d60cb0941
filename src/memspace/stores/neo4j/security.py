"""PolicyStore and AuditStore on Neo4j: a space's policy as two properties of its node, the
audit log as AuditEntry nodes (no edges). Statements live in cypher/security.py."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memspace.domain.errors import NotFound
from memspace.domain.evidence_codec import evidence_text
from memspace.domain.security import (
    AuditEntry,
    BesideText,
    InjectionPolicy,
    SecretsPolicy,
    SpacePolicy,
)
from memspace.domain.text import content_hash, index_terms
from memspace.stores.neo4j.cypher import security as cypher
from memspace.stores.neo4j.kit import Neo4jKit
from memspace.stores.neo4j.records import utc
from memspace.stores.neo4j.schema import SchemaPart, ensure_schema

SCHEMA = SchemaPart(cypher.AUDIT_SCHEMA, ("AuditEntry",), cypher.SECURITY_PROPERTY_KEYS)


def _entry(p: dict[str, Any]) -> AuditEntry:
    return AuditEntry(p["id"], utc(p["at"].to_native()), p["actor"], p["action"],
                      p.get("spaceId"), p.get("target"), p["detail"])


class Neo4jSecurity:
    def __init__(self, kit: Neo4jKit) -> None:
        self._db = kit.db
        self._vectors = kit.vectors
        self._db.retrying(lambda: ensure_schema(self._db.driver, self._db.database, SCHEMA))

    def get_space_policy(self, space_id: str) -> SpacePolicy:
        rows = self._db.read(cypher.GET_SPACE_POLICY, space=space_id)
        if not rows:
            return SpacePolicy()
        row = rows[0]
        return SpacePolicy(SecretsPolicy(row["secrets"] or SecretsPolicy.REFUSE.value),
                           InjectionPolicy(row["injections"] or InjectionPolicy.FLAG.value))

    def set_space_policy(self, space_id: str, policy: SpacePolicy) -> None:
        self._db.write_one(cypher.SET_SPACE_POLICY, space=space_id, secrets=policy.secrets.value,
                           injections=policy.injections.value)

    def record_audit(self, entry: AuditEntry) -> None:
        props = {"id": entry.id, "at": utc(entry.at), "actor": entry.actor,
                 "action": entry.action, "spaceId": entry.space_id, "target": entry.target,
                 "detail": entry.detail}
        self._db.write_one(cypher.AUDIT_ADD, props=props)

    def audit_since(self, since: datetime, limit: int) -> list[AuditEntry]:
        return [_entry(r["entry"]) for r in
                self._db.read(cypher.AUDIT_SINCE, since=utc(since), limit=limit)]

    def scrub_memory(self, space_id: str, memory_id: str, content: str,
                     context: str | None, beside: BesideText | None = None) -> None:
        rows = self._db.write_one(cypher.SCRUB_MEMORY, space=space_id, id=memory_id,
                                  content=content, context=context, hash=content_hash(content),
                                  terms=index_terms(content, context))
        if not rows:
            raise NotFound(f"no memory '{memory_id}' in this space")
        if beside is not None:
            self._db.write_one(cypher.SCRUB_BESIDE, space=space_id, id=memory_id,
                               category=beside.category, speaker=beside.speaker,
                               forgetReason=beside.forget_reason,
                               evidence=evidence_text(beside.evidence))
        self._vectors.forget_space(space_id)  # its index terms changed under the cache

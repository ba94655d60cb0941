"""EvidenceStore on Neo4j: the policy is a property of the Space node, a memory's citations and
state properties of its Memory node. Statements in cypher/repos.py."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memspace.domain.evidence_codec import evidence_text
from memspace.domain.models import Memory
from memspace.domain.ports import Checked, PageAfter
from memspace.stores.neo4j import records as rec
from memspace.stores.neo4j.cypher import repos as cypher
from memspace.stores.neo4j.kit import Neo4jKit
from memspace.stores.neo4j.repos import SCHEMA
from memspace.stores.neo4j.schema import ensure_schema


class Neo4jEvidence:
    def __init__(self, kit: Neo4jKit) -> None:
        self._db = kit.db
        self._db.retrying(lambda: ensure_schema(self._db.driver, self._db.database, SCHEMA))

    def evidence_policy(self, space_id: str) -> str:
        rows = self._db.read(cypher.POLICY, space=space_id)
        return str(rows[0]["policy"] or "optional") if rows else "optional"

    def set_evidence_policy(self, space_id: str, policy: str) -> None:
        self._db.write(lambda tx: tx.run(cypher.SET_POLICY, space=space_id, policy=policy).consume())

    def anchored_memories(self, space_id: str) -> list[Memory]:
        return [rec.memory_from(r["memory"]) for r in self._db.read(cypher.ANCHORED, space=space_id)]

    def set_verification(self, space_id: str, checked: Sequence[Checked], at: datetime) -> None:
        rows = [{"id": c.memory_id, "evidence": evidence_text(c.evidence), "state": c.state}
                for c in checked]
        self._db.write(lambda tx: tx.run(cypher.SET_VERIFICATION, rows=rows, space=space_id,
                                         at=rec.utc(at)).consume())

    def memories_in_state(self, space_id: str, state: str, limit: int,
                          after: PageAfter | None = None) -> list[Memory]:
        params: dict[str, object] = {"space": space_id, "state": state, "limit": limit}
        if after is not None:
            params |= {"at": rec.utc(after.created_at), "id": after.id}
        rows = self._db.read(cypher.in_state(after is not None), **params)
        return [rec.memory_from(r["memory"]) for r in rows]

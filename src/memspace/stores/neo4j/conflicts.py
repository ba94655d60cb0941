"""ConflictStore on Neo4j: conflicts kept as :Conflict nodes, and a settlement written in the
space's write turn, in one transaction with the memories it changes (cypher/conflicts.py)."""

from __future__ import annotations

from typing import Any

from neo4j import Transaction

from memspace.domain.conflicts import (
    ConflictKind,
    RecordedConflict,
    Settlement,
    proposal_from,
    proposal_text,
)
from memspace.domain.errors import NotFound, StaleVersion
from memspace.stores.neo4j import records as rec
from memspace.stores.neo4j.cypher import conflicts as cypher
from memspace.stores.neo4j.cypher.memories import BEGIN_SPACE_WRITE
from memspace.stores.neo4j.kit import Neo4jKit


def _conflict(c: dict[str, Any]) -> RecordedConflict:
    return RecordedConflict(c["id"], c["spaceId"], ConflictKind(c["kind"]), tuple(c["memoryIds"]),
                            c["why"], c["recordedBy"], rec.utc(c["recordedAt"].to_native()),
                            proposal_from(c["proposal"]))


def _fields(conflict: RecordedConflict) -> dict[str, Any]:
    return {"id": conflict.id, "space": conflict.space_id, "kind": conflict.kind.value,
            "ids": list(conflict.memory_ids), "why": conflict.why,
            "proposal": proposal_text(conflict.proposal),
            "hash": conflict.proposal.content_hash if conflict.proposal else None}


class Neo4jConflicts:
    """The conflict queue's records in the graph's database, through its connection."""

    def __init__(self, kit: Neo4jKit) -> None:
        self._db = kit.db
        self._turn = kit.turn

    def record(self, conflict: RecordedConflict) -> bool:
        rows = self._db.write_one(cypher.RECORD, **_fields(conflict), by=conflict.by,
                                  at=rec.utc(conflict.at))
        return bool(rows and rows[0]["created"])

    def open_recorded(self, space_id: str, limit: int) -> list[RecordedConflict]:
        rows = self._db.read(cypher.OPEN_RECORDED, space=space_id, limit=limit)
        return [_conflict(r["conflict"]) for r in rows]

    def get_recorded(self, space_id: str, conflict_id: str) -> RecordedConflict | None:
        rows = self._db.read(cypher.GET_RECORDED, space=space_id, id=conflict_id)
        return _conflict(rows[0]["conflict"]) if rows else None

    def settle(self, settlement: Settlement) -> None:
        space, at = settlement.conflict.space_id, rec.utc(settlement.at)
        named = [*([settlement.keep] if settlement.keep else []), *settlement.supersede]
        why = f"{settlement.conflict.kind.value} {settlement.conflict.id}: {settlement.reason}"
        # When the superseded stopped holding; None leaves their validTo as it is.
        valid_to = rec.utc(settlement.valid_to) if settlement.valid_to else None

        def work(tx: Transaction) -> None:
            begun = tx.run(BEGIN_SPACE_WRITE, space=space, count=0, at=at).single()
            if begun is None:
                raise NotFound(f"no space '{space}'")
            for state in tx.run(cypher.STATE, ids=named, space=space).data():
                _check(state, settlement.expected.get(state["id"]))
            changed = begun["version"]
            for old in settlement.supersede:
                if settlement.keep is None:
                    tx.run(cypher.RETIRE, old=old, space=space, at=at, changed=changed,
                           reason=settlement.reason, by=settlement.by,
                           validTo=valid_to).consume()
                    status = "historical"
                else:
                    tx.run(cypher.SUPERSEDE, old=old, keep=settlement.keep, space=space, at=at,
                           changed=changed, by=settlement.by, validTo=valid_to,
                           reason=f"conflict resolved: {settlement.reason}").consume()
                    status = "superseded"
                tx.run(cypher.HISTORY, id=old, space=space, status=status, reason=why,
                       by=settlement.by, at=at).consume()
            if settlement.keep:
                tx.run(cypher.KEEP, keep=settlement.keep, space=space, changed=changed).consume()
                tx.run(cypher.HISTORY, id=settlement.keep, space=space, status="current",
                       reason=why, by=settlement.by, at=at).consume()
            tx.run(cypher.SETTLED, **_fields(settlement.conflict),
                   recordedBy=settlement.conflict.by,
                   recordedAt=rec.utc(settlement.conflict.at), at=at, by=settlement.by,
                   reason=settlement.reason, keep=settlement.keep,
                   superseded=list(settlement.supersede)).consume()

        with self._turn(space):
            self._db.write(work)


def _check(state: dict[str, Any], expected: int | None) -> None:
    memory_id, version = state["id"], state["version"]
    if state["active"] is None:
        raise NotFound(f"no memory '{memory_id}' in this space")
    if (expected is not None and version != expected) or not state["active"]:
        raise StaleVersion(memory_id, expected or version, version, memory_id)

"""LifecycleStore on Neo4j: a memory's status set by hand in the space's write turn, each change
recorded as a StatusMark node, and memories retired at their expiry (statements in
cypher/lifecycle.py)."""

from __future__ import annotations

from datetime import datetime

from neo4j import Transaction

from memspace.domain.errors import Conflict, NotFound, StaleVersion
from memspace.domain.lifecycle import MemoryStatus, Revision
from memspace.domain.models import Memory
from memspace.stores.neo4j import records as rec
from memspace.stores.neo4j.cypher import lifecycle as cypher
from memspace.stores.neo4j.cypher.memories import BEGIN_SPACE_WRITE, LOCK_MEMORIES
from memspace.stores.neo4j.kit import Neo4jKit


class Neo4jLifecycle:
    """Status changes in the graph's database, through the graph store's connection."""

    def __init__(self, kit: Neo4jKit) -> None:
        self._db = kit.db
        self._turn = kit.turn

    def mark(self, space_id: str, memory_id: str, status: MemoryStatus, reason: str, by: str,
             at: datetime, expected_version: int | None = None) -> Memory:
        def work(tx: Transaction) -> Memory:
            begun = tx.run(BEGIN_SPACE_WRITE, space=space_id, count=0, at=rec.utc(at)).single()
            if begun is None:
                raise NotFound(f"no space '{space_id}'")
            state = tx.run(cypher.MARK_STATE, id=memory_id, space=space_id).single()
            if state is None:
                raise NotFound(f"no memory '{memory_id}' in this space")
            if not state["active"]:
                raise Conflict(f"memory '{memory_id}' is {state['status'] or 'inactive'}; mark "
                               "its current version instead (getMemory shows it)")
            if expected_version is not None and state["version"] != expected_version:
                raise StaleVersion(memory_id, expected_version, state["version"], memory_id)
            record = tx.run(cypher.MARK, id=memory_id, space=space_id, status=status.value,
                            changed=begun["version"], reason=reason, by=by,
                            at=rec.utc(at)).single(strict=True)
            return rec.memory_from(record["memory"])

        with self._turn(space_id):
            return self._db.write(work)

    def expire_due(self, space_id: str, now: datetime, by: str, reason: str,
                   limit: int) -> list[Memory]:
        def work(tx: Transaction) -> list[Memory]:
            due = [r["id"] for r in tx.run(cypher.DUE, space=space_id, now=rec.utc(now),
                                           limit=limit)]
            if not due:
                return []  # nothing changed: the space's version (and its feed) stays put
            begun = tx.run(BEGIN_SPACE_WRITE, space=space_id, count=0, at=rec.utc(now)).single()
            if begun is None:
                raise NotFound(f"no space '{space_id}'")
            tx.run(LOCK_MEMORIES, ids=due, space=space_id).consume()
            rows = tx.run(cypher.EXPIRE, ids=due, space=space_id, now=rec.utc(now),
                          reason=reason, by=by, changed=begun["version"])
            return [rec.memory_from(r["memory"]) for r in rows]

        with self._turn(space_id):
            return self._db.write(work)

    def marks_of(self, space_id: str, memory_ids: list[str]) -> list[Revision]:
        if not memory_ids:
            return []
        rows = self._db.read(cypher.MARKS_OF, space=space_id, ids=memory_ids)
        return [Revision(m["spaceId"], m["memoryId"], m["version"], m["kind"], m["status"],
                         m["reason"], m["markedBy"], rec.utc(m["markedAt"].to_native()))
                for m in (r["mark"] for r in rows)]

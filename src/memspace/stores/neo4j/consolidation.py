"""ConsolidationStore on Neo4j (docs/consolidation.md): each space's pass lease and cursor on a
:Consolidation node, the pass records as :ConsolidationPass nodes, and the links and the undo
of a pass written in the space's write turn, locking the space node first as every write of
the space does (cypher/consolidation.py). A pass's supersessions are ConflictStore.settle's
(stores/neo4j/conflicts.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from neo4j import Transaction

from memspace.domain.consolidation import (
    PassCursor,
    PassRecord,
    changes_from,
    changes_text,
    cost_from,
    cost_text,
)
from memspace.domain.errors import Conflict, NotFound
from memspace.domain.models import Relation
from memspace.domain.ports import WriteBatch
from memspace.stores.neo4j import records as rec
from memspace.stores.neo4j.cypher import consolidation as cypher
from memspace.stores.neo4j.cypher.memories import BEGIN_SPACE_WRITE
from memspace.stores.neo4j.kit import Neo4jKit
from memspace.stores.neo4j.schema import SchemaPart, ensure_schema

SCHEMA = SchemaPart(cypher.SCHEMA, cypher.LABELS, cypher.PROPERTY_KEYS)


def _at(value: Any) -> datetime | None:
    return None if value is None else rec.utc(value.to_native())


def _pass(p: dict[str, Any]) -> PassRecord:
    started = _at(p["startedAt"])
    assert started is not None
    return PassRecord(p["id"], p["spaceId"], started, int(p["sinceVersion"]),
                      int(p["untilVersion"]), changes_from(p["changes"]), cost_from(p["cost"]),
                      _at(p["finishedAt"]), _at(p["undoneAt"]), p["undoneBy"],
                      p.get("sinceAfter") or "", p.get("untilAfter") or "")


def _cursor(row: Any) -> PassCursor:
    return PassCursor(int(row["cursor"] or 0), row["after"] or "")


def _opt(value: datetime | None) -> datetime | None:
    return rec.utc(value) if value is not None else None


class Neo4jConsolidation:
    """The consolidation pass's records in the graph's database, through its connection."""

    def __init__(self, kit: Neo4jKit) -> None:
        self._db, self._turn, self._counts = kit.db, kit.turn, kit.counts
        self._db.retrying(lambda: ensure_schema(self._db.driver, self._db.database, SCHEMA))

    def take_lease(self, space_id: str, holder: str, now: datetime, until: datetime) -> bool:
        rows = self._db.write_one(cypher.TAKE_LEASE, space=space_id, holder=holder,
                                  now=rec.utc(now), until=rec.utc(until))
        return bool(rows and rows[0]["held"])

    def release_lease(self, space_id: str, holder: str) -> None:
        self._db.write_one(cypher.RELEASE_LEASE, space=space_id, holder=holder)

    def cursor(self, space_id: str) -> PassCursor:
        rows = self._db.read(cypher.CURSOR, space=space_id)
        return _cursor(rows[0]) if rows else PassCursor()

    def save_pass(self, record: PassRecord) -> None:
        def work(tx: Transaction) -> None:
            tx.run(cypher.SAVE_PASS, id=record.id, space=record.space_id,
                   startedAt=rec.utc(record.started_at), finishedAt=_opt(record.finished_at),
                   since=record.since, until=record.until,
                   changes=changes_text(record.changes), cost=cost_text(record.cost),
                   undoneAt=_opt(record.undone_at), undoneBy=record.undone_by,
                   sinceAfter=record.since_after, untilAfter=record.until_after).consume()
            if record.finished_at is not None:
                at = _cursor(tx.run(cypher.CLAIM_CURSOR, space=record.space_id).single(strict=True))
                # Moved and unclaimed in one statement, or only unclaimed: never backwards.
                moved = record.end.ahead_of(at)
                tx.run(cypher.MOVE_CURSOR, space=record.space_id, move=moved,
                       until=record.until, after=record.until_after).consume()

        self._db.write(work)

    def get_pass(self, space_id: str, pass_id: str) -> PassRecord | None:
        rows = self._db.read(cypher.GET_PASS, space=space_id, id=pass_id)
        return _pass(rows[0]["pass"]) if rows else None

    def list_passes(self, space_id: str, limit: int) -> list[PassRecord]:
        rows = self._db.read(cypher.LIST_PASSES, space=space_id, limit=limit)
        return [_pass(r["pass"]) for r in rows]

    def decided(self, space_id: str, conflict_ids: Sequence[str]) -> set[str]:
        if not conflict_ids:
            return set()
        rows = self._db.read(cypher.DECIDED, space=space_id, ids=list(conflict_ids))
        return {str(r["id"]) for r in rows}

    def link(self, space_id: str, relations: Sequence[Relation]) -> list[Relation]:
        done: dict[str, Any] = {}

        def work(tx: Transaction) -> None:
            begun = tx.run(BEGIN_SPACE_WRITE, space=space_id, count=0, at=None).single()
            if begun is None:
                raise NotFound(f"no space '{space_id}'")
            written = []
            # One at a time: a pair joined by an earlier relation of this call is joined.
            for r in relations:
                made = tx.run(cypher.link(r.type.value), space=space_id, source=r.source_id,
                              target=r.target_id, createdAt=rec.utc(r.created_at),
                              createdBy=r.created_by, reason=r.reason).single()
                if made is not None and made["made"]:
                    written.append(r)
            done.update(version=int(begun["version"]), written=written)  # the attempt committed

        with self._turn(space_id):
            self._db.write(work)
        written: list[Relation] = done["written"]
        # The counts follow the relations written (they recount when they missed a write).
        self._counts.advance(space_id, done["version"], [WriteBatch(space_id, [], written)])
        return written

    def undo(self, space_id: str, pass_id: str, restore: dict[str, int],
             unlink: Sequence[Relation], by: str, at: datetime, reason: str) -> list[str]:
        when = rec.utc(at)

        def work(tx: Transaction) -> list[str]:
            begun = tx.run(BEGIN_SPACE_WRITE, space=space_id, count=0, at=when).single()
            if begun is None:
                raise NotFound(f"no space '{space_id}'")
            state = tx.run(cypher.PASS_STATE, id=pass_id, space=space_id).single()
            if state is None:
                raise NotFound(f"no consolidation pass '{pass_id}' in this space")
            if state["undone"]:
                raise Conflict(f"consolidation pass '{pass_id}' is undone already")
            restored = []
            for memory_id, version in restore.items():
                row = tx.run(cypher.RESTORE, id=memory_id, space=space_id, version=version,
                             changed=begun["version"], reason=reason, by=by, at=when).single()
                if row is not None:
                    restored.append(memory_id)
            for r in unlink:
                tx.run(cypher.unlink(r.type.value), space=space_id, source=r.source_id,
                       target=r.target_id, createdBy=r.created_by).consume()
            tx.run(cypher.PASS_UNDONE, id=pass_id, space=space_id, at=when, by=by).consume()
            return restored

        # The space's version moved: its counts and the vector cache's active rows are read
        # again on the next look (space_stats, VectorCache._fill), the restored rows active.
        with self._turn(space_id):
            return self._db.write(work)

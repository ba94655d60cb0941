"""Relations between memories in the embedded store: a memory's edges, open conflicts, the
edges of a subgraph and the walk to neighbours (the RelationStore role)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from memspace.domain.models import Neighbour, Relation, RelationType
from memspace.stores.sqlite.kit import SqliteKit
from memspace.stores.sqlite.records import (
    MEMORY_COLUMNS,
    memory_from_row,
    not_forgotten,
    relation_from_row,
    ts,
)

# Each step follows an edge out of (source) or into (target) the current node, through the
# source and target indexes (a first version joined a view of every relation of the space and
# took 240 ms at 100,000 memories); the hop bound ends the recursion and UNION drops repeated
# rows, so cycles cannot loop. `+r.space_id` keeps SQLite off the space's index, which it
# otherwise preferred: every step then read every relation of the space. `:known` (knownAt)
# walks only the relations recorded by then, to memories that existed then and are not
# forgotten (docs/time.md).
_RECORDED = "AND (:known IS NULL OR r.created_at <= :known)"
NEIGHBOURS = f"""
    WITH RECURSIVE
    origins(id) AS (SELECT value FROM json_each(:ids)),
    walk(origin, node, hops, via, direction) AS (
        SELECT o.id, r.target_id, 1, r.type, 'out'
        FROM origins o JOIN relations r ON r.source_id = o.id WHERE +r.space_id = :space
          {_RECORDED}
        UNION
        SELECT o.id, r.source_id, 1, r.type, 'in'
        FROM origins o JOIN relations r ON r.target_id = o.id WHERE +r.space_id = :space
          {_RECORDED}
        UNION
        SELECT w.origin, r.target_id, w.hops + 1, r.type, 'out'
        FROM walk w JOIN relations r ON r.source_id = w.node
        WHERE w.hops < :hops AND +r.space_id = :space {_RECORDED}
        UNION
        SELECT w.origin, r.source_id, w.hops + 1, r.type, 'in'
        FROM walk w JOIN relations r ON r.target_id = w.node
        WHERE w.hops < :hops AND +r.space_id = :space {_RECORDED}
    ),
    nearest AS (
        SELECT origin, node, min(hops) AS hops, via, direction FROM walk
        WHERE node != origin GROUP BY origin, node
    ),
    ranked AS (
        SELECT n.*, row_number() OVER (
            PARTITION BY n.origin ORDER BY n.hops, m.created_at DESC) AS rn
        FROM nearest n JOIN memories m ON m.id = n.node AND m.space_id = :space
        WHERE :known IS NULL OR (m.created_at <= :known AND {not_forgotten("m")})
    )
    SELECT r.origin, r.hops, r.via, r.direction,
           {", ".join(f"m.{c.strip()}" for c in MEMORY_COLUMNS.split(","))}
    FROM ranked r JOIN memories m ON m.id = r.node
    WHERE r.rn <= :per ORDER BY r.origin, r.hops, m.created_at DESC
"""


class SqliteRelations:
    """The RelationStore role over the store's kit (sqlite/kit.py)."""

    def __init__(self, kit: SqliteKit) -> None:
        self._db = kit.db

    def relations_of(self, space_id: str, memory_id: str) -> list[Relation]:
        # `+space_id`: the two ends' indexes, not every relation of the space (so
        # `relations_among` too).
        rows = self._db.conn().execute(
            "SELECT * FROM relations WHERE +space_id = ? AND (source_id = ? OR target_id = ?) "
            "ORDER BY created_at, id",
            (space_id, memory_id, memory_id),
        ).fetchall()
        return [relation_from_row(r) for r in rows]

    def open_conflicts(self, space_id: str, limit: int) -> list[Relation]:
        rows = self._db.conn().execute(
            "SELECT r.* FROM relations r JOIN memories n ON n.id = r.source_id "
            "JOIN memories o ON o.id = r.target_id WHERE r.space_id = ? AND r.type = 'UPDATES' "
            "AND n.active = 1 AND o.active = 1 ORDER BY r.created_at DESC, r.id DESC LIMIT ?",
            (space_id, limit),
        ).fetchall()
        return [relation_from_row(r) for r in rows]

    def relations_among(self, space_id: str, memory_ids: Sequence[str]) -> list[Relation]:
        if not memory_ids:
            return []
        rows = self._db.conn().execute(
            "WITH ids(id) AS (SELECT value FROM json_each(?)) "
            "SELECT r.* FROM relations r WHERE +r.space_id = ? "
            "AND r.source_id IN (SELECT id FROM ids) AND r.target_id IN (SELECT id FROM ids) "
            "ORDER BY r.created_at, r.id",
            (json.dumps(list(memory_ids)), space_id),
        ).fetchall()
        return [relation_from_row(r) for r in rows]

    def neighbours(
        self, space_id: str, memory_ids: Sequence[str], hops: int = 2, per_origin: int = 10,
        known_at: datetime | None = None,
    ) -> list[Neighbour]:
        if not memory_ids or hops < 1:
            return []
        rows = self._db.conn().execute(NEIGHBOURS, {
            "ids": json.dumps(list(memory_ids)), "space": space_id, "hops": hops,
            "per": per_origin, "known": ts(known_at) if known_at is not None else None,
        }).fetchall()
        return [
            Neighbour(
                origin_id=r["origin"], memory=memory_from_row(r), hops=int(r["hops"]),
                via=RelationType(r["via"]), direction=r["direction"],
            )
            for r in rows
        ]

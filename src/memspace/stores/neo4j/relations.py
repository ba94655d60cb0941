"""Relations in the Neo4j store: a memory's relations, open conflicts, the relations among
some memories and the walk to their neighbours (the RelationStore role). Relations are written
with the memories that make them (memories.write)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memspace.domain.models import Neighbour, Relation, RelationType
from memspace.stores.neo4j import records as rec
from memspace.stores.neo4j.cypher import relations as cypher
from memspace.stores.neo4j.kit import Neo4jKit


class Neo4jRelations:
    """The RelationStore role over the store's kit (neo4j/kit.py)."""

    def __init__(self, kit: Neo4jKit) -> None:
        self._db = kit.db

    def relations_of(self, space_id: str, memory_id: str) -> list[Relation]:
        rows = self._db.read(cypher.RELATIONS_OF, id=memory_id, space=space_id)
        return [rec.relation_from(r) for r in rows]

    def open_conflicts(self, space_id: str, limit: int) -> list[Relation]:
        rows = self._db.read(cypher.OPEN_CONFLICTS, space=space_id, limit=limit)
        return [rec.relation_from(r) for r in rows]

    def relations_among(self, space_id: str, memory_ids: Sequence[str]) -> list[Relation]:
        if not memory_ids:
            return []
        ids = list(dict.fromkeys(memory_ids))
        rows = self._db.read(cypher.RELATIONS_AMONG, ids=ids, space=space_id)
        return [rec.relation_from(r) for r in rows]

    def neighbours(
        self, space_id: str, memory_ids: Sequence[str], hops: int = 2, per_origin: int = 10,
        known_at: datetime | None = None,
    ) -> list[Neighbour]:
        if not memory_ids or hops < 1 or per_origin < 1:
            return []
        ids = list(dict.fromkeys(memory_ids))
        rows = self._db.read(cypher.neighbours(hops), ids=ids, space=space_id, per=per_origin,
                             knownAt=known_at)
        return [
            Neighbour(r["origin"], rec.memory_from(r["memory"]), r["hops"],
                      RelationType(r["via"]), r["direction"])
            for r in rows
        ]

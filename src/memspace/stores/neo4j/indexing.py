"""Every index of the Neo4j store and its state (domain/indexing.py): what a fresh load or a
large space's own index is still building."""

from __future__ import annotations

from memspace.domain.indexing import IndexState
from memspace.stores.neo4j.connection import Neo4jConnection
from memspace.stores.neo4j.cypher.indexes import INDEX_STATES


def index_states(db: Neo4jConnection) -> list[IndexState]:
    return [IndexState(str(row["name"]), str(row["state"]),
                       float(row["populationPercent"] or 0.0))
            for row in db.read(INDEX_STATES)]

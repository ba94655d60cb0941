"""Stores written before each relation between memories carried its space: their edges get
the space of the memory they start from at start, once per store, so a space's edges are read
from their own index (cypher/relations.py OPEN_CONFLICTS) rather than from the whole store's."""

from __future__ import annotations

from memspace.stores.neo4j import directory
from memspace.stores.neo4j.connection import Neo4jConnection
from memspace.stores.neo4j.cypher import relations as cypher

EDGE_SPACES_DONE = "edge_spaces_backfilled"


def backfill_edge_spaces(db: Neo4jConnection, batch: int = 5_000) -> int:
    """Give the relations between memories written without a space their source memory's
    (both ends are always of one space); returns how many were filled. Runs once per store: a
    StoreInfo record says it finished (the scan for edges without one reads every edge)."""
    if directory.store_info(db, EDGE_SPACES_DONE) is not None:
        return 0
    total = 0
    while True:
        done = int(db.write(lambda tx: tx.run(cypher.EDGES_WITHOUT_SPACE, limit=batch)
                            .single(strict=True)["done"]))
        total += done
        if done < batch:
            directory.set_store_info(db, EDGE_SPACES_DONE, "1")
            return total

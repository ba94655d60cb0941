"""Stores written before types and statuses (domain/lifecycle.py): their memories get a type
and a status at start, once per store, as SQLite's migration 14 gives them."""

from __future__ import annotations

from memspace.stores.neo4j import directory
from memspace.stores.neo4j.connection import Neo4jConnection
from memspace.stores.neo4j.cypher import memories as cypher

LIFECYCLE_DONE = "lifecycle_backfilled"


def backfill_lifecycle(db: Neo4jConnection, batch: int = 2_000, space: str | None = None) -> int:
    """Give memories stored before types and statuses their type (note) and status (what their
    state means today); returns how many were filled. Runs once per store: a StoreInfo record
    says it finished (the scan for memories without a status reads every memory). `space`
    narrows it to one space, and then it always runs and records nothing (tests)."""
    if space is None and directory.store_info(db, LIFECYCLE_DONE) is not None:
        return 0
    total = 0
    while True:
        done = int(db.write(lambda tx: tx.run(cypher.MEMORIES_WITHOUT_STATUS, limit=batch,
                                              space=space).single(strict=True)["done"]))
        total += done
        if done < batch:
            if space is None:
                directory.set_store_info(db, LIFECYCLE_DONE, "1")
            return total

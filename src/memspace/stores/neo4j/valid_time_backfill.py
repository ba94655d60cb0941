"""Stores written before valid time (docs/time.md): their memories get `validFrom` and, when a
correction superseded them, `validTo` at start, once per store, as SQLite's migration 17 does."""

from __future__ import annotations

from memspace.stores.neo4j import directory
from memspace.stores.neo4j.connection import Neo4jConnection
from memspace.stores.neo4j.cypher import valid_time as cypher

VALID_TIME_DONE = "valid_time_backfilled"


def backfill_valid_time(db: Neo4jConnection, batch: int = 2_000,
                        space: str | None = None) -> int:
    """Fill validFrom, then validTo (it reads the successors' validFrom); returns how many
    memories were filled. Runs once per store (a StoreInfo record says it finished); `space`
    narrows it to one space, and then it always runs and records nothing (tests)."""
    if space is None and directory.store_info(db, VALID_TIME_DONE) is not None:
        return 0
    total = 0
    for statement in (cypher.MEMORIES_WITHOUT_VALID_FROM, cypher.SUPERSEDED_WITHOUT_VALID_TO):
        while True:
            done = _fill(db, statement, batch, space)
            total += done
            if done < batch:
                break
    if space is None:
        directory.set_store_info(db, VALID_TIME_DONE, "1")
    return total


def _fill(db: Neo4jConnection, statement: str, batch: int, space: str | None) -> int:
    return int(db.write(lambda tx: tx.run(statement, limit=batch,
                                          space=space).single(strict=True)["done"]))

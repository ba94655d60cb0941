"""Memories stored by an older version of memspace brought up to date at start-up
(Neo4jStore's constructor): their index terms, and the turn each continues (`follows`)."""

from __future__ import annotations

from neo4j import Transaction

from memspace.domain.text import index_terms
from memspace.stores.neo4j.connection import Neo4jConnection, Row
from memspace.stores.neo4j.cypher import memories as cypher


def backfill_terms(db: Neo4jConnection, batch: int = 2_000) -> None:
    """Give memories stored before index terms existed their terms (from their content)."""
    while True:
        rows = db.read(cypher.MEMORIES_WITHOUT_TERMS, limit=batch)
        if not rows:
            return
        filled = [{"id": r["id"], "terms": index_terms(r["content"])} for r in rows]

        def fill(tx: Transaction, rows: list[dict[str, str]] = filled) -> None:
            tx.run(cypher.SET_TERMS, rows=rows).consume()

        db.write(fill)


def backfill_follows(db: Neo4jConnection, batch: int = 2_000) -> int:
    """Give turns stored before `follows` existed the turn they continue, the way
    services/memories/conversation.py found their context: the writer's latest memory before them,
    kept only if its content is that context (as SQLite's migration 11 does). Runs once: the
    property key is made known at the end, so an interrupted run is redone at the next start.
    Returns how many were linked."""
    if db.read(cypher.HAS_FOLLOWS_KEY)[0]["n"]:
        return 0
    links: list[dict[str, str]] = []
    before: Row | None = None
    for row in db.read(cypher.TURNS_IN_ORDER):
        context = row["context"]
        if (context and before is not None
                and (before["space"], before["writer"]) == (row["space"], row["writer"])
                and (before["content"] == context or context.startswith("…"))):
            links.append({"id": row["id"], "follows": before["id"]})
        before = row
    for start in range(0, len(links), batch):

        def fill(tx: Transaction, rows: list[dict[str, str]] = links[start:start + batch]) -> None:
            tx.run(cypher.SET_FOLLOWS, rows=rows).consume()

        db.write(fill)
    db.write(lambda tx: tx.run(cypher.REGISTER_FOLLOWS_KEY).consume())
    return len(links)

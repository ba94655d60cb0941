"""Usage totals and idempotency keys in the Neo4j store (the LedgerStore role)."""

from __future__ import annotations

from datetime import datetime

from neo4j import Transaction

from memspace.domain.errors import Conflict, NotFound
from memspace.domain.models import Usage
from memspace.stores.neo4j import records as rec
from memspace.stores.neo4j.cypher import ledger as cypher
from memspace.stores.neo4j.kit import Neo4jKit


class Neo4jLedger:
    """The LedgerStore role over the store's kit (neo4j/kit.py)."""

    def __init__(self, kit: Neo4jKit) -> None:
        self._db = kit.db
        self._turn = kit.turn

    def record_usage(self, space_id: str, usage: Usage) -> None:
        """Inside the space's turn (the kit's SpaceTurns, kit.py), as it locks the Space node."""
        def work(tx: Transaction) -> None:
            found = tx.run(cypher.RECORD_USAGE, space=space_id, calls=usage.llm_calls,
                           prompt=usage.prompt_tokens,
                           completion=usage.completion_tokens).single(strict=True)
            if found["found"] == 0:
                raise NotFound(f"no space '{space_id}'")

        with self._turn(space_id):
            self._db.write(work)

    def usage_totals(self, space_id: str) -> Usage:
        rows = self._db.read(cypher.USAGE_TOTALS, space=space_id)
        if not rows:
            return Usage()
        return Usage(rows[0]["calls"], rows[0]["prompt"], rows[0]["completion"])

    def claim_idempotency(self, space_id: str, scope: str, key: str, at: datetime) -> str | None:
        def work(tx: Transaction) -> tuple[bool, str | None]:
            row = tx.run(cypher.CLAIM_IDEMPOTENCY, space=space_id, scope=scope, key=key,
                         at=rec.utc(at)).single(strict=True)
            return bool(row["fresh"]), row["result"]

        fresh, result = self._db.write(work)
        if fresh:
            return None
        if result is None:
            raise Conflict(
                f"a call with idempotencyKey '{key}' is still running; retry it in a moment"
            )
        return str(result)

    def complete_idempotency(self, space_id: str, scope: str, key: str, result: str) -> None:
        self._db.write(lambda tx: tx.run(cypher.COMPLETE_IDEMPOTENCY, space=space_id,
                                         scope=scope, key=key, result=result).consume())

    def release_idempotency(self, space_id: str, scope: str, key: str) -> None:
        self._db.write(lambda tx: tx.run(cypher.RELEASE_IDEMPOTENCY, space=space_id,
                                         scope=scope, key=key).consume())

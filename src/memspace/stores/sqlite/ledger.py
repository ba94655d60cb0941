"""Model usage totals and idempotency records in the embedded store (the LedgerStore role)."""

from __future__ import annotations

from datetime import datetime

from memspace.domain.errors import Conflict
from memspace.domain.models import Usage
from memspace.stores.sqlite.kit import SqliteKit
from memspace.stores.sqlite.records import ts


class SqliteLedger:
    """The LedgerStore role over the store's kit (sqlite/kit.py)."""

    def __init__(self, kit: SqliteKit) -> None:
        self._db = kit.db

    def record_usage(self, space_id: str, usage: Usage) -> None:
        with self._db.tx() as conn:
            conn.execute(
                "INSERT INTO usage_totals (space_id, llm_calls, prompt_tokens, completion_tokens) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (space_id) DO UPDATE SET "
                "llm_calls = llm_calls + excluded.llm_calls, "
                "prompt_tokens = prompt_tokens + excluded.prompt_tokens, "
                "completion_tokens = completion_tokens + excluded.completion_tokens",
                (space_id, usage.llm_calls, usage.prompt_tokens, usage.completion_tokens),
            )

    def usage_totals(self, space_id: str) -> Usage:
        row = self._db.conn().execute(
            "SELECT llm_calls, prompt_tokens, completion_tokens FROM usage_totals "
            "WHERE space_id = ?", (space_id,),
        ).fetchone()
        return Usage(*row) if row else Usage()

    def claim_idempotency(self, space_id: str, scope: str, key: str, at: datetime) -> str | None:
        """The stored result, or None after inserting the claim; Conflict while one is running."""
        with self._db.tx() as conn:
            row = conn.execute(
                "SELECT result FROM idempotency WHERE space_id = ? AND scope = ? AND key = ?",
                (space_id, scope, key),
            ).fetchone()
            if row is None:
                conn.execute(
                    "INSERT INTO idempotency (space_id, scope, key, result, created_at) "
                    "VALUES (?, ?, ?, NULL, ?)", (space_id, scope, key, ts(at)),
                )
                return None
            if row[0] is None:  # raised inside the transaction, which wrote nothing
                raise Conflict(
                    f"a call with idempotencyKey '{key}' is still running; retry it in a moment")
            return str(row[0])

    def complete_idempotency(self, space_id: str, scope: str, key: str, result: str) -> None:
        with self._db.tx() as conn:
            conn.execute(
                "UPDATE idempotency SET result = ? WHERE space_id = ? AND scope = ? AND key = ?",
                (result, space_id, scope, key),
            )

    def release_idempotency(self, space_id: str, scope: str, key: str) -> None:
        with self._db.tx() as conn:
            conn.execute(
                "DELETE FROM idempotency WHERE space_id = ? AND scope = ? AND key = ? "
                "AND result IS NULL", (space_id, scope, key),
            )

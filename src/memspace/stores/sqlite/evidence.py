"""EvidenceStore on the embedded SQLite file: each space's policy, and cited memories' state."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memspace.domain.evidence_codec import evidence_text
from memspace.domain.models import Memory
from memspace.domain.ports import Checked, PageAfter
from memspace.stores.sqlite.kit import SqliteKit
from memspace.stores.sqlite.records import MEMORY_COLUMNS, memory_from_row, ts


class SqliteEvidence:
    def __init__(self, kit: SqliteKit) -> None:
        self._db = kit.db

    def evidence_policy(self, space_id: str) -> str:
        row = self._db.conn().execute(
            "SELECT policy FROM evidence_policies WHERE space_id = ?", (space_id,)).fetchone()
        return str(row[0]) if row else "optional"

    def set_evidence_policy(self, space_id: str, policy: str) -> None:
        with self._db.tx() as conn:
            conn.execute("INSERT INTO evidence_policies (space_id, policy) VALUES (?, ?) "
                         "ON CONFLICT (space_id) DO UPDATE SET policy = excluded.policy",
                         (space_id, policy))

    def anchored_memories(self, space_id: str) -> list[Memory]:
        rows = self._db.conn().execute(
            f"SELECT {MEMORY_COLUMNS} FROM memories WHERE space_id = ? AND active = 1 "
            "AND evidence IS NOT NULL ORDER BY created_at, id", (space_id,)).fetchall()
        return [memory_from_row(r) for r in rows]

    def set_verification(self, space_id: str, checked: Sequence[Checked], at: datetime) -> None:
        with self._db.tx() as conn:
            conn.executemany(
                "UPDATE memories SET evidence = ?, verification = ?, verified_at = ? "
                "WHERE id = ? AND space_id = ?",
                [(evidence_text(c.evidence), c.state, ts(at), c.memory_id, space_id)
                 for c in checked])

    def memories_in_state(self, space_id: str, state: str, limit: int,
                          after: PageAfter | None = None) -> list[Memory]:
        sql = "space_id = ? AND active = 1 AND verification = ?"
        params: list[object] = [space_id, state]
        if after is not None:
            sql += " AND (created_at < ? OR (created_at = ? AND id < ?))"
            params += [ts(after.created_at), ts(after.created_at), after.id]
        rows = self._db.conn().execute(
            f"SELECT {MEMORY_COLUMNS} FROM memories WHERE {sql} ORDER BY created_at DESC, id DESC "
            "LIMIT ?", (*params, limit)).fetchall()
        return [memory_from_row(r) for r in rows]

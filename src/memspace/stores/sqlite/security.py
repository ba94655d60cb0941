"""PolicyStore and AuditStore on the embedded SQLite file (tables of migration 14), sharing the
graph's connection."""

from __future__ import annotations

import sqlite3
from datetime import datetime

from memspace.domain.errors import NotFound
from memspace.domain.evidence_codec import evidence_text
from memspace.domain.security import (
    AuditEntry,
    BesideText,
    InjectionPolicy,
    SecretsPolicy,
    SpacePolicy,
)
from memspace.domain.text import content_hash, index_terms
from memspace.stores.sqlite.kit import SqliteKit
from memspace.stores.sqlite.records import req_ts, ts


def _entry(row: sqlite3.Row) -> AuditEntry:
    return AuditEntry(row["id"], req_ts(row["at"]), row["actor"], row["action"], row["space_id"],
                      row["target"], row["detail"])


class SqliteSecurity:
    def __init__(self, kit: SqliteKit) -> None:
        self._db = kit.db
        self._vectors = kit.vectors

    def get_space_policy(self, space_id: str) -> SpacePolicy:
        row = self._db.conn().execute(
            "SELECT secrets, injections FROM space_policies WHERE space_id = ?", (space_id,)
        ).fetchone()
        if row is None:
            return SpacePolicy()
        return SpacePolicy(SecretsPolicy(row["secrets"]), InjectionPolicy(row["injections"]))

    def set_space_policy(self, space_id: str, policy: SpacePolicy) -> None:
        with self._db.tx() as conn:
            conn.execute(
                "INSERT INTO space_policies (space_id, secrets, injections) VALUES (?, ?, ?) "
                "ON CONFLICT (space_id) DO UPDATE SET secrets = excluded.secrets, "
                "injections = excluded.injections",
                (space_id, policy.secrets.value, policy.injections.value))

    def record_audit(self, entry: AuditEntry) -> None:
        with self._db.tx() as conn:
            conn.execute(
                "INSERT INTO audit_log (id, at, actor, action, space_id, target, detail) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (entry.id, ts(entry.at), entry.actor, entry.action, entry.space_id, entry.target,
                 entry.detail))

    def audit_since(self, since: datetime, limit: int) -> list[AuditEntry]:
        rows = self._db.conn().execute(
            "SELECT * FROM audit_log WHERE at >= ? ORDER BY at, id LIMIT ?", (ts(since), limit)
        ).fetchall()
        return [_entry(r) for r in rows]

    def scrub_memory(self, space_id: str, memory_id: str, content: str,
                     context: str | None, beside: BesideText | None = None) -> None:
        with self._db.tx() as conn:
            cur = conn.execute(
                "UPDATE memories SET content = ?, context = ?, content_hash = ?, terms = ? "
                "WHERE id = ? AND space_id = ?",
                (content, context, content_hash(content), index_terms(content, context),
                 memory_id, space_id))
            if cur.rowcount != 1:
                raise NotFound(f"no memory '{memory_id}' in this space")
            if beside is not None:
                conn.execute(
                    "UPDATE memories SET category = ?, speaker = ?, forget_reason = ?, "
                    "evidence = ? WHERE id = ? AND space_id = ?",
                    (beside.category, beside.speaker, beside.forget_reason,
                     evidence_text(beside.evidence), memory_id, space_id))
        self._vectors.forget_space(space_id)  # its index terms changed under the cache

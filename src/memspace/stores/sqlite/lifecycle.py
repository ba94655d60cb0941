"""LifecycleStore on the embedded SQLite file (migration 14): a memory's status set by hand,
with the record of who set it, when and why, and memories retired at their expiry (migration
21), through the graph store's connection."""

from __future__ import annotations

import sqlite3
from datetime import datetime

from memspace.domain.errors import Conflict, NotFound, StaleVersion
from memspace.domain.lifecycle import MemoryStatus, Revision
from memspace.domain.models import Memory
from memspace.stores.sqlite import memories
from memspace.stores.sqlite.kit import SqliteKit
from memspace.stores.sqlite.records import MEMORY_COLUMNS, memory_from_row, req_ts, ts


def _revision(row: sqlite3.Row) -> Revision:
    return Revision(row["space_id"], row["memory_id"], row["version"], row["kind"],
                    row["status"], row["reason"], row["marked_by"], req_ts(row["marked_at"]))


class SqliteLifecycle:
    """Status changes in the same SQLite file as the graph."""

    def __init__(self, kit: SqliteKit) -> None:
        self._db = kit.db

    def mark(self, space_id: str, memory_id: str, status: MemoryStatus, reason: str, by: str,
             at: datetime, expected_version: int | None = None) -> Memory:
        with self._db.tx() as conn:
            row = conn.execute(
                f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id = ? AND space_id = ?",
                (memory_id, space_id)).fetchone()
            if row is None:
                raise NotFound(f"no memory '{memory_id}' in this space")
            memory = memory_from_row(row)
            if not memory.active:
                raise Conflict(f"memory '{memory_id}' is {memory.status.value}; mark its current "
                               "version instead (getMemory shows it)")
            if expected_version is not None and memory.version != expected_version:
                raise StaleVersion(memory_id, expected_version, memory.version, memory_id)
            stamp = memories.touch(conn, space_id, at)
            conn.execute(
                "UPDATE memories SET status = ?, version = version + 1, changed_version = ? "
                "WHERE id = ?", (status.value, stamp, memory_id))
            conn.execute(
                "INSERT INTO memory_marks (space_id, memory_id, version, kind, status, reason, "
                "marked_by, marked_at) VALUES (?, ?, ?, 'marked', ?, ?, ?, ?)",
                (space_id, memory_id, memory.version + 1, status.value, reason, by, ts(at)))
            found = memories.one(conn, space_id, memory_id)
            assert found is not None
            return found

    def expire_due(self, space_id: str, now: datetime, by: str, reason: str,
                   limit: int) -> list[Memory]:
        with self._db.tx() as conn:
            due = [str(r[0]) for r in conn.execute(
                "SELECT id FROM memories INDEXED BY memories_expiring WHERE space_id = ? "
                "AND active = 1 AND expires_at IS NOT NULL AND expires_at <= ? "
                "ORDER BY expires_at, id LIMIT ?", (space_id, ts(now), limit))]
            if not due:
                return []  # nothing changed: the space's version (and its feed) stays put
            stamp = memories.touch(conn, space_id, now)
            # As of the expiry, not of this pass: reads of the past answer exactly whenever
            # the pass ran, and the row is stamped into the change feed like a forget.
            conn.executemany(
                "UPDATE memories SET active = 0, status = 'historical', "
                "invalidated_at = expires_at, valid_to = expires_at, forget_reason = ?, "
                "forgotten_by = ?, changed_version = ?, version = version + 1 WHERE id = ?",
                [(reason, by, stamp, memory_id) for memory_id in due])
            conn.executemany(
                "INSERT INTO memory_marks (space_id, memory_id, version, kind, status, reason, "
                "marked_by, marked_at) SELECT space_id, id, version, 'expired', 'historical', "
                "?, ?, expires_at FROM memories WHERE id = ?",
                [(reason, by, memory_id) for memory_id in due])
            found = [memories.one(conn, space_id, memory_id) for memory_id in due]
            return [m for m in found if m is not None]

    def marks_of(self, space_id: str, memory_ids: list[str]) -> list[Revision]:
        """The status changes of these memories, oldest first."""
        if not memory_ids:
            return []
        rows = self._db.conn().execute(
            "SELECT * FROM memory_marks WHERE space_id = ? AND memory_id IN "
            f"({', '.join('?' * len(memory_ids))}) ORDER BY marked_at, id",
            (space_id, *memory_ids)).fetchall()
        return [_revision(r) for r in rows]

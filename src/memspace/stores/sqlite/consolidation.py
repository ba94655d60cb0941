"""ConsolidationStore on the embedded SQLite file (migration 20, docs/consolidation.md): the
pass lease and cursor of each space, the pass records, the links a pass adds and the undo of a
pass, each write in one transaction under the file's write lock. A pass's supersessions are
ConflictStore.settle's (stores/sqlite/conflicts.py)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import datetime

from memspace.domain.consolidation import (
    PassCursor,
    PassRecord,
    changes_from,
    changes_text,
    cost_from,
    cost_text,
)
from memspace.domain.errors import Conflict, NotFound
from memspace.domain.models import Relation
from memspace.domain.ports import WriteBatch
from memspace.stores.sqlite import memories
from memspace.stores.sqlite.kit import SqliteKit
from memspace.stores.sqlite.records import parse_ts, req_ts, ts


def _pass(row: sqlite3.Row) -> PassRecord:
    return PassRecord(row["id"], row["space_id"], req_ts(row["started_at"]), int(row["since"]),
                      int(row["until"]), changes_from(row["changes"]), cost_from(row["cost"]),
                      parse_ts(row["finished_at"]), parse_ts(row["undone_at"]), row["undone_by"],
                      row["since_after"], row["until_after"])


def _cursor(conn: sqlite3.Connection, space_id: str) -> PassCursor:
    row = conn.execute("SELECT cursor, cursor_after FROM consolidation_cursors "
                       "WHERE space_id = ?", (space_id,)).fetchone()
    return PassCursor(int(row[0]), row[1]) if row else PassCursor()


class SqliteConsolidation:
    """The consolidation pass's records in the same SQLite file as the graph."""

    def __init__(self, kit: SqliteKit) -> None:
        self._db = kit.db
        self._counts = kit.counts  # moved along by the links written here

    def take_lease(self, space_id: str, holder: str, now: datetime, until: datetime) -> bool:
        with self._db.tx() as conn:
            # The update's WHERE is read under the write lock BEGIN IMMEDIATE took: of two
            # processes asking at once, the second sees the first one's lease.
            cur = conn.execute(
                "INSERT INTO consolidation_leases (space_id, holder, until) VALUES (?, ?, ?) "
                "ON CONFLICT (space_id) DO UPDATE SET holder = excluded.holder, "
                "until = excluded.until "
                "WHERE consolidation_leases.holder = excluded.holder "
                "OR consolidation_leases.until <= ?",
                (space_id, holder, ts(until), ts(now)))
            return cur.rowcount == 1

    def release_lease(self, space_id: str, holder: str) -> None:
        with self._db.tx() as conn:
            conn.execute("DELETE FROM consolidation_leases WHERE space_id = ? AND holder = ?",
                         (space_id, holder))

    def cursor(self, space_id: str) -> PassCursor:
        return _cursor(self._db.conn(), space_id)

    def save_pass(self, record: PassRecord) -> None:
        with self._db.tx() as conn:
            conn.execute(
                "INSERT INTO consolidation_passes (id, space_id, started_at, finished_at, since, "
                "until, changes, cost, undone_at, undone_by, since_after, until_after) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET space_id = excluded.space_id, "
                "started_at = excluded.started_at, finished_at = excluded.finished_at, "
                "since = excluded.since, until = excluded.until, changes = excluded.changes, "
                "cost = excluded.cost, undone_at = excluded.undone_at, "
                "undone_by = excluded.undone_by, since_after = excluded.since_after, "
                "until_after = excluded.until_after",
                (record.id, record.space_id, ts(record.started_at),
                 ts(record.finished_at) if record.finished_at else None, record.since,
                 record.until, changes_text(record.changes), cost_text(record.cost),
                 ts(record.undone_at) if record.undone_at else None, record.undone_by,
                 record.since_after, record.until_after))
            # The cursor is read under the write lock this transaction holds: no other save
            # moves it meanwhile.
            if record.finished_at is not None and record.end.ahead_of(
                    _cursor(conn, record.space_id)):
                conn.execute(
                    "INSERT INTO consolidation_cursors (space_id, cursor, cursor_after) "
                    "VALUES (?, ?, ?) ON CONFLICT (space_id) DO UPDATE SET "
                    "cursor = excluded.cursor, cursor_after = excluded.cursor_after",
                    (record.space_id, record.until, record.until_after))

    def get_pass(self, space_id: str, pass_id: str) -> PassRecord | None:
        row = self._db.conn().execute(
            "SELECT * FROM consolidation_passes WHERE id = ? AND space_id = ?",
            (pass_id, space_id)).fetchone()
        return _pass(row) if row is not None else None

    def list_passes(self, space_id: str, limit: int) -> list[PassRecord]:
        rows = self._db.conn().execute(
            "SELECT * FROM consolidation_passes WHERE space_id = ? "
            "ORDER BY started_at DESC, id DESC LIMIT ?", (space_id, limit)).fetchall()
        return [_pass(r) for r in rows]

    def decided(self, space_id: str, conflict_ids: Sequence[str]) -> set[str]:
        if not conflict_ids:
            return set()
        rows = self._db.conn().execute(
            "SELECT id FROM conflicts WHERE space_id = ? AND id IN "
            "(SELECT value FROM json_each(?))", (space_id, json.dumps(list(conflict_ids)))
        ).fetchall()
        return {str(r[0]) for r in rows}

    def link(self, space_id: str, relations: Sequence[Relation]) -> list[Relation]:
        written: list[Relation] = []
        with self._db.tx() as conn:
            version = memories.touch(conn, space_id, None)
            for r in relations:
                # One at a time: a pair joined by an earlier relation of this call is joined.
                cur = conn.execute(
                    "INSERT INTO relations (space_id, source_id, target_id, type, created_at, "
                    "created_by, reason) SELECT ?, ?, ?, ?, ?, ?, ? "
                    "WHERE ? <> ? AND (SELECT count(*) FROM memories WHERE +space_id = ? "
                    "AND active = 1 AND id IN (?, ?)) = 2 "
                    "AND NOT EXISTS (SELECT 1 FROM relations WHERE space_id = ? AND "
                    "((source_id = ? AND target_id = ?) OR (source_id = ? AND target_id = ?)))",
                    (space_id, r.source_id, r.target_id, r.type.value, ts(r.created_at),
                     r.created_by, r.reason, r.source_id, r.target_id, space_id, r.source_id,
                     r.target_id, space_id, r.source_id, r.target_id, r.target_id, r.source_id))
                if cur.rowcount == 1:
                    written.append(r)
        # The counts follow the relations written (they recount when they missed a write).
        self._counts.advance(space_id, version, [WriteBatch(space_id, [], written)])
        return written

    def undo(self, space_id: str, pass_id: str, restore: dict[str, int],
             unlink: Sequence[Relation], by: str, at: datetime, reason: str) -> list[str]:
        restored: list[str] = []
        with self._db.tx() as conn:
            row = conn.execute(
                "SELECT undone_at FROM consolidation_passes WHERE id = ? AND space_id = ?",
                (pass_id, space_id)).fetchone()
            if row is None:
                raise NotFound(f"no consolidation pass '{pass_id}' in this space")
            if row["undone_at"] is not None:
                raise Conflict(f"consolidation pass '{pass_id}' is undone already")
            stamp = memories.touch(conn, space_id, at)
            for memory_id, version in restore.items():
                if _restore(conn, space_id, memory_id, version, stamp):
                    restored.append(memory_id)
                    conn.execute(
                        "INSERT INTO memory_marks (space_id, memory_id, version, kind, status, "
                        "reason, marked_by, marked_at) SELECT ?, id, version, 'restored', "
                        "'current', ?, ?, ? FROM memories WHERE id = ?",
                        (space_id, reason, by, ts(at), memory_id))
            for r in unlink:
                conn.execute(
                    "DELETE FROM relations WHERE space_id = ? AND source_id = ? AND target_id = ? "
                    "AND type = ? AND created_by = ?",
                    (space_id, r.source_id, r.target_id, r.type.value, r.created_by))
            conn.execute(
                "UPDATE consolidation_passes SET undone_at = ?, undone_by = ? WHERE id = ?",
                (ts(at), by, pass_id))
        # The space's version moved: its counts and the vector cache's active rows are read
        # again on the next look (space_stats, VectorCache._fill), the restored rows active.
        return restored


def _restore(conn: sqlite3.Connection, space_id: str, memory_id: str, version: int,
             stamp: int) -> bool:
    """Make the memory current again if it is still inactive at `version`, and no active memory
    of the space holds its content meanwhile (one active memory per content, as every write
    keeps it)."""
    cur = conn.execute(
        "UPDATE memories SET active = 1, status = 'current', invalidated_at = NULL, "
        "invalidated_by = NULL, forget_reason = NULL, forgotten_by = NULL, valid_to = NULL, "
        "version = version + 1, changed_version = ? "
        "WHERE id = ? AND space_id = ? AND active = 0 AND version = ? "
        "AND NOT EXISTS (SELECT 1 FROM memories o INDEXED BY memories_by_hash "
        "WHERE o.space_id = memories.space_id AND o.active = 1 "
        "AND o.content_hash = memories.content_hash)",
        (stamp, memory_id, space_id, version))
    return cur.rowcount == 1

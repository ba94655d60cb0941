"""ConflictStore on the embedded SQLite file (the `conflicts` table, docs/conflicts.md): conflicts
kept as records, and a settlement written in one transaction with the memories it changes."""

from __future__ import annotations

import json
import sqlite3

from memspace.domain.conflicts import (
    ConflictKind,
    RecordedConflict,
    Settlement,
    proposal_from,
    proposal_text,
)
from memspace.domain.errors import NotFound, StaleVersion
from memspace.stores.sqlite import memories
from memspace.stores.sqlite.kit import SqliteKit
from memspace.stores.sqlite.records import req_ts, ts


def _conflict(row: sqlite3.Row) -> RecordedConflict:
    return RecordedConflict(row["id"], row["space_id"], ConflictKind(row["kind"]),
                            tuple(json.loads(row["memory_ids"])), row["why"], row["recorded_by"],
                            req_ts(row["recorded_at"]), proposal_from(row["proposal"]))


# Recorded, unsettled, every memory still current, and (for a proposal) its text not stored
# since by another add.
_OPEN = ("resolved_at IS NULL AND NOT EXISTS (SELECT 1 FROM json_each(c.memory_ids) j "
         "LEFT JOIN memories m ON m.id = j.value AND m.space_id = c.space_id "
         "WHERE m.id IS NULL OR m.active = 0) "
         "AND (proposal_hash IS NULL OR NOT EXISTS (SELECT 1 FROM memories m "
         "WHERE m.space_id = c.space_id AND m.content_hash = c.proposal_hash AND m.active = 1))")


class SqliteConflicts:
    """The conflict queue's records in the same SQLite file as the graph."""

    def __init__(self, kit: SqliteKit) -> None:
        self._db = kit.db

    def record(self, conflict: RecordedConflict) -> bool:
        with self._db.tx() as conn:
            cur = conn.execute(
                "INSERT OR IGNORE INTO conflicts (id, space_id, kind, memory_ids, why, "
                "recorded_by, recorded_at, proposal, proposal_hash) VALUES (?, ?, ?, ?, ?, ?, ?, "
                "?, ?)",
                (conflict.id, conflict.space_id, conflict.kind.value,
                 json.dumps(list(conflict.memory_ids)), conflict.why, conflict.by,
                 ts(conflict.at), proposal_text(conflict.proposal),
                 conflict.proposal.content_hash if conflict.proposal else None))
            return cur.rowcount == 1

    def open_recorded(self, space_id: str, limit: int) -> list[RecordedConflict]:
        rows = self._db.conn().execute(
            f"SELECT * FROM conflicts c WHERE c.space_id = ? AND {_OPEN} "
            "ORDER BY c.recorded_at DESC, c.id LIMIT ?", (space_id, limit)).fetchall()
        return [_conflict(r) for r in rows]

    def get_recorded(self, space_id: str, conflict_id: str) -> RecordedConflict | None:
        row = self._db.conn().execute(
            f"SELECT * FROM conflicts c WHERE c.id = ? AND c.space_id = ? AND {_OPEN}",
            (conflict_id, space_id)).fetchone()
        return _conflict(row) if row is not None else None

    def settle(self, settlement: Settlement) -> None:
        conflict, at = settlement.conflict, settlement.at
        space = conflict.space_id
        with self._db.tx() as conn:
            stamp = memories.touch(conn, space, at)
            named = [*([settlement.keep] if settlement.keep else []), *settlement.supersede]
            for memory_id in named:
                _check(conn, space, memory_id, settlement.expected.get(memory_id))
            for old in settlement.supersede:
                status = _retire(conn, settlement, old, stamp)
                _history(conn, space, old, status, settlement)
            if settlement.keep:
                conn.execute(
                    "UPDATE memories SET version = version + 1, changed_version = ?, "
                    "status = 'current' WHERE id = ? AND status = 'disputed'",
                    (stamp, settlement.keep))
                _history(conn, space, settlement.keep, "current", settlement)
            conn.execute(
                "INSERT INTO conflicts (id, space_id, kind, memory_ids, why, recorded_by, "
                "recorded_at, proposal, proposal_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (id) DO NOTHING",
                (conflict.id, space, conflict.kind.value, json.dumps(list(conflict.memory_ids)),
                 conflict.why, conflict.by, ts(conflict.at), proposal_text(conflict.proposal),
                 conflict.proposal.content_hash if conflict.proposal else None))
            conn.execute(
                "UPDATE conflicts SET resolved_at = ?, resolved_by = ?, resolution = ?, kept = ?, "
                "superseded = ? WHERE id = ? AND space_id = ?",
                (ts(at), settlement.by, settlement.reason, settlement.keep,
                 json.dumps(list(settlement.supersede)), conflict.id, space))


def _check(conn: sqlite3.Connection, space_id: str, memory_id: str, expected: int | None) -> None:
    row = conn.execute("SELECT version, active FROM memories WHERE id = ? AND space_id = ?",
                       (memory_id, space_id)).fetchone()
    if row is None:
        raise NotFound(f"no memory '{memory_id}' in this space")
    if (expected is not None and int(row["version"]) != expected) or not row["active"]:
        raise StaleVersion(memory_id, expected or int(row["version"]), int(row["version"]),
                           memory_id)


def _retire(conn: sqlite3.Connection, settlement: Settlement, old: str, stamp: int) -> str:
    """Take `old` out of the current set: superseded by the kept memory (with an UPDATES from
    it unless one already joins them), or historical when nothing is kept."""
    at, space = ts(settlement.at), settlement.conflict.space_id
    valid_to = ts(settlement.valid_to) if settlement.valid_to else None  # None: left as it is
    if settlement.keep is None:
        conn.execute(
            "UPDATE memories SET active = 0, invalidated_at = ?, forget_reason = ?, "
            "forgotten_by = ?, status = 'historical', changed_version = ?, version = version + 1, "
            "valid_to = coalesce(?, valid_to) WHERE id = ?",
            (at, settlement.reason, settlement.by, stamp, valid_to, old))
        return "historical"
    conn.execute(
        "UPDATE memories SET active = 0, invalidated_at = ?, invalidated_by = ?, "
        "status = 'superseded', changed_version = ?, version = version + 1, "
        "valid_to = coalesce(?, valid_to) WHERE id = ?",
        (at, settlement.keep, stamp, valid_to, old))
    joined = conn.execute(
        "SELECT 1 FROM relations WHERE space_id = ? AND type = 'UPDATES' AND ((source_id = ? AND "
        "target_id = ?) OR (source_id = ? AND target_id = ?))",
        (space, settlement.keep, old, old, settlement.keep)).fetchone()
    if joined is None:
        conn.execute(
            "INSERT INTO relations (space_id, source_id, target_id, type, created_at, "
            "created_by, reason) VALUES (?, ?, ?, 'UPDATES', ?, ?, ?)",
            (space, settlement.keep, old, at, settlement.by,
             f"conflict resolved: {settlement.reason}"))
    return "superseded"


def _history(conn: sqlite3.Connection, space_id: str, memory_id: str, status: str,
             settlement: Settlement) -> None:
    conn.execute(
        "INSERT INTO memory_marks (space_id, memory_id, version, kind, status, reason, "
        "marked_by, marked_at) SELECT ?, id, version, 'resolved', ?, ?, ?, ? FROM memories "
        "WHERE id = ?",
        (space_id, status, f"{settlement.conflict.kind.value} {settlement.conflict.id}: "
         f"{settlement.reason}", settlement.by, ts(settlement.at), memory_id))

"""NoteJobStore on the embedded SQLite file (table from migration 8), sharing the graph's connection."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime

from memspace.domain.notes import NoteJob, NoteState
from memspace.stores.sqlite.kit import SqliteKit
from memspace.stores.sqlite.records import parse_ts, req_ts, ts


def _job(row: sqlite3.Row) -> NoteJob:
    observed = row["observed_at"]
    return NoteJob(row["memory_id"], row["space_id"], NoteState(row["state"]),
                   req_ts(row["created_at"]), row["speaker"],
                   datetime.fromisoformat(observed) if observed else None, row["category"],
                   row["reason"], parse_ts(row["updated_at"]))


class SqliteNoteJobs:
    """Note jobs in the same SQLite file as the graph, through the graph store's connection."""

    def __init__(self, kit: SqliteKit) -> None:
        self._db = kit.db

    def add_note_job(self, job: NoteJob) -> None:
        with self._db.tx() as conn:
            conn.execute(
                "INSERT INTO note_jobs (memory_id, space_id, state, created_at, speaker, "
                "observed_at, category, reason, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (job.memory_id, job.space_id, job.state.value, ts(job.created_at), job.speaker,
                 job.observed_at.isoformat() if job.observed_at else None, job.category,
                 job.reason, ts(job.updated_at) if job.updated_at else None),
            )

    def settle_note_job(self, space_id: str, memory_id: str, state: NoteState, reason: str | None,
                        at: datetime) -> None:
        with self._db.tx() as conn:
            conn.execute(
                "UPDATE note_jobs SET state = ?, reason = ?, updated_at = ? "
                "WHERE space_id = ? AND memory_id = ? AND state = ?",
                (state.value, reason, ts(at), space_id, memory_id, NoteState.PENDING.value),
            )
            # The note itself, if it is still there as saved, is current from now on.
            conn.execute(
                "UPDATE memories SET status = 'current' "
                "WHERE space_id = ? AND id = ? AND status = 'pending'", (space_id, memory_id))

    def note_jobs(self, space_id: str, memory_ids: list[str]) -> dict[str, NoteJob]:
        if not memory_ids:
            return {}
        rows = self._db.conn().execute(
            "SELECT * FROM note_jobs WHERE space_id = ? AND memory_id IN "
            "(SELECT value FROM json_each(?))", (space_id, json.dumps(memory_ids))).fetchall()
        return {row["memory_id"]: _job(row) for row in rows}

    def pending_note_jobs(self) -> list[NoteJob]:
        rows = self._db.conn().execute(
            "SELECT * FROM note_jobs WHERE state = ? ORDER BY created_at, memory_id",
            (NoteState.PENDING.value,)).fetchall()
        return [_job(row) for row in rows]

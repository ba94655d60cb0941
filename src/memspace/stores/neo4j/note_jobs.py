"""NoteJobStore on Neo4j: one NoteJob node per note (no edges: it names its memory and space by
id, as a memory names its space). Statements live in cypher/note_jobs.py."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memspace.domain.notes import NoteJob, NoteState
from memspace.stores.neo4j.cypher import note_jobs as cypher
from memspace.stores.neo4j.kit import Neo4jKit
from memspace.stores.neo4j.records import utc
from memspace.stores.neo4j.schema import SchemaPart, ensure_schema


def _job(p: dict[str, Any]) -> NoteJob:
    observed, updated = p.get("observedAt"), p.get("updatedAt")
    return NoteJob(p["memoryId"], p["spaceId"], NoteState(p["state"]),
                   utc(p["createdAt"].to_native()), p.get("speaker"),
                   datetime.fromisoformat(observed) if observed else None, p.get("category"),
                   p.get("reason"), utc(updated.to_native()) if updated is not None else None)


SCHEMA = SchemaPart(cypher.NOTE_JOB_SCHEMA, ("NoteJob",), cypher.NOTE_JOB_PROPERTY_KEYS)


class Neo4jNoteJobs:
    """Note jobs in the graph's database, through the graph store's connection."""

    def __init__(self, kit: Neo4jKit) -> None:
        self._db = kit.db
        self._db.retrying(lambda: ensure_schema(self._db.driver, self._db.database, SCHEMA))

    def add_note_job(self, job: NoteJob) -> None:
        props = {"memoryId": job.memory_id, "spaceId": job.space_id, "state": job.state.value,
                 "createdAt": utc(job.created_at), "speaker": job.speaker,
                 "observedAt": job.observed_at.isoformat() if job.observed_at else None,
                 "category": job.category, "reason": job.reason,
                 "updatedAt": utc(job.updated_at) if job.updated_at else None}
        self._db.write(lambda tx: tx.run(cypher.NOTE_JOB_ADD, props=props).consume(),
                       f"memory '{job.memory_id}' already has a note job")

    def settle_note_job(self, space_id: str, memory_id: str, state: NoteState, reason: str | None,
                        at: datetime) -> None:
        self._db.write(lambda tx: tx.run(cypher.NOTE_JOB_SETTLE, id=memory_id, space=space_id,
                                         state=state.value, reason=reason, at=utc(at)).consume())

    def note_jobs(self, space_id: str, memory_ids: list[str]) -> dict[str, NoteJob]:
        if not memory_ids:
            return {}
        rows = self._db.read(cypher.NOTE_JOBS_OF, space=space_id, ids=memory_ids)
        return {r["job"]["memoryId"]: _job(r["job"]) for r in rows}

    def pending_note_jobs(self) -> list[NoteJob]:
        return [_job(r["job"]) for r in self._db.read(cypher.NOTE_JOBS_PENDING)]

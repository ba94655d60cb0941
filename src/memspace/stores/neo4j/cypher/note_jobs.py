"""Note jobs (stores/neo4j/note_jobs.py)."""

from __future__ import annotations

# -- note jobs (domain/notes.py): one NoteJob node per note saved before extraction -----------
NOTE_JOB_ADD = "CREATE (j:NoteJob) SET j = $props"
NOTE_JOB_SETTLE = """
MATCH (j:NoteJob {memoryId: $id, spaceId: $space, state: 'pending'})
SET j.state = $state, j.reason = $reason, j.updatedAt = $at
WITH j
OPTIONAL MATCH (m:Memory {id: $id}) WHERE m.spaceId = $space AND m.status = 'pending'
SET m.status = 'current'
"""
NOTE_JOBS_OF = """
MATCH (j:NoteJob {spaceId: $space}) WHERE j.memoryId IN $ids RETURN j {.*} AS job
"""
NOTE_JOBS_PENDING = """
MATCH (j:NoteJob {state: 'pending'}) RETURN j {.*} AS job ORDER BY j.createdAt, j.memoryId
"""
NOTE_JOB_SCHEMA = (
    "CREATE CONSTRAINT note_job_memory IF NOT EXISTS FOR (j:NoteJob) REQUIRE j.memoryId IS UNIQUE",
    "CREATE INDEX note_job_state IF NOT EXISTS FOR (j:NoteJob) ON (j.state)",
)
NOTE_JOB_PROPERTY_KEYS = ("memoryId", "spaceId", "state", "speaker", "observedAt", "reason",
                          "updatedAt")

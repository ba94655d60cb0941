"""NoteJobStore on every store: jobs of notes saved without waiting (domain/notes.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from memspace.domain.graph_port import GraphStore
from memspace.domain.notes import NoteJob, NoteState
from tests.support import builders as b

AT = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def test_a_note_job_reads_back_as_written_with_its_observation_offset(store: GraphStore) -> None:
    jobs = store.note_jobs
    space = b.space()
    store.directory.create_space(space)
    observed = datetime(2026, 2, 27, 17, 45, tzinfo=timezone(timedelta(hours=-5)))
    job = NoteJob("note-1-" + space.id, space.id, NoteState.PENDING, AT, "Priya", observed, "decision")
    jobs.add_note_job(job)

    assert jobs.note_jobs(space.id, [job.memory_id, "unknown"]) == {job.memory_id: job}
    assert jobs.note_jobs(space.id, [job.memory_id])[job.memory_id].observed_at.utcoffset() \
        == timedelta(hours=-5)  # type: ignore[union-attr]


def test_pending_jobs_come_oldest_first_and_settled_ones_leave_the_list(store: GraphStore) -> None:
    jobs = store.note_jobs
    space = b.space()
    store.directory.create_space(space)
    made = [NoteJob(f"note-{n}-{space.id}", space.id, NoteState.PENDING, AT + timedelta(seconds=n))
            for n in (2, 0, 1)]
    for job in made:
        jobs.add_note_job(job)

    def pending_here() -> list[str]:
        return [j.memory_id for j in jobs.pending_note_jobs() if j.space_id == space.id]

    assert pending_here() == [f"note-{n}-{space.id}" for n in (0, 1, 2)]
    jobs.settle_note_job(space.id, made[1].memory_id, NoteState.FLAT, "model timed out", AT)
    assert pending_here() == [f"note-{n}-{space.id}" for n in (1, 2)]
    settled = jobs.note_jobs(space.id, [made[1].memory_id])[made[1].memory_id]
    assert (settled.state, settled.reason, settled.updated_at) == (NoteState.FLAT, "model timed out", AT)


def test_a_settled_job_is_not_settled_again(store: GraphStore) -> None:
    jobs = store.note_jobs
    space = b.space()
    store.directory.create_space(space)
    job = NoteJob("note-x-" + space.id, space.id, NoteState.PENDING, AT)
    jobs.add_note_job(job)
    jobs.settle_note_job(space.id, job.memory_id, NoteState.EXTRACTED, "replaced by 2 facts", AT)
    jobs.settle_note_job(space.id, job.memory_id, NoteState.FLAT, "late loser", AT)
    settled = jobs.note_jobs(space.id, [job.memory_id])[job.memory_id]
    assert (settled.state, settled.reason) == (NoteState.EXTRACTED, "replaced by 2 facts")


def test_note_jobs_stay_in_their_space(store: GraphStore) -> None:
    jobs = store.note_jobs
    mine, other = b.space(), b.space()
    store.directory.create_space(mine)
    store.directory.create_space(other)
    job = NoteJob("note-y-" + mine.id, mine.id, NoteState.PENDING, AT)
    jobs.add_note_job(job)
    jobs.settle_note_job(other.id, job.memory_id, NoteState.FLAT, "wrong space", AT)
    assert jobs.note_jobs(other.id, [job.memory_id]) == {}
    assert jobs.note_jobs(mine.id, [job.memory_id])[job.memory_id].state is NoteState.PENDING

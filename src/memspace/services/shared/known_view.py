"""What a read at `knownAt` shows (docs/time.md): every memory of the answer as its record
stood then (domain/as_known.py), with the status marks read once per answer, and only the
links recorded by then."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import datetime

from memspace.domain.as_known import as_known, existed, relations_known
from memspace.domain.bitemporal import TimeSlice, utc
from memspace.domain.lifecycle import MemoryStatus, Revision
from memspace.domain.models import Memory, Neighbour, Relation
from memspace.domain.notes import NoteJob, NoteState
from memspace.domain.role_ports import LifecycleStore

# The note jobs of some memories of a space, by memory id (a store's `note_jobs`).
NoteJobs = Callable[[str, list[str]], dict[str, NoteJob]]

# Said where a read of the past leaves out a summary of today's space (its counts, newest
# memories, open conflicts, handoff): the record keeps no earlier copy of it.
TODAY_LEFT_OUT = "left out: it describes the space today, not what it held then"


def past_record(at: TimeSlice | None) -> bool:
    """Whether a read shows records as they stood at a past instant (a slice with knownAt)."""
    return at is not None and at.known_at is not None


class KnownView:
    """Rewrites what a read of the past answers; without `knownAt` everything passes as read
    (an `asOf` alone reads facts as the space knows them now). `marks` None: no status marks
    are kept (a unit test's store). `notes`: the jobs of notes saved without waiting (None
    without a model): a note's row says `current` once its facts were extracted, and the job
    dates that, so a note still waiting at the instant read shows `pending`."""

    def __init__(self, marks: LifecycleStore | None, notes: NoteJobs | None = None) -> None:
        self._marks = marks
        self._notes = notes

    def memories(self, space_id: str, memories: Iterable[Memory],
                 at: TimeSlice | None) -> list[Memory]:
        """Those that existed then, each as it stood then, in the order given."""
        listed = list(memories)
        if at is None or at.known_at is None:
            return listed
        when = at.known_at
        kept = [m for m in listed if existed(m, when)]
        marks = self._marks_of(space_id, {m.id for m in kept})
        shown = [as_known(m, when, marks.get(m.id, ())) for m in kept]
        waiting = self._waiting_at(space_id, [m.id for m in shown if m.active], when)
        return [replace(m, status=MemoryStatus.PENDING) if m.id in waiting else m for m in shown]

    def neighbours(self, space_id: str, near: Sequence[Neighbour],
                   at: TimeSlice | None) -> list[Neighbour]:
        """The neighbours that existed then (the store walked only links recorded by then),
        each as it stood then."""
        return self.together(space_id, (), near, at)[1]

    def together(self, space_id: str, memories: Iterable[Memory], near: Sequence[Neighbour],
                 at: TimeSlice | None) -> tuple[list[Memory], list[Neighbour]]:
        """`memories` and their neighbours as they stood then, the marks read once."""
        listed = list(memories)
        if at is None or at.known_at is None:
            return listed, list(near)
        every = {m.id: m for m in listed} | {n.memory.id: n.memory for n in near}
        shown = {m.id: m for m in self.memories(space_id, every.values(), at)}
        return ([shown[m.id] for m in listed if m.id in shown],
                [replace(n, memory=shown[n.memory.id]) for n in near if n.memory.id in shown])

    def relations(self, relations: Iterable[Relation], held: Iterable[str],
                  at: TimeSlice | None) -> list[Relation]:
        """The relations recorded by then between memories in `held`."""
        if at is None or at.known_at is None:
            return list(relations)
        return relations_known(relations, at.known_at, held)

    def _waiting_at(self, space_id: str, ids: list[str], when: datetime) -> set[str]:
        """The notes among `ids` whose facts were still waiting to be extracted at `when`."""
        if self._notes is None or not ids:
            return set()
        return {memory_id for memory_id, job in self._notes(space_id, ids).items()
                if utc(job.created_at) <= when and (job.state is NoteState.PENDING or (
                    job.updated_at is not None and utc(job.updated_at) > when))}

    def _marks_of(self, space_id: str, ids: set[str]) -> dict[str, list[Revision]]:
        by_memory: dict[str, list[Revision]] = {}
        if self._marks is None or not ids:
            return by_memory
        for mark in self._marks.marks_of(space_id, sorted(ids)):
            by_memory.setdefault(mark.memory_id, []).append(mark)
        return by_memory

"""Extracting the facts of notes saved with `wait: false`, in the background (docs/contract.md).

`queue` records a NoteJob beside a note MemoryService has just stored (an ordinary active memory,
so search finds it at once) and hands it to the ingestion worker. `process` then makes the one
model call an add with `wait: true` makes, against the same candidates (minus the note itself and
other notes still pending), and writes the facts in one transaction that also retires the note:
the first fact supersedes it and every fact DERIVES from it, so the note stays in the history.
The job ends `extracted`, or `flat` with the reason when the model fails or finds nothing (the
note then simply stays what it is: an ordinary memory).

Restarts: the note is written before its job, so a crash between them leaves a plain memory
(nothing lost); a job still `pending` is processed again on the next start; a crash after the
facts were written but before the job was settled is recognised by the DERIVES edge and only
settled.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from memspace.domain.embedder import Embedder
from memspace.domain.errors import Conflict, DuplicateContent, ExtractionFailed, MemspaceError
from memspace.domain.extraction import Candidate, Extraction, FactExtractor, model_name
from memspace.domain.graph_port import WithLedger, WithReads, WithRelations, WithSearch, WithWrites
from memspace.domain.models import (
    Memory,
    MemoryFilter,
    Provenance,
    ProvenanceKind,
    Relation,
    RelationType,
    Usage,
)
from memspace.domain.notes import NoteJob, NoteJobStore, NoteState
from memspace.domain.ports import (
    Clock,
    WriteBatch,
)
from memspace.domain.text import content_hash, counted
from memspace.services.memories.conflict_recorder import ConflictRecorder
from memspace.services.memories.reconcile import MAX_RETARGETS, Plan, drop_repeats, plan_extraction, retarget
from memspace.services.security import suspicious_reason
from memspace.services.shared import new_id

log = logging.getLogger(__name__)

CANDIDATES = 5  # as MemoryService: the 5 most similar active memories (docs/contract.md)
# Other pending notes are no candidates (they are about to be replaced); fetch enough to fill 5.
OVERFETCH = 10
FROM_NOTE = "split from the note saved without waiting"
MAX_CATEGORY_CHARS = 64


class NotePorts(WithReads, WithWrites, WithRelations, WithSearch, WithLedger, Protocol):
    """The store roles settling a pending note uses."""


class NoteExtraction:
    """Queues notes saved without waiting, and turns each into its facts when the worker asks."""

    def __init__(self, store: NotePorts, jobs: NoteJobStore, embedder: Embedder,
                 extractor: FactExtractor, clock: Clock,
                 conflicts: ConflictRecorder | None = None) -> None:
        self._conflicts = conflicts  # what a write leaves for the conflict queue
        self._store = store
        self._jobs = jobs
        self._embedder = embedder
        self._extractor = extractor
        self._clock = clock
        self._listeners: list[Callable[[NoteJob], None]] = []

    def on_queued(self, listener: Callable[[NoteJob], None]) -> None:
        """Call `listener` with each job queued (the worker's inbox)."""
        self._listeners.append(listener)

    def queue(self, note: Memory, speaker: str | None, observed_at: datetime | None,
              category: str | None) -> NoteJob:
        """Record the stored note as pending and hand it to the worker."""
        job = NoteJob(note.id, note.space_id, NoteState.PENDING, note.created_at, speaker,
                      observed_at, category)
        self._jobs.add_note_job(job)
        for listener in self._listeners:
            listener(job)
        return job

    def pending(self) -> list[NoteJob]:
        """Jobs a previous run left pending, oldest first."""
        return self._jobs.pending_note_jobs()

    def states(self, space_id: str, memory_ids: list[str]) -> dict[str, NoteJob]:
        return self._jobs.note_jobs(space_id, memory_ids)

    def process(self, job: NoteJob) -> NoteJob:
        """Extract one pending note's facts and settle its job; a settled job is returned as is.

        Raises:
            MemspaceError: the store failed; the job stays pending for the next start.
        """
        current = self._jobs.note_jobs(job.space_id, [job.memory_id]).get(job.memory_id)
        if current is None or current.state is not NoteState.PENDING:
            return current or job
        note = self._store.reads.get_memory(job.space_id, job.memory_id)
        if note is None or not note.active:
            if note is not None and self._already_replaced(note):
                return self._settle(current, NoteState.EXTRACTED, "replaced by its facts")
            return self._settle(current, NoteState.FLAT, "corrected or forgotten before its facts "
                                "were extracted; kept as it was")
        return self._extract(current, note)[0]

    def extract_saved(self, note: Memory) -> Usage | None:
        """Extract the facts of a memory saved flat (while no model was configured, or when its
        extraction failed) as if it had been saved without waiting now: a job is recorded and
        processed at once, in the caller's thread (the consolidation pass). None, and nothing
        done, when the memory has a job already or is no longer current. Returns what the model
        cost."""
        if not note.active or self._jobs.note_jobs(note.space_id, [note.id]):
            return None
        job = NoteJob(note.id, note.space_id, NoteState.PENDING, note.created_at, note.speaker,
                      note.observed_at, None)
        self._jobs.add_note_job(job)
        return self._extract(job, note)[1]

    def _extract(self, current: NoteJob, note: Memory) -> tuple[NoteJob, Usage]:
        candidates = self._candidates(note)
        offered = [Candidate(i, m.content, m.category, m.created_at) for i, m in enumerate(candidates)]
        try:
            extraction = self._extractor.extract(note.content, offered, current.speaker,
                                                 current.observed_at)
        except ExtractionFailed as exc:
            self._record_usage(note.space_id, exc.usage)
            return (self._settle(current, NoteState.FLAT, f"fact extraction failed: {exc.message}"),
                    exc.usage)
        except MemspaceError:
            raise
        except Exception as exc:  # an extractor's bug must not leave the note pending forever
            log.exception("fact extractor failed unexpectedly on note %s", note.id)
            return self._settle(current, NoteState.FLAT, "fact extraction failed unexpectedly "
                                f"({type(exc).__name__}: {str(exc)[:200]})"), Usage()
        self._record_usage(note.space_id, extraction.usage)
        return self._apply(current, note, candidates, extraction), extraction.usage

    def _apply(self, job: NoteJob, note: Memory, candidates: list[Memory],
               extraction: Extraction) -> NoteJob:
        if not extraction.facts:
            dropped = len(extraction.dropped)
            why = ("the model found no facts" if not dropped else
                   "the one fact the model gave is not said by the note" if dropped == 1 else
                   f"none of the {dropped} facts the model gave is said by the note")
            return self._settle(job, NoteState.FLAT, f"{why}; kept as saved")
        [first, *more] = extraction.facts
        if not more and not first.relations and content_hash(first.text) == note.content_hash:
            return self._settle(job, NoteState.EXTRACTED, "one fact, exactly as saved")
        plan = plan_extraction(
            extraction, candidates,
            lambda text, category: self._fact(note, text, job.category or category),
            self._embedder.embed,
            # The note itself is about to be replaced: a fact that repeats it is written anew.
            lambda digest: None if digest == note.content_hash
            else self._store.reads.find_active_by_hash(note.space_id, digest),
            note.created_by,
            floor=self._embedder.calibration.update_floor,
        )
        if not plan.memories:
            return self._settle(job, NoteState.EXTRACTED, "every fact was already saved; kept the "
                                "note as saved")
        outcome = self._write(plan, note)
        if outcome == "note changed":
            return self._settle(job, NoteState.FLAT, "corrected or forgotten while its facts were "
                                "extracted; kept as it was")
        if outcome == "nothing left":
            return self._settle(job, NoteState.EXTRACTED, "every fact was saved meanwhile; kept "
                                "the note as saved")
        if self._conflicts is not None:
            self._conflicts.written(note.space_id, plan, self._embedder.calibration.update_floor)
        superseded = len(plan.supersede)
        extra = f", superseding {counted(superseded, 'earlier memory', 'earlier memories')}" \
            if superseded else ""
        if extraction.dropped:
            extra += f"; dropped {len(extraction.dropped)} the note does not say"
        return self._settle(job, NoteState.EXTRACTED,
                            f"replaced by {counted(len(plan.memories), 'fact')}{extra}")

    def _write(self, plan: Plan, note: Memory) -> str:
        """Write the facts and retire the note in one transaction, re-aimed after lost races.

        The first fact supersedes the note and every fact DERIVES from it (the history link).
        Returns "written", "nothing left" (concurrent adds saved every fact first) or "note
        changed" (someone corrected or forgot the note meanwhile; nothing written).
        """
        at = plan.memories[-1].created_at
        for attempt in range(2 * MAX_RETARGETS + 1):
            if not plan.memories:
                return "nothing left"
            from_note = [Relation(m.id, note.id, RelationType.DERIVES, m.created_at, note.created_by,
                                  FROM_NOTE) for m in plan.memories]
            batch = WriteBatch(note.space_id, plan.memories, [*plan.relations, *from_note],
                               {**plan.supersede, note.id: plan.memories[0].id}, at=at)
            try:
                self._store.writes.write(batch)
                return "written"
            except DuplicateContent as exc:  # facts a concurrent add committed first
                if attempt == 2 * MAX_RETARGETS:
                    raise
                drop_repeats(plan, exc.existing, note.space_id, self._store.reads)
            except Conflict:
                now = self._store.reads.get_memory(note.space_id, note.id)
                if now is None or not now.active:
                    return "note changed"
                if attempt == 2 * MAX_RETARGETS or not retarget(plan, note.space_id, self._store.reads):
                    raise
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _candidates(self, note: Memory) -> list[Memory]:
        [probe] = self._embedder.embed([note.content])
        nearest = [n.memory for n in self._store.search.vector_search(MemoryFilter(note.space_id), probe,
                                                               CANDIDATES + OVERFETCH)
                   if n.memory.id != note.id]
        pending = {memory_id for memory_id, job in
                   self._jobs.note_jobs(note.space_id, [m.id for m in nearest]).items()
                   if job.state is NoteState.PENDING}
        return [m for m in nearest if m.id not in pending][:CANDIDATES]

    def _already_replaced(self, note: Memory) -> bool:
        """The facts were written before a crash kept the job from being settled."""
        return any(r.type is RelationType.DERIVES and r.target_id == note.id and r.reason == FROM_NOTE
                   for r in self._store.relations.relations_of(note.space_id, note.id))

    def _fact(self, note: Memory, text: str, category: str) -> Memory:
        label = " ".join(category.split()).lower()[:MAX_CATEGORY_CHARS] or note.category
        return Memory(id=new_id(), space_id=note.space_id, content=text, category=label,
                      embedding=None, active=True, created_at=self._clock.now(),
                      created_by=note.created_by, content_hash=content_hash(text),
                      provenance=Provenance(ProvenanceKind.MODEL, f"extracted from note {note.id} "
                                            f"by {model_name(self._extractor)}"),
                      suspicious=suspicious_reason(text), expires_at=note.expires_at)

    def _record_usage(self, space_id: str, usage: Usage) -> None:
        if usage:
            self._store.ledger.record_usage(space_id, usage)

    def _settle(self, job: NoteJob, state: NoteState, reason: str) -> NoteJob:
        at = self._clock.now()
        self._jobs.settle_note_job(job.space_id, job.memory_id, state, reason, at)
        log.info("note %s: %s (%s)", job.memory_id, state.value, reason)
        return NoteJob(job.memory_id, job.space_id, state, job.created_at, job.speaker,
                       job.observed_at, job.category, reason, at)

"""Notes saved before their facts are extracted (docs/contract.md: add_memory with `wait: false`).

With a model configured, an add that does not wait stores its text at once as an ordinary
active memory (searchable immediately) and records a NoteJob `pending` beside it. The ingestion
worker later extracts the note's facts; they replace the note (which stays, inactive, as their
history) and the job becomes `extracted`, or the note stays as it is and the job becomes `flat`
with the reason. The job keeps what the extraction needs and the memory does not hold (speaker,
observation time, the category the caller chose), so a restart resumes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Protocol


class NoteState(StrEnum):
    PENDING = "pending"
    EXTRACTED = "extracted"
    FLAT = "flat"


@dataclass(frozen=True)
class NoteJob:
    memory_id: str  # the note: a memory of the space, active while pending
    space_id: str
    state: NoteState
    created_at: datetime
    speaker: str | None = None
    observed_at: datetime | None = None
    category: str | None = None  # the caller's category, which the facts then carry
    reason: str | None = None  # why the note stayed flat, or what the extraction did
    updated_at: datetime | None = None


class NoteJobStore(Protocol):
    """Where note jobs live: beside the graph, in the same database."""

    def add_note_job(self, job: NoteJob) -> None: ...

    def settle_note_job(self, space_id: str, memory_id: str, state: NoteState, reason: str | None,
                        at: datetime) -> None:
        """Record how a pending note ended (a job not pending is left as it is)."""
        ...

    def note_jobs(self, space_id: str, memory_ids: list[str]) -> dict[str, NoteJob]: ...

    def pending_note_jobs(self) -> list[NoteJob]:
        """Every pending job of every space, oldest first (the order they were saved in)."""
        ...

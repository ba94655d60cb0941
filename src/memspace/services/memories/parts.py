"""The memories package's services built from the store's roles (read with
startup/container.py, which hands this builder what it names)."""

from __future__ import annotations

from dataclasses import dataclass

from memspace.domain.embedder import Embedder
from memspace.domain.extraction import FactExtractor
from memspace.domain.graph_port import GraphStore, roles_for
from memspace.domain.notes import NoteJobStore
from memspace.domain.ports import Clock
from memspace.services.access import AccessService
from memspace.services.evidence import EvidenceService
from memspace.services.memories.conflict_recorder import ConflictRecorder
from memspace.services.memories.extraction_jobs import NoteExtraction, NotePorts
from memspace.services.memories.memories import MemoryService
from memspace.services.memories.memory_rules import AnswerForm, ColdNeighbours, Limits, MemoryPorts
from memspace.services.security import ContentGuard


@dataclass(frozen=True)
class MemoryParts:
    memories: MemoryService  # what the surfaces call: with the model, when there is one
    # The same use cases without a model: the demo loads through it, so it looks the same on
    # every machine, and a settled conflict's proposal is written through it as it was made.
    flat: MemoryService
    notes: NoteExtraction | None  # notes saved without waiting, extracted in the background
    recorder: ConflictRecorder  # what a write leaves for the conflict queue


def memories_parts(store: GraphStore, embedder: Embedder, access: AccessService, clock: Clock,
                   limits: Limits, *, model: FactExtractor | None, note_jobs: NoteJobStore | None,
                   evidence: EvidenceService, guard: ContentGuard, cold: ColdNeighbours | None,
                   answer_form: AnswerForm) -> MemoryParts:
    """`model`: the extractor as requests call it (None: adds are flat); `note_jobs`: where notes
    saved without waiting are kept (None: nothing is deferred); `cold`: where a write reads a
    space this process does not hold; `answer_form`: an add's answer as the idempotency
    ledger stores it (the wire's shape, handed in from above)."""
    recorder = ConflictRecorder(store.conflicts, clock)
    notes = (NoteExtraction(roles_for(NotePorts, store), note_jobs, embedder, model, clock,
                            recorder) if note_jobs is not None and model is not None else None)
    memories = MemoryService(roles_for(MemoryPorts, store), embedder, access, clock, limits, model,
                             notes=notes, evidence=evidence, guard=guard, cold=cold,
                             conflicts=recorder, answer_form=answer_form, marks=store.marks)
    flat = MemoryService(roles_for(MemoryPorts, store), embedder, access, clock, limits,
                         evidence=evidence, guard=guard, cold=cold, conflicts=recorder,
                         answer_form=answer_form)
    return MemoryParts(memories, flat, notes, recorder)

"""Saving, correcting, forgetting and reading memories (docs/contract.md): the one service the
surfaces call, composed (not inherited) of small collaborators, each given the roles it uses:

- `MemoryWrites` (memory_writes.py): submit, add_many, correct, patch, forget; below an add's
  idempotency check, `AddPipeline` (adding.py), which versions or refuses a flat add through
  `VersionedAdds` (versioned_adds.py);
- `CategoryRenames` (versioned_adds.py): rename_category;
- `MemoryReads` (memory_reads.py): get, get_many, list, changes, preview_correction;
- what they share (memory_parts.py): `NewMemories`, `NearestMemories`, `WriteScreen`,
  `CorrectionCheck`; the plain checks are in memory_rules.py.

The public methods are the collaborators' own, bound on the instance, so a surface calls
`memories.correct(...)` as before and a wrapper (metrics.meter_services) can replace one."""

from __future__ import annotations

from datetime import datetime

from memspace.domain.chunks import ChunkSource
from memspace.domain.embedder import Embedder
from memspace.domain.extraction import FactExtractor
from memspace.domain.models import Memory
from memspace.domain.ports import Clock
from memspace.domain.role_ports import LifecycleStore
from memspace.services.access import AccessService, Principal
from memspace.services.evidence import EvidenceService
from memspace.services.memories.add_types import AddManyResult
from memspace.services.memories.adding import AddMode, AddPipeline, AddRequest, AddResult, AddStatus
from memspace.services.memories.conflict_recorder import ConflictRecorder
from memspace.services.memories.extraction_jobs import NoteExtraction
from memspace.services.memories.memory_parts import CorrectionCheck, NearestMemories, NewMemories, WriteScreen
from memspace.services.memories.memory_reads import MemoryReads
from memspace.services.memories.memory_rules import AnswerForm, ColdNeighbours, Limits, MemoryPorts
from memspace.services.memories.memory_writes import MemoryWrites
from memspace.services.memories.versioned_adds import CategoryRenames, VersionedAdds
from memspace.services.security import ContentGuard
from memspace.services.shared import memory_ids, short_ids

__all__ = ["AddManyResult", "AddMode", "AddRequest", "AddResult", "AddStatus", "Limits",
           "MemoryService"]


class MemoryService:
    """Every memory use case. Without an `extractor` adds are flat; `notes` takes the adds
    that do not wait for it. `cold` is where a write reads the close memories of a space this
    process does not hold (docs/scaling.md); `conflicts` what a write leaves for the conflict
    queue (services/memories/conflict_recorder.py)."""

    def __init__(
        self,
        store: MemoryPorts,
        embedder: Embedder,
        access: AccessService,
        clock: Clock,
        limits: Limits | None = None,
        extractor: FactExtractor | None = None,
        notes: NoteExtraction | None = None,
        evidence: EvidenceService | None = None,
        guard: ContentGuard | None = None,
        cold: ColdNeighbours | None = None,
        conflicts: ConflictRecorder | None = None,
        *,
        answer_form: AnswerForm,
        marks: LifecycleStore | None = None,
    ) -> None:
        limits = limits or Limits()
        made = NewMemories(clock, embedder, extractor)
        close = NearestMemories(store.search, cold)
        correction = CorrectionCheck(access, store.reads, limits)
        pipeline = AddPipeline(store, embedder, clock, made, close,
                               VersionedAdds(store, embedder, close, conflicts), limits,
                               extractor, notes, conflicts)
        writes = MemoryWrites(store, embedder, access, clock, limits, pipeline, made, close,
                              WriteScreen(guard, evidence), correction, answer_form=answer_form)
        reads = MemoryReads(store, access, clock, limits, correction, notes, marks)
        self.submit = writes.submit
        self.add_many = writes.add_many
        self.correct = writes.correct
        self.patch = writes.patch
        self.forget = writes.forget
        self.rename_category = CategoryRenames(store, embedder, access, clock).rename_category
        self.get = reads.get
        self.get_many = reads.get_many
        self.list = reads.list
        self.changes = reads.changes
        self.preview_correction = reads.preview_correction
        # A memory as a save would make it, unwritten (the seeder's proposals, tests).
        self.new_memory = made.new
        self._reads = store.reads

    def short_id(self, memory: Memory) -> str:
        """The short id an answer names `memory` by, among its space's memories (one read; the
        caller already read the memory through the space's access)."""
        return short_ids(memory_ids(self._reads, memory.space_id), [memory.id])[memory.id]

    def add(
        self,
        principal: Principal,
        content: str | None,
        space: str | None = None,
        category: str | None = None,
        speaker: str | None = None,
        observed_at: datetime | None = None,
        idempotency_key: str | None = None,
        *,
        source: ChunkSource | None = None,
        wait: bool = True,
    ) -> AddResult:
        """`submit` with the request spelled out as arguments (scripts, tests, the seeder)."""
        return self.submit(principal, AddRequest(content, space, category, speaker, observed_at,
                                                 idempotency_key, source), wait=wait)

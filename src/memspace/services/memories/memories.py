"""Saving, correcting, forgetting and reading memories (docs/contract.md): the one service the
surfaces call, composed (not inherited) of small collaborators, each given the roles it uses:

- `MemoryWrites` (memory_writes.py): submit, add_many, correct, patch, forget; below an add's
  idempotency check, `AddPipeline` (adding.py), which versions or refuses a flat add through
  `VersionedAdds` (versioned_adds.py);
- `CategoryRenames` (versioned_adds.py): rename_category;
- `MemoryReads` (memory_reads.py): get, get_many, list, changes, preview_correction;
- what they share (memory_parts.py): `NewMemories`, `NearestMemories`, `WriteScreen`,
  `CorrectionCheck`; the plain checks are in memory_rules.py.

Each public method is the class's own, with its full signature, and hands the call to the
collaborator that does it: what a surface may call is read here, what it does there. A
wrapper (startup/metrics.py `meter_services`) may still replace one on the instance."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memspace.domain.chunks import ChunkSource
from memspace.domain.embedder import Embedder
from memspace.domain.evidence import Citation
from memspace.domain.extraction import FactExtractor
from memspace.domain.models import Memory, Provenance
from memspace.domain.ports import Change, Clock
from memspace.domain.role_ports import LifecycleStore
from memspace.services.access import AccessService, Principal
from memspace.services.evidence import EvidenceService
from memspace.services.memories.add_types import AddManyResult
from memspace.services.memories.adding import AddMode, AddPipeline, AddRequest, AddResult, AddStatus
from memspace.services.memories.conflict_recorder import ConflictRecorder
from memspace.services.memories.extraction_jobs import NoteExtraction
from memspace.services.memories.memory_parts import CorrectionCheck, NearestMemories, NewMemories, WriteScreen
from memspace.services.memories.memory_reads import CorrectionPreview, MemoryDetail, MemoryReads
from memspace.services.memories.memory_rules import AnswerForm, ColdNeighbours, Limits, MemoryPorts
from memspace.services.memories.memory_writes import MemoryWrites
from memspace.services.memories.versioned_adds import CategoryRenames, VersionedAdds
from memspace.services.security import ContentGuard
from memspace.services.shared import Page, memory_ids, short_ids

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
        self._writes = writes
        self._renames = CategoryRenames(store, embedder, access, clock)
        self._reads = reads
        self._made = made
        self._store_reads = store.reads

    # The write side (memory_writes.py, versioned_adds.py).

    def submit(self, principal: Principal, request: AddRequest, *, wait: bool = True,
               dry_run: bool = False) -> AddResult:
        """Save `request` (MemoryWrites.submit: extracted with a model, else flat)."""
        return self._writes.submit(principal, request, wait=wait, dry_run=dry_run)

    def add_many(self, principal: Principal, contents: Sequence[str], space: str | None = None,
                 category: str | None = None, batch_size: int = 512) -> AddManyResult:
        """Save many flat memories in batches, repeats skipped (MemoryWrites.add_many)."""
        return self._writes.add_many(principal, contents, space, category, batch_size)

    def correct(self, principal: Principal, memory_id: str, content: str | None,
                space: str | None = None, category: str | None = None,
                reason: str | None = None, expected_version: int | None = None,
                evidence: Sequence[str] | None = None, dry_run: bool = False,
                observed_at: datetime | None = None) -> AddResult:
        """A new memory that UPDATES the old one (MemoryWrites.correct)."""
        return self._writes.correct(principal, memory_id, content, space, category, reason,
                                    expected_version, evidence, dry_run, observed_at)

    def patch(self, principal: Principal, memory_id: str, append: str | None = None,
              prepend: str | None = None, replace_old: str | None = None,
              replace_new: str | None = None, space: str | None = None,
              expected_version: int | None = None, reason: str | None = None,
              observed_at: datetime | None = None) -> AddResult:
        """A correction made of an edit to the current text (MemoryWrites.patch)."""
        return self._writes.patch(principal, memory_id, append, prepend, replace_old,
                                  replace_new, space, expected_version, reason, observed_at)

    def forget(self, principal: Principal, memory_id: str | None = None,
               content: str | None = None, reason: str | None = None, space: str | None = None,
               expected_version: int | None = None) -> Memory:
        """Retire a memory, by id or by its exact content (MemoryWrites.forget)."""
        return self._writes.forget(principal, memory_id, content, reason, space, expected_version)

    def rename_category(self, principal: Principal, space: str | None, old: str | None,
                        new: str | None) -> tuple[str, list[Memory]]:
        """Every current memory of a category, versioned under its new name (CategoryRenames)."""
        return self._renames.rename_category(principal, space, old, new)

    def new_memory(self, space_id: str, text: str, category: str, actor: str,
                   source: ChunkSource | None = None, speaker: str | None = None,
                   observed_at: datetime | None = None, evidence: tuple[Citation, ...] = (),
                   provenance: Provenance | None = None) -> Memory:
        """A memory as a save would make it, unwritten (the seeder's proposals, tests)."""
        return self._made.new(space_id, text, category, actor, source, speaker, observed_at,
                              evidence, provenance)

    # The read side (memory_reads.py).

    def get(self, principal: Principal, memory_id: str, space: str | None = None,
            known_at: str | datetime | None = None) -> MemoryDetail:
        """One memory with its relations and neighbours (MemoryReads.get)."""
        return self._reads.get(principal, memory_id, space, known_at)

    def get_many(self, principal: Principal, memory_ids: Sequence[str], space: str | None = None,
                 known_at: str | datetime | None = None) -> tuple[str, list[Memory], list[str]]:
        """Several memories by id, and the ids not found (MemoryReads.get_many)."""
        return self._reads.get_many(principal, memory_ids, space, known_at)

    def changes(self, principal: Principal, since: str, space: str | None = None,
                category: str | None = None, limit: int = 100) -> tuple[str, Page[Change]]:
        """What changed since a time or a cursor (MemoryReads.changes)."""
        return self._reads.changes(principal, since, space, category, limit)

    def preview_correction(self, principal: Principal, memory_id: str, content: str | None,
                           space: str | None = None, category: str | None = None,
                           reason: str | None = None) -> CorrectionPreview:
        """What `correct` would write, unwritten (MemoryReads.preview_correction)."""
        return self._reads.preview_correction(principal, memory_id, content, space, category,
                                              reason)

    def list(self, principal: Principal, space: str | None = None, category: str | None = None,
             include_inactive: bool = False, limit: int = 20, cursor: str | None = None,
             types: Sequence[str] | None = None, statuses: Sequence[str] | None = None,
             as_of: str | datetime | None = None,
             known_at: str | datetime | None = None) -> tuple[str, Page[Memory]]:
        """A space's memories, newest first, a page at a time (MemoryReads.list)."""
        return self._reads.list(principal, space, category, include_inactive, limit, cursor,
                                types, statuses, as_of, known_at)

    def short_id(self, memory: Memory) -> str:
        """The short id an answer names `memory` by, among its space's memories (one read; the
        caller already read the memory through the space's access)."""
        return short_ids(memory_ids(self._store_reads, memory.space_id), [memory.id])[memory.id]

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

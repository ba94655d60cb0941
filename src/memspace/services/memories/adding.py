"""The add pipeline behind MemoryService.submit (docs/contract.md): an exact repeat is a duplicate;
without a model (or when it fails) the content is one flat memory; with one, it is split into
facts reconciled with the most similar memories of the space, or stored at once as a pending
note whose facts the worker extracts later."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace

from memspace.domain.embedder import Embedder
from memspace.domain.errors import Conflict, DuplicateContent, ExtractionFailed, MemspaceError
from memspace.domain.extraction import Candidate, FactExtractor
from memspace.domain.lifecycle import MemoryStatus
from memspace.domain.models import Memory, Space, Usage
from memspace.domain.ports import Clock, WriteBatch
from memspace.domain.text import content_hash
from memspace.services.access import Principal
from memspace.services.memories.add_types import AddMode, AddRequest, AddResult, AddStatus, Clash
from memspace.services.memories.conflict_recorder import ConflictRecorder
from memspace.services.memories.conversation import context_of, preceding_turn, reads_with
from memspace.services.memories.extraction_jobs import NoteExtraction
from memspace.services.memories.memory_parts import NearestMemories, NewMemories
from memspace.services.memories.memory_rules import CANDIDATES, Limits, WritePorts, category_of
from memspace.services.memories.reconcile import MAX_RETARGETS, drop_repeats, plan_extraction, retarget
from memspace.services.memories.similar import (
    Nearest,
    known_nearest,
    similar_on_save,
    start_similar,
)
from memspace.services.memories.versioned_adds import VersionedAdds

__all__ = ["AddMode", "AddPipeline", "AddRequest", "AddResult", "AddStatus", "Clash"]

log = logging.getLogger(__name__)


NO_USAGE = Usage()


class AddPipeline:
    """The steps of one validated add, below the idempotency check (memory_writes.py). Without
    an `extractor` every add is flat; `notes` takes the adds that do not wait for the model."""

    def __init__(self, store: WritePorts, embedder: Embedder, clock: Clock, made: NewMemories,
                 close: NearestMemories, versioned: VersionedAdds, limits: Limits,
                 extractor: FactExtractor | None = None, notes: NoteExtraction | None = None,
                 conflicts: ConflictRecorder | None = None) -> None:
        self._store = store
        self._embedder = embedder
        self._clock = clock
        self._made = made
        self._close = close
        self._versioned = versioned
        self._limits = limits
        self._extractor = extractor
        self._notes = notes
        self._conflicts = conflicts

    @property
    def extracts(self) -> bool:
        """Whether adds are split into facts by a model."""
        return self._extractor is not None

    def _in_conversation(self, memory: Memory) -> Memory:
        """The memory to write: with the turn it continues, if any (services/memories/conversation.py),
        and its content's vector."""
        if memory.document_id is None:
            before = preceding_turn(self._store.reads, memory.space_id, memory.created_by,
                                    memory.created_at, memory.observed_at)
            if before is not None:
                context = (context_of(before) if self._limits.turns.context
                           and reads_with(memory, before) else None)
                memory = replace(memory, context=context, follows=before.id)
        return self._made.embedded(memory)

    def add(self, principal: Principal, space: Space, request: AddRequest,
            wait: bool = True) -> AddResult:
        """`request` is validated: its content is the text to store, its speaker normalised."""
        result = self._add_new(principal, space, request, wait)
        if result.status == "created" and request.source is None and result.mode == "extracted":
            # Facts the model related to nothing may still restate or contradict an older
            # memory: list the close ones for the caller to review (a flat memory's are looked
            # up beside its write, in _add_flat).
            related = {r.source_id for r in result.relations}
            result.similar = similar_on_save(
                self._store.search, space.id, [m for m in result.memories if m.id not in related],
                threshold=self._embedder.calibration.similar_on_save, nearest=self._close.nearest_active)
        if result.usage:
            self._store.ledger.record_usage(space.id, result.usage)
        return result

    def _add_new(self, principal: Principal, space: Space, request: AddRequest,
                 wait: bool) -> AddResult:
        text = request.content or ""
        existing = self._store.reads.find_active_by_hash(space.id, content_hash(text))
        if existing is not None:
            return AddResult("duplicate", "flat" if self._extractor is None else "extracted",
                             space.slug, [existing])
        if self._extractor is None or request.supersedes:
            return self._add_flat(principal, space, request, judged=request.source is None)
        if not wait and request.source is None and self._notes is not None:
            return self._add_pending(principal, space, request)
        return self._add_extracted(principal, space, request)

    def _add_flat(self, principal: Principal, space: Space, request: AddRequest,
                  warnings: Sequence[str] = (), spent: Usage = NO_USAGE,
                  status: MemoryStatus = MemoryStatus.CURRENT, judged: bool = False) -> AddResult:
        """One memory as given. `judged` (an agent's add without a model, or one that names
        what it supersedes): a restatement or a contradiction of a close memory is versioned
        or refused instead (versioned_adds.py)."""
        memory = self._in_conversation(replace(
            self._made.of_request(principal, space, request, request.content or "",
                                 request.category),
            status=status))
        if request.supersedes:
            return self._versioned.superseding(space, request, memory)
        nearest: Nearest = self._close.nearest_active
        if judged:
            near = self._versioned.neighbours(space, memory)
            versioned = self._versioned.judged(space, request, memory, near)
            if versioned is not None:
                return versioned
            nearest = known_nearest(near)  # the same read answers both
        # Nothing relates a flat memory to the space, so the close ones are listed for the
        # caller to review (services/memories/similar.py), looked up while the write commits: each takes
        # ~10 ms at 100,000 memories, one on this process's CPU, the other waiting on the store.
        nearby = (start_similar(self._store.search, space.id, memory,
                                 self._embedder.calibration.similar_on_save, nearest)
                  if request.source is None else None)
        try:
            self._store.writes.write(WriteBatch(space.id, [memory], at=memory.created_at,
                                         source=request.source))
        except DuplicateContent as exc:  # the same text committed first by a concurrent add
            known = self._store.reads.get_memory(space.id, exc.existing[memory.content_hash])
            if known is None:
                raise
            return AddResult("duplicate", "flat", space.slug, [known], warnings=list(warnings),
                             usage=spent)
        return AddResult("created", "flat", space.slug, [memory], warnings=list(warnings),
                         usage=spent, similar=nearby() if nearby is not None else [])

    def _add_pending(self, principal: Principal, space: Space, request: AddRequest) -> AddResult:
        """The note stored as it is (searchable now) and queued for background extraction."""
        assert self._notes is not None
        result = self._add_flat(principal, space, request, status=MemoryStatus.PENDING)
        if result.status == "created":
            self._notes.queue(result.memories[0], request.speaker, request.observed_at,
                              category_of(request.category) if request.category else None)
            result.mode = "pending"
        return result

    def _add_extracted(self, principal: Principal, space: Space, request: AddRequest) -> AddResult:
        assert self._extractor is not None
        text = request.content or ""
        [probe] = self._embedder.embed([text])
        nearest = self._close.nearest(space.id, probe, CANDIDATES)  # a cold space: its indexes
        candidates = [n.memory for n in nearest]
        offered = [Candidate(i, m.content, m.category, m.created_at) for i, m in enumerate(candidates)]
        try:
            extraction = self._extractor.extract(text, offered, request.speaker,
                                                 request.observed_at)
        except ExtractionFailed as exc:
            return self._add_flat(
                principal, space, request,
                [f"stored as one flat memory because fact extraction failed: {exc.message}"],
                exc.usage)
        except MemspaceError:
            raise
        except Exception as exc:  # an extractor's bug must not lose the note: flat, and say so
            log.exception("fact extractor failed unexpectedly; storing the content flat")
            return self._add_flat(
                principal, space, request,
                [f"stored as one flat memory because fact extraction failed unexpectedly "
                 f"({type(exc).__name__}: {str(exc)[:200]}); the server log has the details"])
        spent = extraction.usage
        # Facts the content does not say (llm/grounding.py) were dropped: each is reported.
        dropped = [d.warning for d in extraction.dropped]
        if not extraction.facts:
            why = ("no fact the model gave is said by the content; stored the content as given"
                   if dropped else "the model found no facts; stored the content as given")
            return self._add_flat(principal, space, request, [*dropped, why], spent)
        plan = plan_extraction(
            extraction, candidates,
            lambda fact, cat: self._made.of_request(principal, space, request, fact,
                                                  request.category or cat, extracted=True),
            self._embedder.embed,
            lambda digest: self._store.reads.find_active_by_hash(space.id, digest),
            principal.actor,
            floor=self._embedder.calibration.update_floor,
        )
        plan.warnings[:0] = dropped
        at = plan.memories[-1].created_at if plan.memories else self._clock.now()
        for attempt in range(2 * MAX_RETARGETS + 1):
            if not plan.memories:
                return AddResult("duplicate", "extracted", space.slug, plan.known,
                                 warnings=plan.warnings, usage=spent)
            try:
                self._store.writes.write(plan.batch(space.id, at, request.source))
                break
            except DuplicateContent as exc:  # facts a concurrent add committed first
                if attempt == 2 * MAX_RETARGETS:
                    raise
                drop_repeats(plan, exc.existing, space.id, self._store.reads)
            except Conflict:
                if attempt == 2 * MAX_RETARGETS or not retarget(plan, space.id, self._store.reads):
                    raise
        if self._conflicts is not None:
            self._conflicts.written(space.id, plan, self._embedder.calibration.update_floor)
        return AddResult("created", "extracted", space.slug, plan.memories, plan.relations,
                         list(plan.supersede), plan.warnings, spent)

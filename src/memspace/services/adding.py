"""The add pipeline behind MemoryService.submit (docs/contract.md): an exact repeat is a duplicate;
without a model (or when it fails) the content is one flat memory; with one, it is split into
facts reconciled with the most similar memories of the space, or stored at once as a pending
note whose facts the worker extracts later."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace

from memspace.domain.errors import Conflict, DuplicateContent, ExtractionFailed, MemspaceError
from memspace.domain.extraction import Candidate, model_name
from memspace.domain.lifecycle import MemoryStatus, MemoryType
from memspace.domain.models import Memory, MemoryFilter, Provenance, ProvenanceKind, Space, Usage
from memspace.domain.ports import WriteBatch
from memspace.domain.text import content_hash
from memspace.services.access import Principal
from memspace.services.add_types import AddMode, AddRequest, AddResult, AddStatus, Clash
from memspace.services.conversation import context_of, preceding_turn, reads_with
from memspace.services.memory_rules import CANDIDATES
from memspace.services.reconcile import MAX_RETARGETS, drop_repeats, plan_extraction, retarget
from memspace.services.similar import similar_beside, similar_on_save
from memspace.services.versioning import VersionedAdds

__all__ = ["AddMode", "AddPipeline", "AddRequest", "AddResult", "AddStatus", "Clash"]

log = logging.getLogger(__name__)


NO_USAGE = Usage()


class AddPipeline(VersionedAdds):
    """The steps of one validated add, below the idempotency check (memory_writes.py)."""

    def _in_conversation(self, memory: Memory) -> Memory:
        """The memory to write: with the turn it continues, if any (services/conversation.py),
        and its content's vector."""
        if memory.document_id is None:
            before = preceding_turn(self._store, memory.space_id, memory.created_by,
                                    memory.created_at, memory.observed_at)
            if before is not None:
                context = (context_of(before) if self._limits.turns.context
                           and reads_with(memory, before) else None)
                memory = replace(memory, context=context, follows=before.id)
        [vector] = self._embedder.embed([memory.content])
        return replace(memory, embedding=vector)

    def _memory_for(self, principal: Principal, space: Space, request: AddRequest, text: str,
                    category: str | None, extracted: bool = False,
                    kind: MemoryType | None = None) -> Memory:
        """A new memory of this add: `text` is the content or one fact extracted from it
        (`extracted`: its provenance is then the model, which read the add's text), `kind` the
        type the model gave that fact (the caller's type wins)."""
        provenance = self._provenance(principal, request.source)
        if extracted:
            provenance = Provenance(ProvenanceKind.MODEL, f"extracted by {model_name(self._extractor)}"
                                    f" from a note by {provenance.kind} {provenance.source}")
        memory = self._new_memory(space.id, text, self._category(category), principal.actor,
                                  request.source, request.speaker, request.observed_at,
                                  evidence=request.citations, provenance=provenance)
        return replace(memory, type=self._type(request.memory_type) or kind or MemoryType.NOTE,
                       importance=self._importance(request.importance),
                       canonical=request.canonical)

    def _add(self, principal: Principal, space: Space, request: AddRequest,
             wait: bool = True) -> AddResult:
        """`request` is validated: its content is the text to store, its speaker normalised."""
        result = self._add_new(principal, space, request, wait)
        if result.status == "created" and request.source is None and result.mode == "extracted":
            # Facts the model related to nothing may still restate or contradict an older
            # memory: list the close ones for the caller to review (a flat memory's are looked
            # up beside its write, in _add_flat).
            related = {r.source_id for r in result.relations}
            result.similar = similar_on_save(
                self._store, space.id, [m for m in result.memories if m.id not in related],
                threshold=self._embedder.calibration.similar_on_save, nearest=self._nearest_active)
        if result.usage:
            self._store.record_usage(space.id, result.usage)
        return result

    def _add_new(self, principal: Principal, space: Space, request: AddRequest,
                 wait: bool) -> AddResult:
        text = request.content or ""
        existing = self._store.find_active_by_hash(space.id, content_hash(text))
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
        or refused instead (versioning.py)."""
        memory = self._in_conversation(replace(
            self._memory_for(principal, space, request, request.content or "", request.category),
            status=status))
        if request.supersedes:
            return self._add_superseding(space, request, memory)
        if judged:
            versioned = self._judged(space, request, memory)
            if versioned is not None:
                return versioned
        # Nothing relates a flat memory to the space, so the close ones are listed for the
        # caller to review (services/similar.py), looked up while the write commits: each takes
        # ~10 ms at 100,000 memories, one on this process's CPU, the other waiting on the store.
        nearby = (similar_beside(self._store, space.id, memory,
                                 self._embedder.calibration.similar_on_save, self._nearest_active)
                  if request.source is None else None)
        try:
            self._store.write(WriteBatch(space.id, [memory], at=memory.created_at,
                                         source=request.source))
        except DuplicateContent as exc:  # the same text committed first by a concurrent add
            known = self._store.get_memory(space.id, exc.existing[memory.content_hash])
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
                              self._category(request.category) if request.category else None)
            result.mode = "pending"
        return result

    def _add_extracted(self, principal: Principal, space: Space, request: AddRequest) -> AddResult:
        assert self._extractor is not None
        text = request.content or ""
        [probe] = self._embedder.embed([text])
        nearest = self._store.vector_search(MemoryFilter(space.id), probe, CANDIDATES)
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
            lambda fact, cat: self._memory_for(principal, space, request, fact,
                                               request.category or cat, extracted=True),
            self._embedder.embed,
            lambda digest: self._store.find_active_by_hash(space.id, digest),
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
                self._store.write(plan.batch(space.id, at, request.source))
                break
            except DuplicateContent as exc:  # facts a concurrent add committed first
                if attempt == 2 * MAX_RETARGETS:
                    raise
                drop_repeats(plan, exc.existing, space.id, self._store)
            except Conflict:
                if attempt == 2 * MAX_RETARGETS or not retarget(plan, space.id, self._store):
                    raise
        if self._conflicts is not None:
            self._conflicts.written(space.id, plan, self._embedder.calibration.update_floor)
        return AddResult("created", "extracted", space.slug, plan.memories, plan.relations,
                         list(plan.supersede), plan.warnings, spent)

"""The small collaborators MemoryService's sides share (docs/architecture.md), each given exactly
what it uses: `NewMemories` makes the memory a save or a correction creates, `NearestMemories`
finds the memories nearest a vector (held in memory or, cold, in the store's own indexes),
`WriteScreen` is the security and citation step before a write, and `CorrectionCheck` finds
the memory a correction replaces and checks its text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from memspace.domain.chunks import ChunkSource
from memspace.domain.embedder import Embedder
from memspace.domain.errors import Conflict, InvalidInput
from memspace.domain.evidence import Citation, overall, parse_citation
from memspace.domain.extraction import FactExtractor, model_name
from memspace.domain.lifecycle import MemoryType
from memspace.domain.models import Memory, MemoryFilter, Provenance, ProvenanceKind, ScoredMemory, Space
from memspace.domain.ports import Clock, MemoryReadStore, SearchStore, Vector
from memspace.domain.text import content_hash
from memspace.services.access import AccessService, Principal, SpaceAccess
from memspace.services.evidence import CheckedEvidence, EvidenceService
from memspace.services.memories.add_types import AddRequest
from memspace.services.memories.memory_rules import (
    ColdNeighbours,
    Limits,
    category_of,
    checked_content,
    importance_of,
    memory_in,
    provenance_of,
    type_of,
)
from memspace.services.security import ContentGuard, Screened, suspicious_reason
from memspace.services.shared import check_version, new_id


class NewMemories:
    """The memory a save or a correction creates: stamped by the clock, embedded by the
    model, its provenance the caller (or, for an extracted fact, the fact extractor)."""

    def __init__(self, clock: Clock, embedder: Embedder,
                 extractor: FactExtractor | None = None) -> None:
        self._clock = clock
        self._embedder = embedder
        self._extractor = extractor

    def new(self, space_id: str, text: str, category: str, actor: str,
            source: ChunkSource | None = None, speaker: str | None = None,
            observed_at: datetime | None = None, evidence: tuple[Citation, ...] = (),
            provenance: Provenance | None = None) -> Memory:
        """A current memory of `text`, not yet embedded."""
        now = self._clock.now()
        return Memory(
            id=new_id(), space_id=space_id, content=text, category=category, embedding=None,
            active=True, created_at=now, created_by=actor,
            content_hash=content_hash(text),
            document_id=source.document_id if source else None,
            origin=source.origin if source else None,
            speaker=speaker, observed_at=observed_at,
            evidence=evidence, verification=overall(evidence),
            verified_at=now if evidence else None, provenance=provenance,
            suspicious=suspicious_reason(text),
        )

    def of_request(self, principal: Principal, space: Space, request: AddRequest, text: str,
                   category: str | None, extracted: bool = False,
                   kind: MemoryType | None = None) -> Memory:
        """A new memory of this add: `text` is the content or one fact extracted from it
        (`extracted`: its provenance is then the model, which read the add's text), `kind` the
        type the model gave that fact (the caller's type wins)."""
        provenance = provenance_of(principal, request.source)
        if extracted:
            provenance = Provenance(ProvenanceKind.MODEL, f"extracted by {model_name(self._extractor)}"
                                    f" from a note by {provenance.kind} {provenance.source}")
        memory = self.new(space.id, text, category_of(category), principal.actor,
                          request.source, request.speaker, request.observed_at,
                          evidence=request.citations, provenance=provenance)
        return replace(memory, type=type_of(request.memory_type) or kind or MemoryType.NOTE,
                       importance=importance_of(request.importance),
                       canonical=request.canonical, expires_at=request.expiry)

    def embedded(self, memory: Memory) -> Memory:
        [vector] = self._embedder.embed([memory.content])
        return replace(memory, embedding=vector)


class NearestMemories:
    """The memories of a space nearest a vector: from the space held in memory or, where it is
    cold here, from the store's own indexes (docs/scaling.md: a write never loads a space)."""

    def __init__(self, store: SearchStore, cold: ColdNeighbours | None = None) -> None:
        self._store = store
        self._cold = cold

    def nearest_active(self, space_id: str, embedding: Vector, limit: int,
                       min_score: float) -> list[ScoredMemory]:
        """Active memories at or above `min_score` nearest `embedding` (similar on save)."""
        if self._cold is not None and not self._cold[0].holds(space_id):
            return [h for h in self.nearest(space_id, embedding, limit)
                    if h.score >= min_score and h.memory.active]
        return self._store.nearest_active(space_id, embedding, limit, min_score)

    def nearest(self, space_id: str, embedding: Vector, limit: int) -> list[ScoredMemory]:
        """The space's memories nearest `embedding`, by cosine."""
        if self._cold is not None and not self._cold[0].holds(space_id):
            return self._cold[1].hybrid_search(MemoryFilter(space_id), embedding, "",
                                               limit).by_vector
        return self._store.vector_search(MemoryFilter(space_id), embedding, limit)


class WriteScreen:
    """The steps before every write: the space's security policy (services/security/guard.py; None only
    in unit tests) and the citations under its policy (services/evidence/evidence.py; None where nothing
    registers repositories, and citations are then checked for syntax only)."""

    def __init__(self, guard: ContentGuard | None = None,
                 evidence: EvidenceService | None = None) -> None:
        self._guard = guard
        self._evidence = evidence

    def record(self, principal: Principal, action: str, space_id: str, target: str,
               detail: str) -> None:
        """An entry in the operator's audit log (a forget: what left the current set, and why)."""
        if self._guard is not None:
            self._guard.audit.record(principal.actor, action, space_id=space_id, target=target,
                                     detail=detail)

    def screen(self, space_id: str, fields: dict[str, str], principal: Principal,
               target: str | None = None, deferred: bool = False) -> Screened:
        """The fields as the space's security policy lets them be stored. Raises
        ContainsSecret under `refuse`. A redaction is audited as done to `target`, or, when
        `deferred`, by `stored` once the write has an id."""
        if self._guard is None:
            return Screened(fields)
        return self._guard.screen(space_id, fields, principal.actor, target=target,
                                  deferred=deferred)

    def stored(self, screened: Screened, target: str) -> None:
        """Audits a deferred redaction, naming the record it was stored in."""
        if self._guard is not None:
            self._guard.stored(screened, target)

    def evidence(self, space: Space, raw: Sequence[str] | None) -> CheckedEvidence:
        """The citations of a write under the space's policy."""
        if self._evidence is not None:
            return self._evidence.check(space, raw)
        return CheckedEvidence(tuple(parse_citation(r) for r in raw or ()))


class CorrectionCheck:
    """The memory a correction replaces and the correction's text, or the reason why not
    (for `correct` and for its preview)."""

    def __init__(self, access: AccessService, store: MemoryReadStore, limits: Limits) -> None:
        self._access = access
        self._store = store
        self._limits = limits

    def __call__(self, principal: Principal, memory_id: str, content: str | None,
                 space: str | None, expected_version: int | None = None,
                 ) -> tuple[SpaceAccess, Memory, str]:
        target = self._access.resolve(principal, space, write=True)
        old = memory_in(self._store, target.space.id, memory_id)
        check_version(self._store, target.space.id, old, expected_version)
        if not old.active:
            head = f" by '{old.invalidated_by}'" if old.invalidated_by else ""
            raise Conflict(
                f"memory '{old.id}' was already replaced{head} or forgotten; correct the current "
                "version instead (search_memory shows it)"
            )
        text = checked_content(content, self._limits, "the correction")
        if content_hash(text) == old.content_hash:
            raise InvalidInput("the correction says exactly what the memory already says")
        return target, old, text

"""What every memory use case shares (docs/contract.md): the limits, the validation of what a caller
passes, and the memory a save or a correction creates. The write side (memory_writes.py, with
the add pipeline in adding.py) and the read side (memory_reads.py) build on it; memories.py
composes them into the one MemoryService the surfaces call."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol

from memspace.domain.chunks import ChunkSource
from memspace.domain.embedder import Embedder
from memspace.domain.errors import Conflict, InvalidInput, NotFound
from memspace.domain.evidence import Citation, overall, parse_citation
from memspace.domain.extraction import FactExtractor
from memspace.domain.lifecycle import DEFAULT_IMPORTANCE, MAX_IMPORTANCE, MIN_IMPORTANCE, MemoryType
from memspace.domain.models import Memory, MemoryFilter, Provenance, ProvenanceKind, ScoredMemory, Space
from memspace.domain.ports import (
    Clock,
    ColdSearch,
    DocumentStore,
    MemoryReadStore,
    MemoryWriteStore,
    RelationStore,
    SearchStore,
    SpaceCache,
    Vector,
)
from memspace.domain.space_ports import LedgerStore
from memspace.domain.text import content_hash, visible
from memspace.services import versions
from memspace.services.access import AccessService, Principal, SpaceAccess
from memspace.services.add_types import AddResult
from memspace.services.clock import new_id
from memspace.services.conflict_records import ConflictRecorder
from memspace.services.conversation import TurnFeatures
from memspace.services.evidence import CheckedEvidence, EvidenceService
from memspace.services.extraction_jobs import NoteExtraction
from memspace.services.guard import ContentGuard, Screened
from memspace.services.instructions import suspicious_reason

# A store's cache and its cold path (bootstrap.build_search_paths), for writes that read.
ColdNeighbours = tuple[SpaceCache, ColdSearch]

DEFAULT_CATEGORY = "general"
# Existing memories shown to the model per add (docs/contract.md): the 5 most similar active ones.
CANDIDATES = 5
MAX_IDEMPOTENCY_KEY = 200
MAX_CATEGORY_CHARS = 64
MAX_SPEAKER_CHARS = 200


@dataclass(frozen=True)
class Limits:
    max_memory_chars: int = 8_000
    max_page_size: int = 100
    # Which conversation features are on (services/conversation.py); adds use `context`.
    turns: TurnFeatures = field(default_factory=TurnFeatures)


class MemoryPorts(MemoryReadStore, MemoryWriteStore, RelationStore, SearchStore, LedgerStore,
                  DocumentStore, Protocol):
    """The store roles the memory use cases call (both sides of MemoryService)."""


# An add's answer as the wire shows it (what the idempotency ledger stores for a replay).
AnswerForm = Callable[[AddResult], dict[str, Any]]


class MemoryCore:
    """The collaborators and the checks both sides of MemoryService use."""

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
    ) -> None:
        # How the idempotency ledger keeps an add's answer: its wire form (present/json.py's
        # add_json, handed in by bootstrap.py), so a replay is the same bytes as the first call.
        self._answer_form = answer_form
        # What a write leaves for the conflict queue (services/conflict_records.py).
        self._conflicts = conflicts
        # Where a write reads the close memories of a space this process does not hold
        # (docs/scaling.md): the store's own indexes, so a write never loads a space inline.
        self._cold = cold
        # Citations on writes, checked under the space's policy (services/evidence.py); None
        # where nothing registers repositories (citations are then checked for syntax only).
        self._evidence = evidence
        self._extractor = extractor
        # The security step before every write (services/guard.py); None only in unit tests.
        self._guard = guard
        # With a model, adds that do not wait store the note and leave its facts to the worker.
        self._notes = notes
        self._store = store
        self._embedder = embedder
        self._access = access
        self._clock = clock
        self._limits = limits or Limits()

    def _nearest_active(self, space_id: str, embedding: Vector, limit: int,
                        min_score: float) -> list[ScoredMemory]:
        """Active memories at or above `min_score` nearest `embedding` (similar on save), from
        memory or, where the space is cold here, from the store's own indexes."""
        if self._cold is not None and not self._cold[0].holds(space_id):
            return [h for h in self._close_memories(space_id, embedding, limit)
                    if h.score >= min_score and h.memory.active]
        return self._store.nearest_active(space_id, embedding, limit, min_score)

    def _close_memories(self, space_id: str, embedding: Vector, limit: int) -> list[ScoredMemory]:
        """The space's memories nearest `embedding`, by cosine: from the space held in memory,
        or, where it is cold here, from the store's own indexes (it is not loaded inline)."""
        if self._cold is not None and not self._cold[0].holds(space_id):
            return self._cold[1].hybrid_search(MemoryFilter(space_id), embedding, "",
                                               limit).by_vector
        return self._store.vector_search(MemoryFilter(space_id), embedding, limit)

    # -- validation -------------------------------------------------------------------------

    def _screen(self, space_id: str, fields: dict[str, str], principal: Principal) -> Screened:
        """The fields as the space's security policy lets them be stored (services/guard.py).
        Raises ContainsSecret under `refuse`."""
        if self._guard is None:
            return Screened(fields)
        return self._guard.screen(space_id, fields, principal.actor)

    def _content(self, content: str | None, what: str = "content") -> str:
        text = (content or "").strip()
        if not visible(text):
            raise InvalidInput(f"{what} is empty (or only invisible characters such as "
                               "zero-width spaces); pass the fact to remember as text")
        if len(text) > self._limits.max_memory_chars:
            raise InvalidInput(
                f"{what} is {len(text):,} characters; one memory holds at most "
                f"{self._limits.max_memory_chars:,} (MEMSPACE_MAX_MEMORY_CHARS). Split it into "
                "separate facts, or upload it as a document"
            )
        return text

    @staticmethod
    def _category(category: str | None) -> str:
        text = " ".join((category or "").split()).lower()
        if len(text) > MAX_CATEGORY_CHARS:
            raise InvalidInput(f"category is longer than {MAX_CATEGORY_CHARS} characters")
        return text or DEFAULT_CATEGORY

    def _new_memory(self, space_id: str, text: str, category: str, actor: str,
                    source: ChunkSource | None = None, speaker: str | None = None,
                    observed_at: datetime | None = None,
                    evidence: tuple[Citation, ...] = (),
                    provenance: Provenance | None = None) -> Memory:
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

    def _checked_evidence(self, space: Space, raw: Sequence[str] | None) -> CheckedEvidence:
        """The citations of a write under the space's policy (syntax only without the service)."""
        if self._evidence is not None:
            return self._evidence.check(space, raw)
        return CheckedEvidence(tuple(parse_citation(r) for r in raw or ()))

    @staticmethod
    def _provenance(principal: Principal, source: ChunkSource | None = None) -> Provenance:
        """Who or what a new memory comes from (issue 38): a document's chunk, a person (the
        CLI, a view), else the agent's key or OAuth client."""
        if source is not None:
            return Provenance(ProvenanceKind.DOCUMENT, f"document {source.document_id} chunk "
                              f"{source.chunk + 1} ({source.origin or 'whole'})")
        if principal.operator:
            return Provenance(ProvenanceKind.HUMAN, f"cli {principal.name}")
        if principal.via == "view":
            return Provenance(ProvenanceKind.HUMAN, f"view, key {principal.name}")
        if principal.via:
            return Provenance(ProvenanceKind.AGENT, f"{principal.via}, key {principal.name}")
        return Provenance(ProvenanceKind.AGENT, f"key {principal.name}")

    def _embedded(self, memory: Memory) -> Memory:
        [vector] = self._embedder.embed([memory.content])
        return replace(memory, embedding=vector)

    @staticmethod
    def _type(value: str | None) -> MemoryType | None:
        """A caller's type, or InvalidInput naming the twelve."""
        text = (value or "").strip().lower().replace("-", "_").replace(" ", "_")
        if not text:
            return None
        try:
            return MemoryType(text)
        except ValueError:
            names = ", ".join(t.value for t in MemoryType)
            raise InvalidInput(f"type '{value}' is not one of {names}; leave it out for a "
                               "note") from None

    @staticmethod
    def _importance(value: int | None) -> int:
        if value is None:
            return DEFAULT_IMPORTANCE
        if not MIN_IMPORTANCE <= value <= MAX_IMPORTANCE:
            raise InvalidInput(f"importance is {MIN_IMPORTANCE} (minor) to {MAX_IMPORTANCE} "
                               f"(must not be missed); {value} is outside it")
        return value

    @staticmethod
    def _speaker(speaker: str | None) -> str | None:
        name = " ".join((speaker or "").split())
        if len(name) > MAX_SPEAKER_CHARS:
            raise InvalidInput(f"speaker is longer than {MAX_SPEAKER_CHARS} characters; pass "
                               "the name of who said it")
        return name or None

    def _checked_correction(
        self, principal: Principal, memory_id: str, content: str | None, space: str | None,
        expected_version: int | None = None,
    ) -> tuple[SpaceAccess, Memory, str]:
        """The space, the memory to correct and the correction's text, or the reason why not."""
        target = self._access.resolve(principal, space, write=True)
        old = self._memory_in(target.space.id, memory_id)
        versions.check(self._store, target.space.id, old, expected_version)
        if not old.active:
            head = f" by '{old.invalidated_by}'" if old.invalidated_by else ""
            raise Conflict(
                f"memory '{old.id}' was already replaced{head} or forgotten; correct the current "
                "version instead (search_memory shows it)"
            )
        text = self._content(content, "the correction")
        if content_hash(text) == old.content_hash:
            raise InvalidInput("the correction says exactly what the memory already says")
        return target, old, text

    def _memory_in(self, space_id: str, memory_id: str) -> Memory:
        memory = self._store.get_memory(space_id, (memory_id or "").strip())
        if memory is None:
            raise NotFound(
                f"no memory '{memory_id}' in this space; use an id returned by search_memory or "
                "listMemories for the same space"
            )
        return memory

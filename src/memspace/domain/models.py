"""Domain records. Plain frozen dataclasses: no I/O, no framework types."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from memspace.domain.evidence import Citation

from memspace.domain.bitemporal import TimeSlice
from memspace.domain.lifecycle import DEFAULT_IMPORTANCE, MemoryStatus, MemoryType


class Access(enum.StrEnum):
    """What a grant lets a key do in one space."""

    READ = "read"
    READWRITE = "readwrite"

    @property
    def can_write(self) -> bool:
        return self is Access.READWRITE


class RelationType(enum.StrEnum):
    """Edges always point from the newer fact to an existing one (docs/contract.md)."""

    UPDATES = "UPDATES"
    EXTENDS = "EXTENDS"
    DERIVES = "DERIVES"


class DocumentStatus(enum.StrEnum):
    QUEUED = "queued"
    PROCESSING = "processing"
    DONE = "done"
    FAILED = "failed"


@dataclass(frozen=True)
class Space:
    id: str
    slug: str
    name: str
    description: str
    created_at: datetime
    last_active_at: datetime
    # What agents working in the space are told first (get_context's header):
    # `memspace space set S --instructions FILE`.
    instructions: str = ""


@dataclass(frozen=True)
class ApiKey:
    """A stored key: only its SHA-256 is kept; `prefix` is the part safe to show."""

    id: str
    name: str
    prefix: str
    sha256: str
    grants: dict[str, Access]  # space id -> access
    default_space_id: str | None
    active_space_id: str | None
    created_at: datetime
    revoked_at: datetime | None = None
    # The MCP toolsets listed to this key beyond the default list (domain/toolsets.py); None:
    # the server's choice applies.
    toolsets: tuple[str, ...] | None = None
    # The spaces `grants` names, as read with the key (never written; not part of equality): a
    # call that names its space then resolves it without another read of the store.
    spaces: tuple[Space, ...] = field(default=(), compare=False)


class ProvenanceKind(enum.StrEnum):
    """Where a memory came from (its provenance, docs/security.md): an agent's key or OAuth
    client, a person (the CLI or a view), a document's chunk, a model's extraction from a note,
    or an import."""

    AGENT = "agent"
    HUMAN = "human"
    DOCUMENT = "document"
    MODEL = "model"
    IMPORT = "import"


@dataclass(frozen=True)
class Provenance:
    kind: ProvenanceKind
    source: str  # who or what: "key ci-bot", "document 3f2… chunk 4 (page 2)", "note 9a1… by M"


@dataclass(frozen=True)
class Memory:
    id: str
    space_id: str
    content: str
    category: str
    embedding: Sequence[float] | None
    active: bool
    created_at: datetime
    created_by: str
    content_hash: str
    document_id: str | None = None
    origin: str | None = None  # where in its document: "page 3", "rows 2-14", "Setup > Install"
    invalidated_at: datetime | None = None
    invalidated_by: str | None = None
    forget_reason: str | None = None
    forgotten_by: str | None = None
    # Which change of the fact this is: 1 when first saved, a correction's memory carries the
    # next number after the one it replaces, forgetting bumps it (optimistic concurrency).
    version: int = 1
    # Who said it and when it was observed, as the caller gave them (docs/contract.md); observed_at
    # keeps the caller's own offset.
    speaker: str | None = None
    observed_at: datetime | None = None
    # The text this memory is read with, for search only (never shown as its content): the
    # turn before it when it continues a conversation (services/memories/conversation.py).
    context: str | None = None
    # The id of that turn before (the memory `context` was taken from): search lifts a memory
    # whose neighbour in the conversation matched too (services/search/ranking.py).
    follows: str | None = None
    # The citations the claim rests on (domain/evidence.py), how well they hold now and when
    # that was last checked.
    evidence: tuple[Citation, ...] = ()
    verification: str | None = None
    verified_at: datetime | None = None
    # Where it came from (None: written before provenance was recorded; see provenance_of).
    provenance: Provenance | None = None
    # Why its text reads like instructions aimed at an agent (services/security/instructions.py), or
    # None; flagged memories are shown with a warning, or quarantined by the space's policy.
    suspicious: str | None = None
    # What kind of note it is and where it stands (domain/lifecycle.py); `importance` 1-5 and
    # `canonical` weigh it in get_context. A superseded memory's replacement is invalidated_by.
    type: MemoryType = MemoryType.NOTE
    status: MemoryStatus = MemoryStatus.CURRENT
    importance: int = DEFAULT_IMPORTANCE
    canonical: bool = False
    # Valid time (domain/bitemporal.py): when the fact began to hold (None until stored: its
    # observedAt, else created_at; derived from those, so not part of equality) and the
    # valid_from of what superseded it (None: open).
    valid_from: datetime | None = field(default=None, compare=False)
    valid_to: datetime | None = None
    # When it leaves the current view as historical (the consolidation pass retires it then;
    # docs/lifecycle.md#expiry); None: kept until changed.
    expires_at: datetime | None = None

    @property
    def superseded_by(self) -> str | None:
        return self.invalidated_by if self.status is MemoryStatus.SUPERSEDED else None


def provenance_of(memory: Memory) -> Provenance:
    """The recorded provenance, or for a memory stored before it was recorded one inferred from
    what the memory does record: its document, else whether the CLI or a key wrote it."""
    if memory.provenance is not None:
        return memory.provenance
    if memory.document_id:
        return Provenance(ProvenanceKind.DOCUMENT, f"document {memory.document_id} (inferred)")
    if memory.created_by.startswith("cli:"):
        return Provenance(ProvenanceKind.HUMAN, f"{memory.created_by} (inferred)")
    return Provenance(ProvenanceKind.AGENT, f"key {memory.created_by} (inferred)")


@dataclass(frozen=True)
class Relation:
    """`source` is the newer memory, `target` the existing one it relates to."""

    source_id: str
    target_id: str
    type: RelationType
    created_at: datetime
    created_by: str
    reason: str | None = None


@dataclass(frozen=True)
class Document:
    id: str
    space_id: str
    title: str
    kind: str
    size_bytes: int
    sha256: str
    status: DocumentStatus
    created_at: datetime
    created_by: str
    fact_count: int = 0
    error: str | None = None
    chunks_total: int = 0
    chunks_done: int = 0  # chunks 0..chunks_done-1 went through the add pipeline
    # The API key that uploaded (or last retried) it: processing stops if it is revoked or loses
    # write access to the space. None for the local operator (CLI).
    uploaded_by_key: str | None = None


@dataclass(frozen=True)
class Handoff:
    """What one agent or session leaves for the next: where the work stands and what comes next."""

    id: str
    space_id: str
    agent: str
    topic: str
    summary: str
    done: tuple[str, ...]
    next_steps: tuple[str, ...]
    open_questions: tuple[str, ...]
    links: tuple[str, ...]
    created_at: datetime
    created_by: str
    evidence: tuple[str, ...] = ()  # citations, checked like a memory's (domain/evidence.py)


@dataclass(frozen=True)
class Neighbour:
    """A memory reached from `origin_id` by walking relations (either direction)."""

    origin_id: str
    memory: Memory
    hops: int
    via: RelationType
    direction: Literal["out", "in"]  # out: origin (or the hop before) points at it; in: it points back


@dataclass(frozen=True)
class ScoredMemory:
    memory: Memory
    score: float


def scores_by_id(hits: Sequence[Any]) -> dict[str, float]:
    """A list's scores by memory id (ScoredMemory, domain/heads.py ScoredHead)."""
    return {h.memory.id: h.score for h in hits}


@dataclass(frozen=True)
class HybridHits:
    """The two lists of a hybrid search (best first), and every memory of either scored by
    both: its cosine (memories without a vector have none) and its BM25 (0: none of the words)."""

    by_vector: list[ScoredMemory]
    by_text: list[ScoredMemory]
    cosines: dict[str, float]
    text_scores: dict[str, float]

    @classmethod
    def of(cls, by_vector: list[ScoredMemory], by_text: list[ScoredMemory],
           cosines: list[ScoredMemory], text_scores: list[ScoredMemory]) -> HybridHits:
        return cls(by_vector, by_text, scores_by_id(cosines), scores_by_id(text_scores))


@dataclass(frozen=True)
class MemoryFilter:
    """What a listing or a search is narrowed to, always inside one space."""

    space_id: str
    category: str | None = None
    include_inactive: bool = False
    # Only these types / statuses (empty: any). A status filter reads inactive memories too,
    # so `statuses=(superseded,)` lists what corrections replaced.
    types: tuple[MemoryType, ...] = ()
    statuses: tuple[MemoryStatus, ...] = ()
    # A point in valid and/or record time (domain/bitemporal.py); None: current memories only
    # (as `include_inactive` says). With one, every version it holds is read, active or not.
    at: TimeSlice | None = None


@dataclass(frozen=True)
class Usage:
    """What the fact-extraction model cost: calls and tokens. Adds up with `+`."""

    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.llm_calls + other.llm_calls, self.prompt_tokens + other.prompt_tokens,
                     self.completion_tokens + other.completion_tokens)

    def __bool__(self) -> bool:
        return bool(self.llm_calls or self.prompt_tokens or self.completion_tokens)


@dataclass(frozen=True)
class SpaceStats:
    active_memories: int
    inactive_memories: int
    relations: int
    documents: int
    # The space's version when counted: every write to its memories or relations bumps it, so
    # anything derived from them can be kept until it moves (services/search/context.py).
    version: int = 0

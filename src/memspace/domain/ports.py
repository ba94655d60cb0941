"""The narrow interfaces the services depend on. Stores, embedders and extractors implement them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from memspace.domain.chunks import ChunkSource
from memspace.domain.evidence import Citation
from memspace.domain.heads import HybridHeads
from memspace.domain.models import (
    Document,
    DocumentStatus,
    Handoff,
    HybridHits,
    Memory,
    MemoryFilter,
    Neighbour,
    Relation,
    ScoredMemory,
)

Vector = Sequence[float]


@dataclass(frozen=True)
class WriteBatch:
    """Everything one add or correction writes, applied atomically by the store.

    `supersede` lists memory ids to deactivate (`invalidated_by` = the given new id). The store
    raises `Conflict` and writes nothing when any of them is not an active memory of the space:
    that check inside the transaction is what keeps two concurrent corrections from leaving two
    active heads.

    `source`, for the add of a document's chunk, advances that document's `chunks_done` past the
    chunk and recounts its `fact_count` in the same transaction: after a crash the document says
    exactly which chunks were turned into memories, so a resumed run neither skips nor repeats one.
    """

    space_id: str
    memories: Sequence[Memory]
    relations: Sequence[Relation] = ()
    supersede: dict[str, str] = field(default_factory=dict)  # old id -> new id
    at: datetime | None = None
    source: ChunkSource | None = None


@dataclass(frozen=True)
class ChangeAfter:
    """Position in a space's change feed: changes are ordered by the write that made them
    (`stamp`, the space version it committed), then by memory id."""

    stamp: int
    id: str


@dataclass(frozen=True)
class Change:
    memory: Memory
    stamp: int


@dataclass(frozen=True)
class PageAfter:
    """Keyset position for newest-first listings: rows strictly older than this one."""

    created_at: datetime
    id: str


# The store port, by role (docs/architecture.md lists which service uses which).


@dataclass(frozen=True)
class AnswerReads:
    """What an answer reads after its ranking, read at once (MemoryReadStore.answer_reads):
    the memories asked for, their neighbourhoods, and the ids of the space that start with any
    of `heads` (up to the limit asked per head), for the answer's short ids."""

    memories: list[Memory]
    neighbours: list[Neighbour]
    heads: frozenset[str]
    sharing: list[str]


class MemoryReadStore(Protocol):
    """Memories of one space, read by id, content hash, writer, page or change."""

    def get_memory(self, space_id: str, memory_id: str) -> Memory | None: ...

    def get_memories(self, space_id: str, memory_ids: Sequence[str]) -> list[Memory]:
        """Those of `memory_ids` the space holds, as stored now, in any order (one read)."""

    def find_active_by_hash(self, space_id: str, content_hash: str) -> Memory | None: ...

    def ids_with_prefix(self, space_id: str, prefixes: Sequence[str], limit: int) -> list[str]:
        """The ids of the space's memories (active or not) that start with one of `prefixes`,
        at most `limit` per prefix: what a short id stands for (services/shared/id_prefixes.py)."""

    def answer_reads(self, space_id: str, memory_ids: Sequence[str], hops: int,
                     per_origin: int, head_chars: int, prefix_limit: int) -> AnswerReads | None:
        """`get_memories`, today's `RelationStore.neighbours` of those memories, and
        `ids_with_prefix` for the heads (first `head_chars` characters) of their ids and their
        neighbours' ids longer than that, as one read; None where the store answers the three
        as cheaply apart (an in-process database)."""

    def existing_hashes(self, space_id: str, hashes: Sequence[str]) -> set[str]:
        """Which of these content hashes belong to active memories of the space."""

    def latest_by_writer(self, space_id: str, created_by: str, since: datetime) -> Memory | None:
        """The newest memory `created_by` saved in the space at or after `since`, outside any
        document (active or not): the turn a new one may continue."""

    def list_memories(
        self, where: MemoryFilter, limit: int, after: PageAfter | None = None
    ) -> list[Memory]:
        """Newest first (created_at, then id, descending)."""

    def memories_of_document(self, space_id: str, document_id: str, limit: int) -> list[Memory]:
        """The memories a document's chunks produced, in the order they were written, whether
        still active or since superseded."""

    def list_changes(
        self, where: MemoryFilter, limit: int, after: ChangeAfter | None = None,
        since: datetime | None = None,
    ) -> list[Change]:
        """Memories created, superseded or forgotten, oldest change first, each at its latest
        change; `since` keeps those created or invalidated at or after it. Inactive memories
        are always included (their deactivation is the change)."""


class MemoryWriteStore(Protocol):
    """The two ways memories change: an atomic batch, and forgetting one."""

    def write(self, batch: WriteBatch) -> None:
        """Insert memories and relations and deactivate superseded ones, all or nothing.

        Raises:
            Conflict: a memory to supersede is missing from the space or already inactive.
        """

    def forget(self, space_id: str, memory_id: str, reason: str, by: str, at: datetime) -> Memory:
        """Deactivate one active memory with a reason. Raises NotFound / Conflict."""


class RelationStore(Protocol):
    """The edges between memories of one space."""

    def relations_of(self, space_id: str, memory_id: str) -> list[Relation]:
        """Every relation with this memory at either end."""

    def open_conflicts(self, space_id: str, limit: int) -> list[Relation]:
        """UPDATES edges whose two ends are both active (the chain has two heads), newest first."""

    def relations_among(self, space_id: str, memory_ids: Sequence[str]) -> list[Relation]:
        """Relations whose two ends are both among `memory_ids` (a subgraph's edges)."""

    def neighbours(
        self, space_id: str, memory_ids: Sequence[str], hops: int = 2, per_origin: int = 10,
        known_at: datetime | None = None,
    ) -> list[Neighbour]:
        """Memories up to `hops` relations away in either direction, nearest first, never
        leaving the space, each origin excluded from its own list. With `known_at`, only over
        relations recorded by then, to memories that existed then and are not forgotten."""


class SearchStore(Protocol):
    """Ranked matches of a space's memories."""

    # Whether its reads may run on another thread while a write commits (a shared in-memory
    # SQLite database fails such a read with "table is locked").
    concurrent_reads: bool

    def vector_search(self, where: MemoryFilter, embedding: Vector, limit: int) -> list[ScoredMemory]:
        """Exactly the `limit` most cosine-similar memories of the space, best first."""

    def text_search(self, where: MemoryFilter, text: str, limit: int) -> list[ScoredMemory]:
        """Full-text (BM25) match of any of the words, best first."""

    def hybrid_search(self, where: MemoryFilter, embedding: Vector, text: str,
                      limit: int) -> HybridHits:
        """`vector_search(where, embedding, limit)` and `text_search(where, text, limit)` at once
        (the memories of both lists are read together), each memory of either list also scored
        by the other."""

    def hybrid_heads(self, where: MemoryFilter, embedding: Vector, text: str,
                     limit: int) -> HybridHeads:
        """hybrid_search with only the head of each memory it did not read whole anyway."""

    def keyword_search(self, where: MemoryFilter, keyword: str, limit: int,
                       exact: bool = False) -> list[ScoredMemory]:
        """Match of every word, typo-tolerant (see domain.text.max_edits) unless `exact`,
        best first."""

    def nearest_active(self, space_id: str, embedding: Vector, limit: int,
                       min_score: float) -> list[ScoredMemory]:
        """Up to `limit` active memories of the space whose cosine with `embedding` is at least
        `min_score`, best first, ranked on the vectors this process holds now: a memory another
        writer committed a moment ago may be missing. For hints (similar-on-save), never for
        acting on the space; nothing is read when no memory is close enough."""


class HandoffStore(Protocol):
    """Notes agents leave for the next one."""

    def add_handoff(self, handoff: Handoff) -> None:
        """Raises NotFound when the space does not exist."""

    def latest_handoff(self, space_id: str, agent: str | None = None,
                       topic: str | None = None) -> Handoff | None:
        """The newest handoff of the space, narrowed to an agent and/or a topic (both matched
        case-insensitively)."""

    def list_handoffs(self, space_id: str, limit: int, after: PageAfter | None = None,
                      agent: str | None = None) -> list[Handoff]:
        """Newest first (created_at, then id, descending), optionally one agent's."""


class DocumentStore(Protocol):
    """Uploaded documents, their progress and the lease of the worker processing one."""

    def add_document(self, document: Document) -> None:
        """Raises Conflict when the space already holds a document with the same sha256."""

    def get_document(self, space_id: str, document_id: str) -> Document | None: ...

    def ids_with_prefix(self, space_id: str, prefixes: Sequence[str], limit: int) -> list[str]:
        """The ids of the space's documents that start with one of `prefixes`, at most `limit`
        per prefix: what a short id stands for (services/shared/id_prefixes.py)."""

    def list_documents(
        self, space_id: str, limit: int, after: PageAfter | None = None
    ) -> list[Document]: ...

    def update_document(
        self,
        space_id: str,
        document_id: str,
        status: DocumentStatus,
        error: str | None = None,
        chunks_total: int | None = None,
        chunks_done: int | None = None,
        uploaded_by_key: str | None = None,
    ) -> Document:
        """Set the status and its error (None clears it), and the progress counts and the
        uploading key that are given.

        Raises:
            NotFound: no such document in the space.
        """

    def find_document_by_sha256(self, space_id: str, sha256: str) -> Document | None: ...

    def documents_with_status(self, statuses: Sequence[DocumentStatus]) -> list[Document]:
        """Documents of every space in these states, oldest first (what a restart resumes)."""

    def claim_document(self, space_id: str, document_id: str, owner: str, now: datetime,
                       until: datetime) -> Document | None:
        """Take (or renew) the processing lease of a queued or processing document, atomically.

        Succeeds, marking it `processing` with the lease held by `owner` until `until`, when it
        is queued, or processing with no lease, a lease past `now`, or a lease `owner` holds.
        Returns None when another owner holds a live lease or the document is done/failed/gone:
        so two servers sharing a store never process one document at once.
        """

    def release_document(self, space_id: str, document_id: str, owner: str) -> None:
        """Drop `owner`'s lease (a clean stop), so the next start resumes the document at once."""


@dataclass(frozen=True)
class Checked:
    """One memory's citations as a verification left them, and the state they add up to."""

    memory_id: str
    evidence: tuple[Citation, ...]
    state: str


class Clock(Protocol):
    def now(self) -> datetime: ...

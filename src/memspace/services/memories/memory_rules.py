"""What every memory use case shares (docs/contract.md): the limits, the store roles they call and
the checks of what a caller passes, as plain functions. The collaborators that make, screen and
find memories are in memory_parts.py; memories.py composes the write side (memory_writes.py,
its add pipeline in adding.py) and the read side (memory_reads.py) into the one MemoryService
the surfaces call."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from memspace.domain.chunks import ChunkSource
from memspace.domain.durations import parse_duration
from memspace.domain.errors import InvalidInput, NotFound
from memspace.domain.graph_port import (
    WithDocuments,
    WithLedger,
    WithReads,
    WithRelations,
    WithSearch,
    WithWrites,
)
from memspace.domain.lifecycle import DEFAULT_IMPORTANCE, MAX_IMPORTANCE, MIN_IMPORTANCE, MemoryType
from memspace.domain.models import Memory, Provenance, ProvenanceKind
from memspace.domain.ports import MemoryReadStore
from memspace.domain.search_paths import ColdSearch, SpaceCache
from memspace.domain.text import visible
from memspace.services.access import Principal
from memspace.services.memories.add_types import AddResult
from memspace.services.memories.conversation import TurnFeatures
from memspace.services.shared import memory_id_of

# A store's cache and its cold path (startup/ports.py, build_search_paths), for writes that read.
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
    # Which conversation features are on (services/memories/conversation.py); adds use `context`.
    turns: TurnFeatures = field(default_factory=TurnFeatures)


class MemoryPorts(WithReads, WithWrites, WithRelations, WithSearch, WithLedger, WithDocuments, Protocol):
    """The store roles the memory use cases call (all of MemoryService's collaborators)."""


class WritePorts(WithReads, WithWrites, WithSearch, WithLedger, Protocol):
    """The store roles of the write side (an add, a correction, a rename, forgetting)."""


class ReadPorts(WithReads, WithRelations, WithDocuments, Protocol):
    """The store roles of the read side (one memory, listings, the change feed)."""


# An add's answer as the wire shows it (what the idempotency ledger stores for a replay).
AnswerForm = Callable[[AddResult], dict[str, Any]]


def checked_content(content: str | None, limits: Limits, what: str = "content") -> str:
    """The text to store, stripped; InvalidInput when it is empty or over the limit."""
    text = (content or "").strip()
    if not visible(text):
        raise InvalidInput(f"{what} is empty (or only invisible characters such as "
                           "zero-width spaces); pass the fact to remember as text")
    if len(text) > limits.max_memory_chars:
        raise InvalidInput(
            f"{what} is {len(text):,} characters; one memory holds at most "
            f"{limits.max_memory_chars:,} (MEMSPACE_MAX_MEMORY_CHARS). Split it into "
            "separate facts, or upload it as a document"
        )
    return text


def category_of(category: str | None) -> str:
    """A caller's category, normalised (spaces collapsed, lower case), or the default."""
    text = " ".join((category or "").split()).lower()
    if len(text) > MAX_CATEGORY_CHARS:
        raise InvalidInput(f"category is longer than {MAX_CATEGORY_CHARS} characters")
    return text or DEFAULT_CATEGORY


def type_of(value: str | None) -> MemoryType | None:
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


def importance_of(value: int | None) -> int:
    if value is None:
        return DEFAULT_IMPORTANCE
    if not MIN_IMPORTANCE <= value <= MAX_IMPORTANCE:
        raise InvalidInput(f"importance is {MIN_IMPORTANCE} (minor) to {MAX_IMPORTANCE} "
                           f"(must not be missed); {value} is outside it")
    return value


def speaker_of(speaker: str | None) -> str | None:
    name = " ".join((speaker or "").split())
    if len(name) > MAX_SPEAKER_CHARS:
        raise InvalidInput(f"speaker is longer than {MAX_SPEAKER_CHARS} characters; pass "
                           "the name of who said it")
    return name or None


def provenance_of(principal: Principal, source: ChunkSource | None = None) -> Provenance:
    """Who or what a new memory comes from (its provenance): a document's chunk, a person (the
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


def memory_in(store: MemoryReadStore, space_id: str, memory_id: str) -> Memory:
    """The memory of the space, by its short id or whole one, or NotFound (a foreign id
    answers like a missing one)."""
    memory = store.get_memory(space_id, memory_id_of(store, space_id, memory_id))
    if memory is None:
        raise NotFound(
            f"no memory '{memory_id}' in this space; use an id returned by search_memory or "
            "listMemories for the same space"
        )
    return memory


# A good call, for the refusals of an expiry (either one, never both).
EXPIRY_EXAMPLE = ('add_memory {"content": "The staging freeze lasts until Friday", '
                  '"forgetAfter": "3d"} or {"content": …, "expiresAt": "2026-06-30T17:00:00+02:00"}')


def expiry_of(expires_at: str | datetime | None, forget_after: str | None,
              now: datetime) -> datetime | None:
    """When the memory expires, in UTC: `expires_at` (ISO 8601 with an offset) or now plus
    `forget_after` (a duration: 90m, 12h, 30d, 2w), never both; None when neither is given.

    Raises:
        InvalidInput: both given, a value that does not parse, or an expiry not after now.
    """
    if isinstance(expires_at, str):
        expires_at = expires_at.strip() or None
    after = (forget_after or "").strip()
    if expires_at is not None and after:
        raise InvalidInput("pass expiresAt (the instant it expires) or forgetAfter (how long "
                           f"from now), not both; e.g. {EXPIRY_EXAMPLE}")
    if after:
        try:
            return now.astimezone(UTC) + parse_duration(after)
        except ValueError as exc:
            raise InvalidInput(f"forgetAfter {exc}; e.g. forgetAfter=\"30d\" (or 90m, 12h, "
                               f"2w). A good call: {EXPIRY_EXAMPLE}") from None
    if expires_at is None:
        return None
    at = _instant_with_offset(expires_at)
    if at <= now:
        raise InvalidInput(f"expiresAt {at.isoformat()} is not after now ({now.isoformat()}): "
                           "a memory expires in the future; to retire it now use "
                           f"action: \"forget\". A good call: {EXPIRY_EXAMPLE}")
    return at


def _instant_with_offset(value: str | datetime) -> datetime:
    """`expiresAt` in UTC; InvalidInput unless it is ISO 8601 with an offset (a time without
    one would be read in the server's zone, not the caller's)."""
    try:
        parsed = value if isinstance(value, datetime) else \
            datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(f"expiresAt '{value}' is not a time: pass ISO 8601 with an offset, "
                           f"e.g. expiresAt=\"2026-06-30T17:00:00+02:00\" or "
                           f"\"2026-06-30T15:00:00Z\". A good call: {EXPIRY_EXAMPLE}") from None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise InvalidInput(f"expiresAt '{value}' has no offset: add one, e.g. "
                           f"expiresAt=\"{parsed.isoformat()}Z\" (UTC) or "
                           f"\"{parsed.isoformat()}+02:00\". A good call: {EXPIRY_EXAMPLE}")
    try:
        return parsed.astimezone(UTC)
    except (OverflowError, ValueError):
        raise InvalidInput(f"expiresAt '{value}' is out of range: pass a time such as "
                           "2026-06-30T15:00:00Z") from None

"""What search_memory is asked and answers (services/search/search.py): the request, its hits and the
result the surfaces render (present/), and the provenance filter's kinds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from datetime import datetime

from memspace.domain.bitemporal import TimeSlice
from memspace.domain.errors import InvalidInput
from memspace.domain.models import Memory, Neighbour, ProvenanceKind
from memspace.services.search.context import Profile


@dataclass(frozen=True)
class SearchRequest:
    query: str | None = None
    keyword: str | None = None
    category: str | None = None
    space: str | None = None
    limit: int = 10
    include_profile: bool = True
    include_inactive: bool = False
    _: KW_ONLY  # filters added later are named at every call, never shifted by position
    # The keyword's words only as typed, no typo variants (the prompt-recall hook's search).
    exact_keyword: bool = False
    # Only memories of these provenance kinds (docs/security.md), e.g. ("human",) for facts people wrote.
    provenance: tuple[str, ...] = ()
    types: tuple[str, ...] = ()  # only these types (domain/lifecycle.py); empty: any
    statuses: tuple[str, ...] = ()  # only these statuses; a status filter reads inactive ones too
    include_body: bool = False  # whole contents, not excerpts of long ones (present/)
    # Facts valid at this time / what the space held then (docs/time.md): ISO text or a
    # datetime; neither: current facts only.
    as_of: str | datetime | None = None
    known_at: str | datetime | None = None


def provenance_kinds(names: Sequence[str]) -> set[ProvenanceKind]:
    """The kinds a search keeps. Raises InvalidInput naming the kinds there are."""
    try:
        return {ProvenanceKind(n.strip().lower()) for n in names if n.strip()}
    except ValueError as exc:
        raise InvalidInput(f"provenance takes any of {', '.join(k.value for k in ProvenanceKind)}"
                           f" (e.g. [\"human\"] for facts people wrote), not {list(names)}") from exc


@dataclass(frozen=True)
class SearchHit:
    memory: Memory
    score: float
    matched_by: tuple[str, ...]
    related: tuple[Neighbour, ...]  # up to two links away, nearest first


@dataclass(frozen=True)
class SearchResult:
    space: str  # slug
    mode: str  # hybrid, hybrid+keyword, keyword, category, or keyword (embedder unavailable: ...)
    hits: tuple[SearchHit, ...]
    titles: Mapping[str, str]  # document id -> title, for hits and neighbours from documents
    message: str | None = None  # why nothing could match (an empty space)
    profile: Profile | None = None
    include_body: bool = False  # whole contents asked for (present/ shows excerpts otherwise)
    # warm: ranked on the space held in memory; cold: on the store's own indexes
    # (docs/scaling.md), while the space loads in the background
    path: str = "warm"
    at: TimeSlice | None = None  # the time slice read (docs/time.md); None: current facts
    # The profile was asked for but describes today, and the slice is a past record (knownAt).
    profile_left_out: bool = False
    # Each memory id the answer names -> its short id (services/shared/id_prefixes.py).
    short: Mapping[str, str] = field(default_factory=dict)

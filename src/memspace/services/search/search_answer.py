"""search_memory's answer from its ranked hits: each hit's neighbourhood, the documents'
titles, the profile and why nothing matched. A read at `knownAt` shows every memory as its
record stood then (services/shared/known_view.py) and leaves today's profile out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol

from memspace.domain.bitemporal import TimeSlice, forgotten
from memspace.domain.graph_port import (
    WithDirectory,
    WithDocuments,
    WithReads,
    WithRelations,
    WithSearch,
)
from memspace.domain.models import Memory, Neighbour, Space
from memspace.domain.ports import AnswerReads
from memspace.services.documents import document_titles
from memspace.services.search.context import Profile
from memspace.services.search.ranking import Ranked
from memspace.services.search.search_types import SearchHit, SearchRequest, SearchResult
from memspace.services.shared import (
    HEAD_READ,
    SHORT_ID_CHARS,
    Find,
    KnownView,
    memory_ids,
    read_before,
    short_ids,
    start_read,
)

# Neighbours shown per hit: enough for a correction chain and its context, bounded so one
# hub memory cannot flood the answer.
RELATED_PER_HIT = 5
# How far from a hit its neighbours are walked.
RELATED_HOPS = 2


class AnswerPorts(WithDirectory, WithReads, WithRelations, WithDocuments, WithSearch, Protocol):
    """The store roles an answer reads."""


class Related:
    """The hits' neighbourhoods, read with the read that makes the hits whole.

    Once the ranking has chosen its hits, the read of the memories shown, the read of their
    neighbours and the read of the ids sharing their heads (for short ids) need nothing from
    each other. Where the store answers the three in one statement (Neo4j:
    `MemoryReadStore.answer_reads`) they are read so; elsewhere, where the store reads
    concurrently (`SearchStore.concurrent_reads`), the neighbours' read is started beside the
    hits' and their round trips overlap. What was read early is used only if the hits it was
    read for are the hits answered; otherwise (one left out, say deactivated meanwhile) the
    neighbourhoods are read again for those.
    """

    def __init__(self, store: AnswerPorts, space_id: str, known_at: datetime | None = None
                 ) -> None:
        self._store, self._space_id, self._known_at = store, space_id, known_at
        self._early: tuple[tuple[str, ...], Callable[[], list[Neighbour]]] | None = None
        self._heads: AnswerReads | None = None

    def start(self, ids: Sequence[str]) -> None:
        wanted = tuple(ids)
        self._early = wanted, start_read(self._store.search, lambda: self._read(wanted))

    def with_hits(self, ids: Sequence[str]) -> list[Memory] | None:
        """The hits `ids` read whole in one statement with their neighbourhoods and the ids
        sharing their heads, where the store offers it (MemoryReadStore.answer_reads).
        Elsewhere None, and the neighbourhoods are started beside the caller's own read of
        the hits."""
        read = None if self._known_at is not None else self._store.reads.answer_reads(
            self._space_id, ids, RELATED_HOPS, RELATED_PER_HIT, SHORT_ID_CHARS, HEAD_READ)
        if read is None:
            self.start(ids)
            return None
        self._early, self._heads = (tuple(ids), lambda: read.neighbours), read
        return read.memories

    def ids(self) -> Find:
        """The space's memory ids by prefix, for short ids: from what `with_hits` read, where
        it covers the heads asked for."""
        find = memory_ids(self._store.reads, self._space_id)
        return find if self._heads is None else read_before(find, self._heads.heads,
                                                             self._heads.sharing)

    def of(self, ids: Sequence[str]) -> list[Neighbour]:
        if self._early is not None and self._early[0] == tuple(ids):
            return self._early[1]()
        return self._read(ids)

    def _read(self, ids: Sequence[str]) -> list[Neighbour]:
        return self._store.relations.neighbours(self._space_id, ids, hops=RELATED_HOPS,
                                                per_origin=RELATED_PER_HIT,
                                                known_at=self._known_at)


def answer(store: AnswerPorts, view: KnownView, space: Space, request: SearchRequest,
           at: TimeSlice | None, hits: list[Ranked[Memory]], mode: str, path: str,
           profile: Callable[[], Profile] | None, early: Related | None = None) -> SearchResult:
    """The hits with their neighbourhoods (`early`: started beside the hits' read) and
    documents' titles, and why nothing matched; the profile, read beside them, is waited for
    last."""
    known = at.known_at if at is not None else None
    neighbourhoods = early if early is not None else Related(store, space.id, known)
    related = neighbourhoods.of([h.memory.id for h in hits])
    related = [n for n in related if at is None or not forgotten(n.memory)]  # never erased text
    shown, related = view.together(space.id, [h.memory for h in hits], related, at)
    titles = document_titles(store.documents, space.id, shown + [n.memory for n in related])
    by_origin: dict[str, list[Neighbour]] = {}
    for n in related:
        by_origin.setdefault(n.origin_id, []).append(n)
    today = profile() if profile is not None else None
    message = None
    # "Nothing saved yet" is said from today's counts, so never of a past slice: a space empty
    # today may have held memories then, and the other way round.
    if not hits and at is None:
        stats = today.stats if today is not None else store.directory.space_stats(space.id)
        if not stats.active_memories:
            message = f"no memories in {space.slug} yet: save what you learn with add_memory"
    scored = {h.memory.id: h for h in hits}
    named = [m.id for m in shown] + [n.memory.id for n in related]
    named += [m.superseded_by for m in (*shown, *(n.memory for n in related)) if m.superseded_by]
    return SearchResult(
        space=space.slug,
        mode=mode,
        hits=tuple(SearchHit(m, scored[m.id].score, tuple(scored[m.id].matched_by),
                             tuple(by_origin.get(m.id, ()))) for m in shown),
        titles=titles,
        message=message,
        profile=today,
        include_body=request.include_body,
        path=path,
        at=at,
        profile_left_out=request.include_profile and known is not None,
        short=short_ids(neighbourhoods.ids(), named),
    )

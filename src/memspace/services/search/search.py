"""search_memory: hybrid, keyword and category search, each hit with its two-hop neighbourhood.
What it is asked and answers is in search_types.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

from memspace.domain.embedder import Embedder
from memspace.domain.errors import InvalidInput, Unavailable
from memspace.domain.graph_port import WithDirectory, WithDocuments, WithReads, WithRelations, WithSearch
from memspace.domain.heads import Candidate, HybridHeads
from memspace.domain.models import Memory, MemoryFilter, provenance_of
from memspace.domain.ports import Clock
from memspace.domain.role_ports import LifecycleStore
from memspace.domain.search_paths import ColdPath, ColdSearch, SpaceCache
from memspace.services.access import AccessService, Principal
from memspace.services.lifecycle import keeps, statuses_of, types_of
from memspace.services.memories import TurnFeatures
from memspace.services.search.context import Profile, ProfileService
from memspace.services.search.ranking import Ranked, blend, single, whole
from memspace.services.search.search_answer import RELATED_PER_HIT, Related, answer
from memspace.services.search.search_types import SearchHit, SearchRequest, SearchResult, provenance_kinds
from memspace.services.shared import (
    KnownView,
    NoteJobs,
    SystemClock,
    past_record,
    start_read,
    time_slice,
)

__all__ = ["SearchHit", "SearchRequest", "SearchResult", "SearchService", "provenance_kinds"]

# How deep each ranked list is read before blending (services/search/ranking.py): deeper lists let a
# memory that is fair in both rankings overtake one that is strong in only one. LoCoMo R@10
# with 50: 0.771 (tune) / 0.743 (held out); with 100: 0.773 / 0.753, for twice the rows read.
FUSION_DEPTH = 50
# A filtered search (types, statuses, a time slice) reads its lists up to this many times deeper
# than FUSION_DEPTH to fill its page: 12,800 per list at limit 10. Past it, a page holds what
# was found (a type that rare is better listed than searched).
DEEPEST = 256
MAX_LIMIT = 50


PROVENANCE_DEPTH = 5
MAX_RANKED = 500


Ranker = ColdSearch  # the three searches a ranking reads, warm (the store) or cold


class SearchPorts(WithDirectory, WithReads, WithRelations, WithSearch, WithDocuments, Protocol):
    """The store roles a search reads."""


class SearchService:
    def __init__(
        self,
        store: SearchPorts,
        embedder: Embedder,
        access: AccessService,
        profiles: ProfileService,
        max_query_chars: int = 2_000,
        quarantines: Callable[[str], bool] | None = None,
        features: TurnFeatures | None = None,
        cache: SpaceCache | None = None,
        cold: ColdPath | None = None,
        clock: Clock | None = None,
        marks: LifecycleStore | None = None,
        notes: NoteJobs | None = None,
    ) -> None:
        """`cache` and `cold`: with both, a space this process does not hold is searched on
        the store's indexes (`cold`) and loaded in the background; without, every space is
        loaded on its first search. `marks`: the status marks a read at knownAt replays."""
        # Whether a space keeps suspicious memories out of search (services/security/guard.py).
        self._quarantines = quarantines or (lambda _space_id: False)
        # Public so a benchmark can switch conversation features between searches.
        self.features = features or TurnFeatures()
        self._store = store
        self._clock = clock or SystemClock()
        self._cache = cache
        self._cold = cold
        self._embedder = embedder
        self._access = access
        self._profiles = profiles
        self._max_query_chars = max_query_chars
        self._view = KnownView(marks, notes)

    def warm_up(self) -> None:
        """Load every space's vectors into the store's cache now rather than on the first
        search (Neo4j: ~17 s for 100,000 memories, measured with bench/bench_stores.py), and
        count its memories for the profile (Neo4j keeps the counts until the space changes:
        counted on the first search instead, it made that search take 1.4 s at 100,000);
        then make the reads of one search once."""
        probe = [1.0] + [0.0] * (self._embedder.dimensions - 1)
        rehearsed = False
        for space in self._store.directory.list_spaces():
            where = MemoryFilter(space.id)
            if self._cache is not None and self._cache.full():
                break  # the rest load when first searched (in the background)
            self._store.search.vector_search(where, probe, 1)
            if self._store.directory.space_stats(space.id).active_memories and not rehearsed:
                # Every read a search makes, once: a server plans each statement on its first
                # run (Neo4j: the first search after /readyz took 875 ms at 100,000 memories).
                self._store.search.hybrid_search(where, probe, "warm up", 1)
                heads = self._store.search.hybrid_heads(where, probe, "warm up", 1)
                ids = [h.memory.id for h in heads.by_vector]
                self._store.reads.get_memories(space.id, ids)
                self._store.relations.neighbours(space.id, ids, hops=2, per_origin=RELATED_PER_HIT)
                self._store.search.keyword_search(where, "warm up", 1)
                self._profiles.profile(space)
                rehearsed = True

    def _text(self, value: str | None, name: str) -> str | None:
        text = (value or "").strip()
        if not text:
            return None
        if len(text) > self._max_query_chars:
            raise InvalidInput(
                f"{name} is {len(text):,} characters; the limit is {self._max_query_chars:,} "
                "(MEMSPACE_MAX_QUERY_CHARS). Ask about one thing at a time"
            )
        return text

    def search(self, principal: Principal, request: SearchRequest) -> SearchResult:
        target = self._access.resolve(principal, request.space)
        query, keyword, where = self._checked(target.space.id, request)

        def read_profile() -> Callable[[], Profile]:
            return start_read(self._store.search, lambda: self._profiles.profile(target.space))

        # The profile depends on nothing the search ranks, so it is read beside the rest of
        # the search: the ranking's own reads, then the neighbours'. Not beside a query's
        # embedding and vector product: numpy's two BLAS threads then share the two cores
        # with it. At 100,000 memories on Neo4j, MCP hybrid p95 went 38.8 -> 52.5 ms with the
        # profile beside the embedding, 43.4 -> 40.3 ms with it after (A/Bs of servers taking
        # turns).
        profiled = request.include_profile and not past_record(where.at)  # today's, not then
        profile = read_profile() if profiled and not query else None
        kinds = provenance_kinds(request.provenance)
        # With a provenance filter, rank deeper so that filtering still fills the page.
        depth = request.limit if not kinds else min(request.limit * PROVENANCE_DEPTH, MAX_RANKED)
        path, ranker = self._ranker(target.space.id, query or keyword)
        quarantined = self._quarantines(target.space.id)
        # Whole memories are read for the answer alone where nothing after the ranking reads
        # more of them than their heads (domain/heads.py)
        lean = not (kinds or quarantined or where.types or where.statuses or where.at)
        early = Related(self._store, target.space.id) if lean else None
        mode, ranked = self._kept(ranker, where, query, keyword, depth, request.exact_keyword,
                                  early)
        if profiled and profile is None:
            profile = read_profile()
        if kinds:
            ranked = [h for h in ranked if provenance_of(h.memory).kind in kinds]
        if quarantined:
            ranked = [h for h in ranked if not h.memory.suspicious]
        return answer(self._store, self._view, target.space, request, where.at,
                      ranked[: request.limit], mode, path, profile, early)

    def _checked(self, space_id: str, request: SearchRequest
                 ) -> tuple[str | None, str | None, MemoryFilter]:
        """The query, the keyword and the filter the request asks for, or InvalidInput."""
        query = self._text(request.query, "query")
        keyword = self._text(request.keyword, "keyword")
        category = " ".join((request.category or "").split()).lower() or None
        types, statuses = types_of(request.types), statuses_of(request.statuses)
        if not (query or keyword or category or types or statuses):
            raise InvalidInput(
                "search_memory needs at least one of: query (natural language), keyword "
                "(exact words, typos tolerated), category, types or statuses"
            )
        if not 1 <= request.limit <= MAX_LIMIT:
            raise InvalidInput(f"limit must be between 1 and {MAX_LIMIT}")
        at = time_slice(request.as_of, request.known_at, self._clock)
        return query, keyword, MemoryFilter(space_id, category, request.include_inactive, types,
                                            statuses, at)

    def prepare(self, principal: Principal, space: str,
                starting: Callable[[int], None] | None = None) -> int:
        """Build now what the space's cold searches need and the store would otherwise build
        under them (ColdPath.prepare): an import's last step. The memories it covers; 0 where
        nothing was built."""
        target = self._access.resolve(principal, space)
        return self._cold.prepare(target.space.id, starting) if self._cold is not None else 0

    def close(self) -> None:
        """Stop the background loads of cold spaces and the cold path's own background work
        (before the store closes)."""
        if self._cache is not None:
            self._cache.close()
        if self._cold is not None:
            self._cold.close()

    def _ranker(self, space_id: str, words: str | None) -> tuple[str, Ranker]:
        """The memory the space is held in (warm), else the store's indexes (cold), the space
        then loading in the background. A category listing reads the store either way."""
        if self._cache is None or self._cold is None or not words:
            return "warm", self._store.search
        if self._cache.is_warm(space_id):
            return "warm", self._store.search
        self._cache.warm_later(space_id)
        return "cold", self._cold

    def _kept(
        self, ranker: Ranker, where: MemoryFilter, query: str | None, keyword: str | None,
        limit: int, exact: bool, early: Related | None = None,
    ) -> tuple[str, list[Ranked[Memory]]]:
        """The ranking narrowed to the filter's types, statuses and time slice (`keeps`). A
        slice alone is ranked at the usual depth first (most versions a slice reads are still
        current: a first pass four times deeper made keyword searches with asOf 1.7x slower at
        p95), a type or status filter four times deeper; then four times deeper again while
        fewer than `limit` survive and the ranking was cut short, up to DEEPEST times. A space
        keeps every version of its memories (each correction or move writes one), and those a
        slice does not hold can outnumber what one deeper pass reads."""
        filtered = bool(where.at or where.types or where.statuses)
        deep = 4 if where.types or where.statuses else 1
        while True:
            mode, ranked, asked = self._rank(ranker, where, query, keyword, limit, exact, deep,
                                             early=early)
            kept = [r for r in ranked if keeps(where, r.memory)]
            if not filtered or len(kept) >= limit or len(ranked) < asked or deep >= DEEPEST:
                return mode, kept
            deep *= 4

    def _rank(
        self, ranker: Ranker, where: MemoryFilter, query: str | None, keyword: str | None,
        limit: int, exact: bool = False, deep: int = 1, early: Related | None = None,
    ) -> tuple[str, list[Ranked[Memory]], int]:
        """The ranking of the query and/or keyword, each list `deep` times the usual depth,
        and how many it asked for (a ranking as long was cut short). With `early` (a lean
        search: nothing after the ranking reads more than heads), only its first `limit` are
        read whole, and their neighbourhoods are started beside that read."""
        # The rankings filter by category and activity only; types, statuses and a time slice
        # narrow their lists afterwards (`_kept`), which reads them deeper.
        depth = max(FUSION_DEPTH, limit * 3) * deep
        lean = early is not None
        if where.at or where.statuses:  # every version, active or not (docs/time.md)
            where = replace(where, include_inactive=True)
        if query:
            degraded = None
            try:
                [vector] = self._embedder.embed_queries([query])
            except Unavailable as exc:  # words still find memories while the model is down
                degraded = f"keyword (embedder unavailable: {exc.message})"
                blended: list[Ranked[Candidate]] = blend(
                    [], ranker.text_search(where, query, depth), query, features=self.features)
            else:
                hits = (ranker.hybrid_heads(where, vector, query, depth) if lean else
                        HybridHeads.of_whole(ranker.hybrid_search(where, vector, query, depth)))
                blended = blend(hits.by_vector, hits.by_text, query, hits.cosines,
                                hits.text_scores, self.features)
            cut = limit if lean else None
            if not keyword:
                return (degraded or "hybrid",
                        self._whole(where, blended[:cut], early), depth)
            # The keyword narrows the answer to memories holding its words (typos tolerated).
            # Those the query did not rank follow, in keyword order.
            held = ranker.keyword_search(where, keyword, depth * 4, exact)
            allowed = {h.memory.id: h.memory for h in held}
            kept = [Ranked(r.memory, r.score, (*r.matched_by, "keyword"))
                    for r in blended if r.memory.id in allowed]
            seen = {r.memory.id for r in kept}
            kept += [Ranked(h.memory, 0.0, ("keyword",)) for h in held if h.memory.id not in seen]
            return (degraded or "hybrid+keyword", self._whole(where, kept[:cut], early, allowed),
                    depth * 4)
        if keyword:
            # only the first `limit` are shown: nothing deeper is fetched unless filtered. A
            # slice alone is kept by the store's own fetch (stores/sliced_ranking.py), so
            # `limit` suffices; the cold path does not, and `_kept` reads it again deeper.
            rows = depth if (where.types or where.statuses or where.at) and deep > 1 else limit
            return "keyword", single(ranker.keyword_search(where, keyword, rows, exact),
                                    "keyword"), rows
        newest = self._store.reads.list_memories(where, limit)
        return "category", [Ranked(m, 1.0, ("category",)) for m in newest], limit

    def _whole(self, where: MemoryFilter, ranked: list[Ranked[Candidate]], early: Related | None,
               known: dict[str, Memory] | None = None) -> list[Ranked[Memory]]:
        """The ranking read whole (ranking.whole); where that reads the store, a lean search
        reads its hits with their neighbourhoods (Related.with_hits)."""
        read = None
        if early is not None and any(not isinstance(r.memory, Memory)
                                     and r.memory.id not in (known or {}) for r in ranked):
            read = early.with_hits([r.memory.id for r in ranked])
        return whole(self._store.reads, where, ranked, known, read)

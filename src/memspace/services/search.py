"""search_memory: hybrid, keyword and category search, each hit with its two-hop neighbourhood."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memspace.domain.errors import InvalidInput, Unavailable
from memspace.domain.models import Memory, MemoryFilter, ScoredMemory
from memspace.domain.ports import Embedder, GraphStore
from memspace.services.access import AccessService, Principal
from memspace.services.context import ProfileService
from memspace.services.documents import document_titles
from memspace.services.views import memory_json, neighbour_json

# Reciprocal rank fusion constant (Cormack et al. 2009). k=60 is the published default; on
# LoCoMo it lifts R@10 from 0.516 (vector) / 0.579 (BM25) to 0.632 (shared/bench/README.md).
RRF_K = 60
# How deep each ranked list is read before fusing: deeper lists let a memory that is fair in
# both rankings overtake one that is strong in only one.
FUSION_DEPTH = 50
MAX_LIMIT = 50
# Neighbours shown per hit: enough for a correction chain and its context, bounded so one
# hub memory cannot flood the answer.
RELATED_PER_HIT = 5


@dataclass(frozen=True)
class SearchRequest:
    query: str | None = None
    keyword: str | None = None
    category: str | None = None
    space: str | None = None
    limit: int = 10
    include_profile: bool = True
    include_inactive: bool = False


def fuse(rankings: Sequence[Sequence[ScoredMemory]], k: int = RRF_K) -> list[tuple[Memory, float, list[int]]]:
    """Reciprocal rank fusion: sum of 1/(k + rank) over the lists a memory appears in."""
    scores: dict[str, float] = {}
    found_in: dict[str, list[int]] = {}
    memories: dict[str, Memory] = {}
    for list_no, ranking in enumerate(rankings):
        for rank, hit in enumerate(ranking, start=1):
            mid = hit.memory.id
            memories[mid] = hit.memory
            scores[mid] = scores.get(mid, 0.0) + 1.0 / (k + rank)
            found_in.setdefault(mid, []).append(list_no)
    ordered = sorted(scores, key=lambda m: (-scores[m], m))
    return [(memories[m], scores[m], found_in[m]) for m in ordered]


class SearchService:
    def __init__(
        self,
        store: GraphStore,
        embedder: Embedder,
        access: AccessService,
        profiles: ProfileService,
        max_query_chars: int = 2_000,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._access = access
        self._profiles = profiles
        self._max_query_chars = max_query_chars

    def warm_up(self) -> None:
        """Load every space's vectors into the store's cache now rather than on the first
        search (Neo4j: ~17 s for 100,000 memories, measured with bench/bench_stores.py)."""
        probe = [1.0] + [0.0] * (self._embedder.dimensions - 1)
        for space in self._store.list_spaces():
            self._store.vector_search(MemoryFilter(space.id), probe, 1)

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

    def search(self, principal: Principal, request: SearchRequest) -> dict[str, Any]:
        target = self._access.resolve(principal, request.space)
        query = self._text(request.query, "query")
        keyword = self._text(request.keyword, "keyword")
        category = " ".join((request.category or "").split()).lower() or None
        if not (query or keyword or category):
            raise InvalidInput(
                "search_memory needs at least one of: query (natural language), keyword "
                "(exact words, typos tolerated) or category"
            )
        if not 1 <= request.limit <= MAX_LIMIT:
            raise InvalidInput(f"limit must be between 1 and {MAX_LIMIT}")
        where = MemoryFilter(target.space.id, category, request.include_inactive)
        mode, ranked = self._rank(where, query, keyword, request.limit)
        hits = ranked[: request.limit]
        related = self._store.neighbours(
            target.space.id, [m.id for m, _, _ in hits], hops=2, per_origin=RELATED_PER_HIT
        )
        titles = document_titles(self._store, target.space.id,
                                 [m for m, _, _ in hits] + [n.memory for n in related])
        by_origin: dict[str, list[dict[str, Any]]] = {}
        for n in related:
            by_origin.setdefault(n.origin_id, []).append(neighbour_json(n, titles))
        list_names = {"hybrid": ["vector", "text"], "hybrid+keyword": ["vector", "text", "keyword"],
                      "keyword": ["keyword"], "category": ["category"]}.get(
                          mode, ["vector", "text", "keyword"])  # degraded: the vector list is empty
        results = []
        for memory, score, found_in in hits:
            item = memory_json(memory, titles)
            item["score"] = round(score, 6)
            item["matchedBy"] = [list_names[i] for i in found_in]
            item["relatedMemories"] = by_origin.get(memory.id, [])
            results.append(item)
        answer: dict[str, Any] = {
            "space": target.space.slug,
            "searchMode": mode,
            "results": results,
            "total": len(results),
        }
        if not results and not self._store.space_stats(target.space.id).active_memories:
            answer["message"] = (f"no memories in {target.space.slug} yet: save what you learn "
                                 "with add_memory")
        if request.include_profile:
            answer["profile"] = self._profiles.profile(target.space)
        return answer

    def _rank(
        self, where: MemoryFilter, query: str | None, keyword: str | None, limit: int
    ) -> tuple[str, list[tuple[Memory, float, list[int]]]]:
        depth = max(FUSION_DEPTH, limit * 3)
        if query:
            degraded = None
            try:
                [vector] = self._embedder.embed([query])
                by_vector = self._store.vector_search(where, vector, depth)
            except Unavailable as exc:  # words still find memories while the model is down
                by_vector, degraded = [], f"keyword (embedder unavailable: {exc.message})"
            lists = [by_vector, self._store.text_search(where, query, depth)]
            if not keyword:
                return degraded or "hybrid", fuse(lists)
            exact = self._store.keyword_search(where, keyword, depth * 4)
            allowed = {h.memory.id for h in exact}
            fused = fuse([*lists, exact])
            return degraded or "hybrid+keyword", [f for f in fused if f[0].id in allowed]
        if keyword:
            return "keyword", fuse([self._store.keyword_search(where, keyword, depth)])
        newest = self._store.list_memories(where, limit)
        return "category", [(m, 1.0, [0]) for m in newest]

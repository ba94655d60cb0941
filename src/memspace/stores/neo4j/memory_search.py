"""Search of the Neo4j store (the SearchStore role, the store's `search`) over its kit
(neo4j/kit.py): every list is ranked on the in-process cache of the space's vectors and terms
(stores/vector_cache.py), whose rows this role reads too (it is the cache's VectorSource), and
the memories ranked are fetched in one round trip (search.py, shared with the cold search)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from memspace.domain.heads import HybridHeads
from memspace.domain.models import HybridHits, MemoryFilter, ScoredMemory
from memspace.domain.ports import Vector
from memspace.domain.text import query_terms, words
from memspace.stores.neo4j import search
from memspace.stores.neo4j.cypher import search as cypher
from memspace.stores.neo4j.kit import Neo4jKit
from memspace.stores.space_vectors import Row as CacheRow


class Neo4jSearch:
    """Vector, text, hybrid and keyword search of one space."""

    concurrent_reads = True

    def __init__(self, kit: Neo4jKit) -> None:
        self._db = kit.db
        self._vectors = kit.vectors

    def vector_search(self, where: MemoryFilter, embedding: Vector, limit: int) -> list[ScoredMemory]:
        """Exact, from the in-process cache of the space's vectors (see stores/vector_cache.py)."""
        query = np.asarray(embedding, dtype=np.float32)
        return self._one_list(where, lambda version: self._vectors.top_k(
            self, where.space_id, query, limit, where.category, where.include_inactive, version))

    def text_search(self, where: MemoryFilter, text: str, limit: int) -> list[ScoredMemory]:
        """BM25 over the memories' index terms (domain.text.index_terms), any query term, with
        the space's own statistics (stores/term_index.py, held by the vector cache)."""
        terms = query_terms(text)
        return self._one_list(where, lambda version: self._vectors.text_top_k(
            self, where.space_id, terms, limit, where.category, where.include_inactive, version))

    def _one_list(self, where: MemoryFilter,
                  rank: Callable[[int | None], list[tuple[int, float]]]) -> list[ScoredMemory]:
        [hits] = search.lists_from_cache(self._db, self._vectors, where,
                                         lambda version: [rank(version)])
        return hits

    def hybrid_search(self, where: MemoryFilter, embedding: Vector, text: str,
                      limit: int) -> HybridHits:
        """Both lists ranked on the cache, their memories fetched in one round trip (two reads
        of 50 records each took 16 ms of a 50 ms search at 100,000 memories)."""
        return HybridHits.of(*search.lists_from_cache(
            self._db, self._vectors, where, self._hybrid_rank(where, embedding, text, limit)))

    def hybrid_heads(self, where: MemoryFilter, embedding: Vector, text: str,
                     limit: int) -> HybridHeads:
        """hybrid_search with each memory's head only (domain/heads.py)."""
        return HybridHeads.of(*search.heads_from_cache(
            self._db, self._vectors, where, self._hybrid_rank(where, embedding, text, limit)))

    def _hybrid_rank(self, where: MemoryFilter, embedding: Vector, text: str,
                     limit: int) -> Callable[[int | None], list[list[tuple[int, float]]]]:
        """Both lists ranked on the cache, and each memory of either scored by the other."""
        query = np.asarray(embedding, dtype=np.float32)
        terms = query_terms(text)

        def rank(version: int | None) -> list[list[tuple[int, float]]]:
            hits = self._vectors.hybrid_top_k(self, where.space_id, query, terms, limit,
                                              where.category, where.include_inactive, version)
            return [hits.by_vector, hits.by_text, hits.cosines, hits.text_scores]

        return rank

    def nearest_active(self, space_id: str, embedding: Vector, limit: int,
                       min_score: float) -> list[ScoredMemory]:
        """Ranked on the cache as it is (no version read: with writers committing all the
        time, checking it made most similar-on-save lookups read twice), fetched only when a
        memory is close enough. A memory deactivated since the cache last looked is dropped
        by its record; twice `limit` are ranked so that one such does not shorten the list."""
        if self._vectors.bounded_and_cold(space_id):
            return []  # a hint: not worth loading the space inside the add (docs/scaling.md)
        ranked = self._vectors.top_k(self, space_id, np.asarray(embedding, dtype=np.float32),
                                     2 * limit, None, False, self._vectors.version_of(space_id))
        close = [hit for hit in ranked if hit[1] >= min_score]
        return [h for h in search.by_seq(self._db, space_id, close)
                if h.memory.active][:limit]

    def keyword_search(self, where: MemoryFilter, keyword: str, limit: int,
                       exact: bool = False) -> list[ScoredMemory]:
        """Every word of `keyword`, typos tolerated unless `exact`, ranked on the cache
        (stores/keyword_index.py)."""
        typed = words(keyword)
        inactive = where.include_inactive or where.at is not None  # a slice reads every version

        def rank(depth: int, version: int | None) -> list[tuple[int, float]]:
            return self._vectors.keyword_top_k(self, where.space_id, typed, depth,
                                               where.category, inactive, version, exact)

        if where.at is not None:  # the slice is kept in the fetch (docs/time.md)
            return search.sliced_from_cache(self._db, self._vectors, where, rank, limit)
        return self._one_list(where, lambda version: rank(limit, version))

    # VectorSource (stores/space_vectors.py): what the cache loads a space from.

    def vector_version(self, space_id: str) -> int:
        rows = self._db.read(cypher.VECTOR_VERSION, space=space_id)
        return int(rows[0]["version"]) if rows else 0

    def vectors_after(self, space_id: str, after_seq: int,
                      limit: int | None = None) -> list[CacheRow]:
        """The cache's rows past `after_seq`, read in ranges of SEQS_PER_READ sequence numbers
        up to the space's last one (writes take their numbers in commit order, so a write
        committed after the first read is found by the next refresh); with `limit`, the numbers
        up to after_seq + limit, and the next ones while fewer than `limit` were found (a number
        whose memory is gone): fewer than `limit` rows means there are no more."""
        rows = self._db.read(cypher.LAST_SEQ, space=space_id)
        end = int(rows[0]["seq"]) if rows else 0
        if limit is None:
            return self._rows_between(space_id, after_seq, end, search.SEQS_PER_READ)
        found: list[CacheRow] = []
        while len(found) < limit and after_seq < end:
            upto = min(end, after_seq + limit - len(found))
            # a refresh's few rows in one read; a load's LOAD_READERS ranges at once
            found += self._rows_between(space_id, after_seq, upto,
                                        max(search.SEQS_PER_READ // search.LOAD_READERS,
                                            -(-(upto - after_seq) // search.LOAD_READERS)))
            after_seq = upto
        return found

    def _rows_between(self, space_id: str, after_seq: int, last: int,
                      step: int) -> list[CacheRow]:
        """Rows with after_seq < seq <= last, read in ranges of `step`, LOAD_READERS at once."""

        def read(start: int) -> list[CacheRow]:
            [chunk] = self._db.read(cypher.VECTORS_IN_RANGE, space=space_id, after=start,
                                    upto=min(start + step, last))
            return [(int(seq), vector, str(category), terms, str(content))
                    for seq, vector, category, terms, content in chunk["rows"]]

        starts = range(after_seq, last, step)
        if len(starts) <= 1:
            return read(starts[0]) if starts else []
        # A cold load: LOAD_READERS ranges in flight, in order.
        with ThreadPoolExecutor(max_workers=search.LOAD_READERS,
                                thread_name_prefix="vector-load") as pool:
            return [row for rows_of in pool.map(read, starts) for row in rows_of]

    def memory_count(self, space_id: str) -> int:
        """The space's last sequence number: every memory it holds takes the next one."""
        rows = self._db.read(cypher.LAST_SEQ, space=space_id)
        return int(rows[0]["seq"]) if rows else 0

    def inactive_seqs(self, space_id: str, upto_seq: int) -> list[int]:
        rows = self._db.read(cypher.INACTIVE_SEQS, space=space_id, upto=upto_seq)
        return [int(r["seq"]) for r in rows]

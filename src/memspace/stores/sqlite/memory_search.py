"""Search of the embedded store (the SearchStore role, the store's `search`) over its kit
(sqlite/kit.py): every list is ranked on the in-process cache of the space's vectors and terms
(stores/vector_cache.py), whose rows this role reads too (it is the cache's VectorSource), and
the memories ranked are read in one query (search.py)."""

from __future__ import annotations

import numpy as np

from memspace.domain.heads import HybridHeads
from memspace.domain.models import HybridHits, MemoryFilter, ScoredMemory
from memspace.domain.ports import Vector
from memspace.domain.text import query_terms, words
from memspace.stores.sliced_ranking import sliced
from memspace.stores.space_vectors import Row as CacheRow
from memspace.stores.sqlite import search
from memspace.stores.sqlite.kit import SqliteKit


class SqliteSearch:
    """Vector, text, hybrid and keyword search of one space; the rowid is the sequence number
    (rows are never deleted)."""

    def __init__(self, kit: SqliteKit) -> None:
        self._db = kit.db
        self._vectors = kit.vectors
        self.concurrent_reads = not kit.db.in_memory  # WAL: readers beside the writer

    def vector_search(self, where: MemoryFilter, embedding: Vector, limit: int) -> list[ScoredMemory]:
        return search.by_rowid(self._db.conn(), self._vector_hits(where, embedding, limit))

    def nearest_active(self, space_id: str, embedding: Vector, limit: int,
                       min_score: float) -> list[ScoredMemory]:
        if self._vectors.bounded_and_cold(space_id):
            return []  # a hint: not worth loading the space inside the add (docs/scaling.md)
        close = [hit for hit in self._vector_hits(MemoryFilter(space_id), embedding, limit)
                 if hit[1] >= min_score]
        return [h for h in search.by_rowid(self._db.conn(), close) if h.memory.active]

    def text_search(self, where: MemoryFilter, text: str, limit: int) -> list[ScoredMemory]:
        """BM25 over the memories' index terms (domain.text.index_terms), any query term, with
        the space's own statistics (stores/term_index.py, held by the vector cache)."""
        return search.by_rowid(self._db.conn(), self._vectors.text_top_k(
            self, where.space_id, query_terms(text), limit, where.category,
            where.include_inactive))

    def hybrid_search(self, where: MemoryFilter, embedding: Vector, text: str,
                      limit: int) -> HybridHits:
        """Both lists ranked on the cache, their memories read in one query."""
        hits = self._vectors.hybrid_top_k(self, where.space_id,
                                          np.asarray(embedding, dtype=np.float32),
                                          query_terms(text), limit, where.category,
                                          where.include_inactive)
        return HybridHits.of(*search.lists_by_rowid(self._db.conn(), [
            hits.by_vector, hits.by_text, hits.cosines, hits.text_scores]))

    def hybrid_heads(self, where: MemoryFilter, embedding: Vector, text: str,
                     limit: int) -> HybridHeads:
        """hybrid_search's memories as heads, each with its memory: read in process, a whole
        row costs about what its head would."""
        return HybridHeads.of_whole(self.hybrid_search(where, embedding, text, limit))

    def _vector_hits(self, where: MemoryFilter, embedding: Vector,
                     limit: int) -> list[tuple[int, float]]:
        return self._vectors.top_k(self, where.space_id, np.asarray(embedding, dtype=np.float32),
                                   limit, where.category, where.include_inactive)

    def keyword_search(self, where: MemoryFilter, keyword: str, limit: int,
                       exact: bool = False) -> list[ScoredMemory]:
        """Every word of `keyword`, typos tolerated unless `exact`, ranked on the cache
        (stores/keyword_index.py)."""
        typed, conn = words(keyword), self._db.conn()
        inactive = where.include_inactive or where.at is not None  # a slice reads every version

        def rank(depth: int) -> list[tuple[int, float]]:
            return self._vectors.keyword_top_k(self, where.space_id, typed, depth,
                                               where.category, inactive, exact=exact)

        if where.at is None:
            return search.by_rowid(conn, rank(limit))

        def read(depth: int) -> tuple[int, list[ScoredMemory]]:  # docs/time.md
            ranked = rank(depth)
            return len(ranked), search.sliced_by_rowid(conn, where, ranked, limit)

        return sliced(read, limit)

    # VectorSource (stores/space_vectors.py): what the cache loads a space from.

    def vector_version(self, space_id: str) -> int:
        """The space's version, which every write of it bumps (0 for an unknown space): the
        cache keys a space's vectors on it."""
        row = self._db.conn().execute("SELECT version FROM spaces WHERE id = ?",
                                      (space_id,)).fetchone()
        return int(row[0]) if row else 0

    def vectors_after(self, space_id: str, after_seq: int,
                      limit: int | None = None) -> list[CacheRow]:
        # A refresh reads the newest rows: walk the rowid range past the last one seen (`+`
        # keeps SQLite off the space's index, which made it visit and sort all 100,000 rows of
        # the space: 10 ms per add). A first load reads the space through its index.
        space_filter = "+space_id = ?" if after_seq else "space_id = ?"
        rows = self._db.conn().execute(
            "SELECT rowid, embedding, category, terms, content FROM memories "
            f"WHERE rowid > ? AND {space_filter} ORDER BY rowid LIMIT ?",
            (after_seq, space_id, -1 if limit is None else limit),
        ).fetchall()
        return [(int(r[0]), r[1], str(r[2]), r[3] or "", str(r[4])) for r in rows]

    def memory_count(self, space_id: str) -> int:
        [(count,)] = self._db.conn().execute(
            "SELECT count(*) FROM memories WHERE space_id = ?", (space_id,)).fetchall()
        return int(count)

    def inactive_seqs(self, space_id: str, upto_seq: int) -> list[int]:
        rows = self._db.conn().execute(
            "SELECT rowid FROM memories WHERE space_id = ? AND active = 0 AND rowid <= ?",
            (space_id, upto_seq),
        ).fetchall()
        return [int(r[0]) for r in rows]

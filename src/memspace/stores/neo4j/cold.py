"""Neo4j's cold path (domain.search_paths.ColdSearch): a space this replica does not hold.

A space of up to SCAN_MAX memories is scored by one pass over its rows (stores/cold_scan.py,
read through the (spaceId, seq) index): exact, the warm ranking, ~SCAN_MAX rows over bolt.
A larger space is ranked by the store's own indexes: the vector index (`memory_embedding`) and
a full-text index over the memories' index terms (`memory_index_terms`, schema.py: the terms
the warm ranking reads, the space required inside the Lucene query). Neo4j 5.26
cannot filter inside its vector index, so it is asked for `k` nodes over the whole store, k
sized for the space's share of the store (VECTOR_OVERSAMPLE times that many per wanted hit),
and the space is kept after; a space of OWN_INDEX_MIN memories or more gets a vector index of
its own, built in the background (space_vectors.py), and once it is ready that is asked instead.
Lucene's statistics (document frequencies) span every space of the
database, so Lucene only picks the text candidates: each is scored by BM25 with the space's own
statistics (the query terms' frequencies counted by Lucene inside the space, the average length
from a sample of the space: cold_stats.py), the warm ranking's score. Both indexes are
eventually consistent: a memory written a moment ago (schema.py: the full-text index after the
commit, vector_index.py: the vector within GATHER_S) may be missing from a large cold space's
answer until they catch up.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from memspace.domain.heads import HybridHeads, ScoredHead
from memspace.domain.models import HybridHits, MemoryFilter, ScoredMemory
from memspace.domain.ports import Vector
from memspace.domain.text import max_edits, query_terms, words
from memspace.stores import cold_scan
from memspace.stores.cold_scan import CHUNK_ROWS, ColdRow, Columns, admitted
from memspace.stores.cold_search import ScanSearch
from memspace.stores.neo4j import records as rec
from memspace.stores.neo4j import search
from memspace.stores.neo4j.cold_found import Found
from memspace.stores.neo4j.cold_stats import SpaceStatistics, escaped
from memspace.stores.neo4j.connection import Neo4jConnection
from memspace.stores.neo4j.cypher import cold as cypher
from memspace.stores.neo4j.cypher import search as fetch
from memspace.stores.neo4j.schema import COLD_TERMS_INDEX, TEXT_INDEX, VECTOR_INDEX
from memspace.stores.neo4j.space_vectors import OWN_INDEX_MIN, SpaceVectorIndexes

SCAN_MAX = 3_000
VECTOR_OVERSAMPLE = 4
MAX_K = 10_000
# A space is scanned exactly (its vectors scored inside Neo4j) rather than asked of the vector
# index when it holds at most this many memories per `k` the index would need (bench at 1M:
# ~9 µs a scanned row, ~33 µs a k; docs/scaling.md).
EXACT_PER_K = 3
# A large space's keyword candidates from Lucene: this many per hit asked, within these bounds.
# Inactive and filtered-out memories are among them, so it asks for more than it keeps.
KEYWORD_OVERSAMPLE = 8
KEYWORD_MIN = 200
KEYWORD_MAX = 5_000
# A large space's text candidates from Lucene, re-scored with the space's own statistics.
TEXT_OVERSAMPLE = 8
TEXT_MIN = 200
TEXT_MAX = 5_000
# A large space's own vector index (HNSW) is asked for this many nodes per hit wanted, at least
# OWN_K_MIN; the best 2 x limit of them by the index's score are re-ranked exactly. Measured by
# bench/own_index_recall.py (docs/scaling.md): on e5-small-v2's vectors of real sentences the
# kept hold all of the exact top 10 and 0.999 of the top 50 at k = 200, in 0.67x the time of
# k = 400.
OWN_K_OVERSAMPLE = 4
OWN_K_MIN = 200
# A large space's vector reads run beside its text reads on this many threads (per process).
VECTOR_READERS = 4
# Words Lucene's standard analyzer keeps whole (anything else is scanned for).
_PLAIN = re.compile(r"[a-z0-9]+")


class Neo4jColdSearch(ScanSearch):
    def __init__(self, db: Neo4jConnection) -> None:
        self._db = db
        self.indexes = SpaceVectorIndexes(db)
        self.statistics = SpaceStatistics(db)
        self._vector_reads = ThreadPoolExecutor(max_workers=VECTOR_READERS,
                                                thread_name_prefix="cold-vector")
        super().__init__(self._rows, self._memories, self._heads)

    def close(self) -> None:
        self._vector_reads.shutdown(wait=False, cancel_futures=True)
        self.indexes.close()

    def prepare(self, space_id: str, starting: Callable[[int], None] | None = None) -> int:
        """The space's own vector index built now, if it is large enough for one and has none
        ready (space_vectors.py); 0 when none was needed, or another replica's build holds the
        claim (its progress is the index's, in SHOW INDEXES)."""
        size, own = self._space(space_id)
        if own is not None or size < OWN_INDEX_MIN:
            return 0
        if starting is not None:
            starting(size)
        return size if self.indexes.build(space_id) else 0

    def _size(self, space_id: str) -> int:
        return self._space(space_id)[0]

    def _space(self, space_id: str) -> tuple[int, str | None]:
        """The space's size (its last sequence number) and its own vector index, if ready."""
        rows = self._db.read(cypher.SPACE_SIZE, space=space_id)
        return (int(rows[0]["seq"]), rows[0]["own"]) if rows else (0, None)

    def hybrid_search(self, where: MemoryFilter, embedding: Vector, text: str,
                      limit: int) -> HybridHits:
        size, own = self._space(where.space_id)
        if size <= SCAN_MAX:
            return self._scan(size).hybrid_search(where, embedding, text, limit)
        found = self._indexed(where, size, own, embedding, text, limit, cypher.MEMORIES_WITH_COSINE)
        return HybridHits(*found.lists(rec.memory_from, ScoredMemory))

    def hybrid_heads(self, where: MemoryFilter, embedding: Vector, text: str,
                     limit: int) -> HybridHeads:
        """hybrid_search with each memory's head only (domain/heads.py)."""
        size, own = self._space(where.space_id)
        if size <= SCAN_MAX:
            return self._scan(size).hybrid_heads(where, embedding, text, limit)
        found = self._indexed(where, size, own, embedding, text, limit, cypher.HEADS_WITH_COSINE)
        return HybridHeads(*found.lists(rec.head_from, ScoredHead))

    def _indexed(self, where: MemoryFilter, size: int, own: str | None, embedding: Vector,
                 text: str, limit: int, statement: str) -> Found:
        """Both lists of a large space by the store's indexes, each candidate scored by both
        and projected by `statement` (whole, or its head)."""
        if own is None and size >= OWN_INDEX_MIN:
            self.indexes.request(where.space_id)
        query = np.asarray(embedding, dtype=np.float32).tolist()
        # The vector read beside the text reads (each its own round trip and its own work in
        # Neo4j); twice `limit` from the index (or the exact scan), re-ranked exactly below.
        nearest = self._vector_reads.submit(self._by_vector, where.space_id, size, own, query,
                                            limit)
        wanted = query_terms(text)
        try:
            stats = self.statistics.of(where.space_id, wanted, size)
            by_text = self._text(where, wanted, stats, limit)[:limit]
        finally:
            rows = nearest.result()
        by_vector = self._kept(where, rows, 2 * limit)
        found = list(dict.fromkeys([s for s, _ in by_vector] + [s for s, _ in by_text]))
        [row] = self._db.read(statement, space=where.space_id, seqs=found, vector=query)
        # Cypher's cosine is (1 + cos) / 2; back to the cosine the cache gives. The index's own
        # score is of its quantised copy: the candidates are re-ranked by the exact one.
        cosines = {seq: 2 * float(c) - 1 for seq, _, c, _ in row["rows"] if c is not None}
        by_vector = sorted(((s, cosines[s]) for s, _ in by_vector if s in cosines),
                           key=lambda hit: (-hit[1], hit[0]))[:limit]
        # every memory of either list scored by both, as the cache scores them
        texts = cold_scan.text_scores([(int(seq), str(t)) for seq, _, _, t in row["rows"]],
                                      wanted, stats)
        return Found({seq: m for seq, m, _, _ in row["rows"]}, by_vector, by_text,
                     [(s, cosines[s]) for s in found if s in cosines],
                     [(s, texts.get(s, 0.0)) for s in found])

    def text_search(self, where: MemoryFilter, text: str, limit: int) -> list[ScoredMemory]:
        size = self._size(where.space_id)
        if size <= SCAN_MAX:
            return self._scan(size).text_search(where, text, limit)
        wanted = query_terms(text)
        stats = self.statistics.of(where.space_id, wanted, size)
        [found] = self._memories(where.space_id, [self._text(where, wanted, stats, limit)[:limit]])
        return found

    def keyword_search(self, where: MemoryFilter, keyword: str, limit: int,
                       exact: bool = False) -> list[ScoredMemory]:
        """A large space's keyword search: Lucene's fuzzy terms over `memory_content` find the
        candidates (every word required, each within its typo budget), which are then kept and
        scored by the typo rule of the warm path (cold_scan.keyword) — so a space is never
        read whole for a keyword. Words Lucene's analyzer could split are scanned as before."""
        typed = words(keyword)
        size = self._size(where.space_id)
        if not typed or not all(_PLAIN.fullmatch(w) for w in typed) or size <= SCAN_MAX:
            return self._scan(size).keyword_search(where, keyword, limit, exact)
        required = " ".join(f"+content:{w}" + ("" if exact or not max_edits(w)
                                                else f"~{max_edits(w)}") for w in typed)
        found = self._listed(cypher.BY_TEXT_INDEX, index=TEXT_INDEX, space=where.space_id,
                              lucene=f'+spaceId:"{where.space_id}" {required}',
                              k=min(KEYWORD_MAX, max(KEYWORD_MIN, KEYWORD_OVERSAMPLE * limit)))
        if not found:
            return []
        [chunk] = self._db.read(cypher.ROWS_BY_SEQ, space=where.space_id,
                                seqs=[int(r["seq"]) for r in found])
        rows = [ColdRow(int(q), None, str(c), "", str(x), bool(a)) for q, c, x, a in chunk["rows"]]
        [hits] = self._memories(where.space_id,
                                [cold_scan.keyword([rows], where, typed, limit, exact)])
        return hits

    def _by_vector(self, space_id: str, size: int, own: str | None, query: list[float],
                   limit: int) -> list[Any]:
        """The space's nearest memories: from its own vector index where it has one, else by
        the store-wide index, or by scoring every vector of the space inside Neo4j when that
        costs less: the store-wide index is asked for `k` over the whole store (k grows as the
        space's share shrinks), a scan costs its size; measured on this store at a million
        memories, a scanned row costs about a third of a k (EXACT_PER_K)."""
        if own is not None:
            return self._listed(cypher.BY_VECTOR_INDEX, index=own, vector=query,
                                 k=min(size, max(OWN_K_MIN, OWN_K_OVERSAMPLE * limit)),
                                 space=space_id)
        k = self._k(size, limit)
        if size <= EXACT_PER_K * k:
            return self._listed(cypher.BY_EXACT_COSINE, space=space_id, vector=query,
                                 k=min(size, max(TEXT_MIN, TEXT_OVERSAMPLE * limit)))
        return self._listed(cypher.BY_VECTOR_INDEX, index=VECTOR_INDEX, k=k, vector=query,
                             space=space_id)

    def _k(self, size: int, limit: int) -> int:
        total = int(self._db.read(cypher.STORE_SIZE)[0]["n"])
        share = max(size / max(total, 1), 1e-6)
        return min(MAX_K, max(limit, math.ceil(VECTOR_OVERSAMPLE * limit / share)))

    def _text(self, where: MemoryFilter, wanted: list[str], stats: cold_scan.SpaceStats,
              limit: int) -> list[tuple[int, float]]:
        """The admitted memories holding a query term, best first by BM25 with the space's own
        statistics. Lucene (whose statistics span the database) only picks the candidates:
        its best TEXT_OVERSAMPLE x limit (at least TEXT_MIN) over the index terms the warm
        ranking reads, the space required inside the query; each is then scored as the warm
        ranking would score it (cold_scan.text_scores)."""
        if not wanted:
            return []
        lucene = (f'+spaceId:"{where.space_id}" +(' +
                  " ".join(f"terms:{escaped(w)}" for w in wanted) + ")")
        rows = self._listed(cypher.BY_TEXT_INDEX, index=COLD_TERMS_INDEX, lucene=lucene,
                             k=min(TEXT_MAX, max(TEXT_MIN, TEXT_OVERSAMPLE * limit)),
                             space=where.space_id)
        scores = cold_scan.text_scores([(int(r["seq"]), str(r["terms"])) for r in rows],
                                       wanted, stats)
        candidates = [ColdRow(int(r["seq"]), None, str(r["category"]), "", "",
                              bool(r["active"])) for r in rows]
        keep = admitted(where, candidates)
        hits = [(c.seq, scores[c.seq]) for c, k in zip(candidates, keep, strict=True)
                if k and scores.get(c.seq, 0.0) > 0]
        return sorted(hits, key=lambda hit: (-hit[1], hit[0]))

    def _listed(self, statement: str, **params: Any) -> list[Any]:
        """A ranked list read as one record (cypher/cold.py: a map per candidate)."""
        [row] = self._db.read(statement, **params)
        rows: list[Any] = row["rows"]
        return rows

    def _kept(self, where: MemoryFilter, rows: list[Any], limit: int) -> list[tuple[int, float]]:
        """The index's (seq, score) the filter admits (cold_scan.admitted), best first."""
        candidates = [ColdRow(int(r["seq"]), None, str(r["category"]), "", "",
                              bool(r["active"])) for r in rows]
        keep = admitted(where, candidates)
        return [(c.seq, float(r["score"])) for c, r, k in zip(candidates, rows, keep, strict=True)
                if k][:limit]

    def _scan(self, size: int) -> ScanSearch:
        """The pass over a space whose last sequence number is known to be `size`."""
        # Its hybrid_heads reads heads, and the search reads only the answer's first few whole:
        # 100 candidates' heads and ten memories whole cost the store 2.5-3.5 ms of CPU against
        # 3.8-5.3 ms for the 100 whole, and the client half (bench/store_statements.py).
        return ScanSearch(lambda space_id, columns: self._rows(space_id, columns, size),
                          self._memories, self._heads)

    def _rows(self, space_id: str, columns: Columns,
              last: int | None = None) -> Iterator[Sequence[ColdRow]]:
        last = self._size(space_id) if last is None else last
        for start in range(0, last, CHUNK_ROWS):
            [chunk] = self._db.read(cypher.ROWS_IN_RANGE[columns], space=space_id, after=start,
                                    upto=min(start + CHUNK_ROWS, last))
            yield [ColdRow(int(s), v, str(c), t, str(x), bool(a))
                   for s, v, c, t, x, a in chunk["rows"]]

    def _memories(self, space_id: str,
                  lists: list[list[tuple[int, float]]]) -> list[list[ScoredMemory]]:
        return search.scored(lists, _pairs(self._db, space_id, lists))

    def _heads(self, space_id: str,
               lists: list[list[tuple[int, float]]]) -> list[list[ScoredHead]]:
        return search.scored_heads(lists, _pairs(self._db, space_id, lists, fetch.HEADS_BY_SEQ))


def _pairs(db: Neo4jConnection, space_id: str, lists: list[list[tuple[int, float]]],
           statement: str = fetch.MEMORIES_BY_SEQ) -> list[Any]:
    seqs = list({seq: None for hits in lists for seq, _ in hits})
    if not seqs:
        return []
    [row] = db.read(statement, space=space_id, seqs=seqs)
    return list(row["rows"])

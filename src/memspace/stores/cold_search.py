"""The cold path's searches (domain.search_paths.ColdSearch) over any store's chunked reader of a
space's rows (stores/cold_scan.py scores them; the store fetches the memories it ranked)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from memspace.domain.heads import HybridHeads, ScoredHead
from memspace.domain.models import HybridHits, MemoryFilter, ScoredMemory
from memspace.domain.ports import Vector
from memspace.domain.text import query_terms, words
from memspace.stores import cold_scan
from memspace.stores.cold_scan import HYBRID, KEYWORD, TEXT, VECTOR, ColdRow, Columns

# The rows of a space, chunk by chunk, with at least the columns named (the others may be
# left empty: None, "").
RowReader = Callable[[str, Columns], Iterable[Sequence[ColdRow]]]
# The memories of several lists of (seq, score), read together, in each list's order.
Fetch = Callable[[str, list[list[tuple[int, float]]]], list[list[ScoredMemory]]]
# The same with each memory's head only (domain/heads.py).
HeadFetch = Callable[[str, list[list[tuple[int, float]]]], list[list[ScoredHead]]]


class ScanSearch:
    """Hybrid, full-text, vector and keyword search by one pass over the space's rows."""

    def __init__(self, read: RowReader, fetch: Fetch, fetch_heads: HeadFetch | None = None
                 ) -> None:
        """`fetch_heads`: where a store reads heads for less than whole memories, hybrid_heads
        reads those (a search then reads only the answer's first few whole)."""
        self._read = read
        self._fetch = fetch
        self._fetch_heads = fetch_heads

    def close(self) -> None:
        """Nothing runs in the background."""

    def prepare(self, space_id: str, starting: Callable[[int], None] | None = None) -> int:
        """Nothing to build: a pass over the space's rows needs no index of its own."""
        return 0

    def hybrid_search(self, where: MemoryFilter, embedding: Vector, text: str,
                      limit: int) -> HybridHits:
        return HybridHits.of(*self._fetch(where.space_id,
                                          self._hybrid(where, embedding, text, limit)))

    def hybrid_heads(self, where: MemoryFilter, embedding: Vector, text: str,
                     limit: int) -> HybridHeads:
        """hybrid_search's memories as heads where the store reads them for less, else whole."""
        if self._fetch_heads is None:
            return HybridHeads.of_whole(self.hybrid_search(where, embedding, text, limit))
        return HybridHeads.of(*self._fetch_heads(where.space_id,
                                                 self._hybrid(where, embedding, text, limit)))

    def _hybrid(self, where: MemoryFilter, embedding: Vector, text: str,
                limit: int) -> list[list[tuple[int, float]]]:
        """Both rankings of one pass, with every candidate's cosine and text score."""
        terms = query_terms(text)
        hits = cold_scan.hybrid(self._read(where.space_id, HYBRID if terms else VECTOR), where,
                                np.asarray(embedding, dtype=np.float32), terms, limit)
        return [hits.by_vector, hits.by_text, hits.cosines, hits.text_scores]

    def text_search(self, where: MemoryFilter, text: str, limit: int) -> list[ScoredMemory]:
        hits = cold_scan.hybrid(self._read(where.space_id, TEXT), where, None, query_terms(text),
                                limit)
        [found] = self._fetch(where.space_id, [hits.by_text])
        return found

    def vector_search(self, where: MemoryFilter, embedding: Vector,
                      limit: int) -> list[ScoredMemory]:
        hits = cold_scan.hybrid(self._read(where.space_id, VECTOR), where,
                                np.asarray(embedding, dtype=np.float32), [], limit)
        [found] = self._fetch(where.space_id, [hits.by_vector])
        return found

    def keyword_search(self, where: MemoryFilter, keyword: str, limit: int,
                       exact: bool = False) -> list[ScoredMemory]:
        ranked = cold_scan.keyword(self._read(where.space_id, KEYWORD), where, words(keyword),
                                   limit, exact)
        [found] = self._fetch(where.space_id, [ranked])
        return found

"""The cold pass reads only the columns its search scores (stores/cold_search.py): on Neo4j each
column is a property fetched and sent for every row of the space."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

import numpy as np

from memspace.domain.models import MemoryFilter, ScoredMemory
from memspace.stores.cold_scan import HYBRID, KEYWORD, TEXT, VECTOR, ColdRow, Columns
from memspace.stores.cold_search import ScanSearch
from tests.support import builders as b

ROWS = [ColdRow(1, np.asarray([1.0, 0.0], np.float32).tobytes(), "general", "deploy friday",
                "Deploys happen on Friday", True),
        ColdRow(2, np.asarray([0.0, 1.0], np.float32).tobytes(), "general", "lunch noon",
                "Lunch is at noon", True)]


class _Reader:
    """Rows with only the columns asked for, as a store that leaves the rest out would."""

    def __init__(self) -> None:
        self.asked: list[Columns] = []

    def __call__(self, space_id: str, columns: Columns) -> Iterator[Sequence[ColdRow]]:
        self.asked.append(columns)
        yield [ColdRow(r.seq, r.vector if columns.vector else None, r.category,
                       r.terms if columns.terms else "", r.content if columns.content else "",
                       r.active) for r in ROWS]


def _fetch(space_id: str, lists: list[list[tuple[int, float]]]) -> list[list[ScoredMemory]]:
    """Each row's memory under the row's seq as its id."""
    return [[ScoredMemory(replace(b.memory(space_id, f"row {seq}"), id=str(seq)), score)
             for seq, score in hits] for hits in lists]


def _ids(hits: list[ScoredMemory]) -> list[str]:
    return [h.memory.id for h in hits]


def test_each_search_reads_the_columns_it_scores_and_ranks_as_with_every_column() -> None:
    reader = _Reader()
    scan = ScanSearch(reader, _fetch)
    where = MemoryFilter("space")
    hybrid = scan.hybrid_search(where, [1.0, 0.0], "deploy", 5)
    vector_only = scan.hybrid_search(where, [1.0, 0.0], "", 5)
    text = scan.text_search(where, "lunch", 5)
    keyword = scan.keyword_search(where, "lunch", 5)
    assert reader.asked == [HYBRID, VECTOR, TEXT, KEYWORD]
    assert _ids(hybrid.by_vector) == ["1", "2"] and _ids(hybrid.by_text) == ["1"]
    assert _ids(vector_only.by_vector) == ["1", "2"] and vector_only.by_text == []
    assert _ids(text) == ["2"] and _ids(keyword) == ["2"]

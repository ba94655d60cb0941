"""The embedded store's cold path (stores/cold_search.py): a space's rows read through its
index in chunks of rowids, the hits read back by rowid. SQLite as Python ships it loads no
vector extension (sqlite-vec needs `enable_load_extension`, which many builds leave out), so
the closest equivalent of a vector index is this: one pass over the space's rows, exact."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from memspace.domain.models import ScoredMemory
from memspace.stores.cold_scan import CHUNK_ROWS, ColdRow, Columns
from memspace.stores.cold_search import ScanSearch
from memspace.stores.sqlite import search
from memspace.stores.sqlite.connection import SqliteConnection

# One cursor over the space, read CHUNK_ROWS at a time (a keyset of rowids per chunk made
# SQLite sort the space's rows again for each chunk: no index is on (space_id, rowid) alone).
_ROWS = """
SELECT rowid, embedding, category, terms, content, active FROM memories WHERE space_id = ?
"""


class SqliteColdSearch(ScanSearch):
    def __init__(self, db: SqliteConnection) -> None:
        self._db = db
        super().__init__(self._rows, self._memories)

    def _rows(self, space_id: str, columns: Columns) -> Iterator[Sequence[ColdRow]]:
        """Every column: the rows are read from a local file, where a column left out saves
        next to nothing."""
        cursor = self._db.conn().execute(_ROWS, (space_id,))
        try:
            while chunk := cursor.fetchmany(CHUNK_ROWS):
                yield [ColdRow(int(r[0]), r[1], str(r[2]), r[3] or "", str(r[4]), bool(r[5]))
                       for r in chunk]
        finally:
            cursor.close()

    def _memories(self, space_id: str,
                  lists: list[list[tuple[int, float]]]) -> list[list[ScoredMemory]]:
        return search.lists_by_rowid(self._db.conn(), lists)

"""The embedded store's search hits as memories. Vectors, BM25 full text and keywords are
ranked in process (stores/vector_cache.py, stores/term_index.py, stores/keyword_index.py);
every kind of hit comes back as rowids, turned into memories here."""

from __future__ import annotations

import json
import sqlite3

from memspace.domain.models import MemoryFilter, ScoredMemory
from memspace.stores.sqlite.memories import filter_sql
from memspace.stores.sqlite.records import MEMORY_COLUMNS, memory_from_row


def by_rowid(conn: sqlite3.Connection, scored: list[tuple[int, float]]) -> list[ScoredMemory]:
    """The memories of (rowid, score) hits, in the hits' order."""
    [hits] = lists_by_rowid(conn, [scored])
    return hits


def lists_by_rowid(conn: sqlite3.Connection,
                   lists: list[list[tuple[int, float]]]) -> list[list[ScoredMemory]]:
    """The memories of several lists of (rowid, score) hits, read in one query."""
    wanted = list({r: None for scored in lists for r, _ in scored})
    if not wanted:
        return [[] for _ in lists]
    rows = conn.execute(
        f"SELECT rowid, {MEMORY_COLUMNS} FROM memories WHERE rowid IN "
        "(SELECT value FROM json_each(?))",
        (json.dumps(wanted),),
    ).fetchall()
    found = {r["rowid"]: memory_from_row(r) for r in rows}
    return [[ScoredMemory(found[r], s) for r, s in scored if r in found] for scored in lists]


def sliced_by_rowid(conn: sqlite3.Connection, where: MemoryFilter,
                    scored: list[tuple[int, float]], limit: int) -> list[ScoredMemory]:
    """Of the (rowid, score) hits, best first, the first `limit` the filter holds (a time
    slice: stores/sliced_ranking.py). The filter is checked on the hits' rowids alone; only
    the `limit` kept are read whole."""
    if not scored:
        return []
    condition, args = filter_sql(where)
    # CROSS JOIN keeps the hits as the outer loop: each is one rowid lookup. Left to itself,
    # SQLite answered the slice's conditions from the space's index, reading every memory of
    # the space (at 100,000 memories, ~20 ms a search).
    held = {int(row[0]) for row in conn.execute(
        "SELECT m.rowid FROM (SELECT value AS seq FROM json_each(?)) AS hits "
        f"CROSS JOIN memories AS m ON m.rowid = hits.seq WHERE {condition}",
        (json.dumps([r for r, _ in scored]), *args),
    )}
    return by_rowid(conn, [(r, s) for r, s in scored if r in held][:limit])

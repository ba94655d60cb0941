"""BM25 ranking over an FTS5 table, bounded so a common word does not cost a join per match.

FTS5 has no space column: a MATCH finds rows of every space, and the space, `active` and
category live in `memories`. Joining every match to `memories` before ranking cost two thirds
of a text search at 100,000 memories (bench/bench_stores.py data, 3 query terms matching
23,000 rows, busy 2 cores: 96 ms joined vs 31 ms ranking inside FTS5 alone). So FTS5 ranks
first and hands over a window of its best rows; only the window is checked against the filter.
When fewer than `limit` rows of a full window pass (other spaces, inactive rows or other
categories hold the top), the unbounded query runs instead, so the answer is the same either
way (up to the order of equal scores, which SQL never fixed).
"""

from __future__ import annotations

import json
import sqlite3

# The window is WINDOW_FACTOR x limit + WINDOW_MARGIN rows: in one space with few inactive rows
# nearly all of it passes; a deployment whose spaces share the table falls back more often.
WINDOW_FACTOR = 4
WINDOW_MARGIN = 100


def ranked(
    conn: sqlite3.Connection, table: str, match: str, filter_sql: str, args: list[object],
    limit: int,
) -> list[tuple[int, float]]:
    """(rowid, positive BM25 score) of the best `limit` rows of `table` matching `match` whose
    `memories` row (alias m) passes `filter_sql`, best first."""
    window = limit * WINDOW_FACTOR + WINDOW_MARGIN
    top = conn.execute(
        f"SELECT rowid, bm25({table}) AS rank FROM {table} WHERE {table} MATCH ? "
        "ORDER BY rank LIMIT ?",
        (match, window),
    ).fetchall()
    passing = {int(r[0]) for r in conn.execute(
        "SELECT m.rowid FROM memories m WHERE m.rowid IN (SELECT value FROM json_each(?)) "
        f"AND {filter_sql}",
        (json.dumps([r[0] for r in top]), *args),
    )} if top else set()
    kept = [(int(r[0]), r[1]) for r in top if r[0] in passing][:limit]
    if len(kept) < limit and len(top) == window:
        rows = conn.execute(
            f"SELECT f.rowid, bm25({table}) AS rank FROM {table} f "
            f"JOIN memories m ON m.rowid = f.rowid WHERE {table} MATCH ? AND {filter_sql} "
            "ORDER BY rank LIMIT ?",
            (match, *args, limit),
        ).fetchall()
        kept = [(int(r[0]), r[1]) for r in rows]
    # bm25() is lower-is-better and negative; report the usual positive score.
    return [(rowid, -float(rank)) for rowid, rank in kept]

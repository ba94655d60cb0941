"""On the embedded store: a short id's read (a search's answer names its memories by the
shortest unique prefix of their ids) seeks the ids it starts on the primary key's index, for
memories, documents and code chunks, instead of reading every row of the space and sorting
them (which SQLite prefers when left to choose)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memspace.stores.sqlite import SqliteStore
from memspace.stores.sqlite.records import ids_with_prefix_sql


@pytest.mark.parametrize("table", ["memories", "documents", "code_chunks"])
def test_a_prefix_read_seeks_the_ids_not_the_space(tmp_path: Path, table: str) -> None:
    SqliteStore(tmp_path / "memspace.db")  # the schema as a store makes it
    with sqlite3.connect(tmp_path / "memspace.db") as conn:
        conn.execute("ANALYZE")
        plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + ids_with_prefix_sql(table),
                                               ("0123abcd", "0123abce", "space", 4))]
    assert len(plan) == 1 and "(id>? AND id<?)" in plan[0], plan  # no sort: the index's order

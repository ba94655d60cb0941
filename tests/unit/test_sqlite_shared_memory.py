"""The in-memory SQLite store (the unit tests' store) is one shared-cache database for all
threads: a read in progress on one thread never fails a write on another ("database table is
locked", which no busy timeout waits out)."""

from __future__ import annotations

import threading

from memspace.stores.sqlite.connection import SqliteConnection


def test_a_write_beside_an_open_read_of_the_same_table_commits() -> None:
    db = SqliteConnection(":memory:")
    db.keeper.execute("CREATE TABLE notes (x INTEGER)")
    db.keeper.executemany("INSERT INTO notes VALUES (?)", [(i,) for i in range(100)])
    reading = db.conn().execute("SELECT x FROM notes")
    assert reading.fetchone() is not None  # the read statement stays open
    failed: list[BaseException] = []

    def write() -> None:
        try:
            with db.tx() as conn:
                conn.execute("INSERT INTO notes VALUES (100)")
        except BaseException as exc:  # reported below
            failed.append(exc)

    writer = threading.Thread(target=write)
    writer.start()
    writer.join(30)
    assert failed == []
    assert db.conn().execute("SELECT count(*) FROM notes").fetchone()[0] == 101
    db.close()

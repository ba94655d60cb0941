"""The in-memory SQLite store (the unit tests' store) is one shared-cache database for all
threads: a read in progress on one thread never fails a write on another ("database table is
locked", which no busy timeout waits out)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

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


def test_closing_the_store_never_closes_a_connection_another_thread_is_reading_through(
        tmp_path: Path) -> None:
    """close() closes its own thread's connection; another thread's (a space loading in the
    background) is left to finish what it reads and closes once nothing holds it: closed under
    it, the process crashed."""
    db = SqliteConnection(tmp_path / "store.db")
    db.keeper.execute("CREATE TABLE notes (x INTEGER)")
    db.keeper.executemany("INSERT INTO notes VALUES (?)", [(i,) for i in range(100)])
    opened, closed = threading.Event(), threading.Event()
    seen: list[object] = []

    def read() -> None:
        conn = db.conn()
        opened.set()
        closed.wait(30)
        try:
            seen.append(conn.execute("SELECT count(*) FROM notes").fetchone()[0])
        except BaseException as exc:  # reported below
            seen.append(exc)

    reader = threading.Thread(target=read)
    reader.start()
    assert opened.wait(30)
    db.close()
    closed.set()
    reader.join(30)
    assert seen == [100]
    with pytest.raises(sqlite3.ProgrammingError):
        db.keeper.execute("SELECT 1")  # this thread's own connection is closed

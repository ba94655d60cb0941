"""The SQLite file behind the embedded store: one connection per thread, and write transactions
that take the write lock up front (what neo4j/connection.py is for the server store)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memspace.domain.errors import Conflict, Unavailable

# How long a writer waits for another process's write lock before giving up (CLI beside server).
BUSY_TIMEOUT_MS = 10_000


class SqliteConnection:
    """`path` is a file (its folder is created) or `:memory:`, one database shared by threads."""

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        else:
            # One shared in-memory database for every thread of this store.
            self.path = f"file:memspace-{id(self)}?mode=memory&cache=shared"
        self._local = threading.local()
        self._all: dict[int, sqlite3.Connection] = {}  # by the thread that opened it
        self._lock = threading.Lock()
        self.keeper = self.conn()  # keeps a shared in-memory database alive

    @property
    def in_memory(self) -> bool:
        return self.path.startswith("file:")

    def conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = sqlite3.connect(
                    self.path, uri=self.in_memory, check_same_thread=False,
                    isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000,
                )
            except sqlite3.Error as exc:
                raise Unavailable(f"cannot open the SQLite store at {self.path}: {exc}") from exc
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            if self.in_memory:
                # A shared in-memory database locks whole tables, and a table lock is never
                # waited for (busy_timeout covers file locks only): a read on one thread beside
                # a write on another failed the write at once ("database table is locked").
                # Its readers take no table locks instead; a file store's WAL needs none of this.
                conn.execute("PRAGMA read_uncommitted = ON")
            self._local.conn = conn
            with self._lock:
                self._all[threading.get_ident()] = conn
        return conn

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        """A write transaction that takes the write lock up front (no upgrade deadlocks)."""
        conn = self.conn()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:  # another process holds the write lock
            raise Unavailable(
                f"the SQLite store is busy ({exc}) after waiting {BUSY_TIMEOUT_MS / 1000:.0f} s; "
                "retry shortly"
            ) from exc
        try:
            yield conn
        except sqlite3.IntegrityError as exc:
            conn.execute("ROLLBACK")
            raise Conflict(f"the change conflicts with stored data ({exc})") from exc
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            conn.execute("ROLLBACK")
            raise Unavailable(f"the SQLite store could not commit: {exc}") from exc

    def ping(self) -> None:
        try:
            self.conn().execute("SELECT 1").fetchone()
        except sqlite3.Error as exc:
            raise Unavailable(f"the SQLite store does not answer: {exc}") from exc

    def close(self) -> None:
        """Close this thread's connection now, and every other thread's as soon as nothing
        uses it: their threads' storage is dropped here, not their connections closed under
        them (closing a connection while another thread read through it crashed the process:
        a space loading in the background as its store closed)."""
        with self._lock:
            mine = self._all.pop(threading.get_ident(), None)
            self._all.clear()
        self._local = threading.local()
        if mine is not None:
            mine.close()

"""The embedded GraphStore: one SQLite file, FTS5 for text, exact vector scan, recursive CTEs.

Laid out like stores/neo4j/: the connection (connection.py), the rows it reads (records.py),
and one module per role (directory, memory_reads, memory_writes, relations, memory_search,
documents, ledger, handoffs), each role a class built over the kit (kit.py: the connection,
the vector cache, each space's counts). The store is its roles as attributes
(domain/graph_port.py: `store.reads.get_memory(...)`), the facts about the store as a whole,
and its lifecycle."""

from __future__ import annotations

from pathlib import Path

from memspace.stores.sqlite import directory
from memspace.stores.sqlite.connection import SqliteConnection
from memspace.stores.sqlite.directory import SqliteDirectory
from memspace.stores.sqlite.documents import SqliteDocuments
from memspace.stores.sqlite.handoffs import SqliteHandoffs
from memspace.stores.sqlite.kit import SqliteKit
from memspace.stores.sqlite.ledger import SqliteLedger
from memspace.stores.sqlite.memory_reads import SqliteMemoryReads
from memspace.stores.sqlite.memory_search import SqliteSearch
from memspace.stores.sqlite.memory_writes import SqliteMemoryWrites
from memspace.stores.sqlite.migrations import backfill_terms, migrate
from memspace.stores.sqlite.relations import SqliteRelations
from memspace.stores.vector_cache import VectorCache


class SqliteStore:
    """GraphStore on one SQLite file (or `:memory:` for tests), one connection per thread."""

    backend = "sqlite"  # the roles built beside it: stores/sqlite/roles.py

    def __init__(self, path: Path | str) -> None:
        self._db = SqliteConnection(path)
        # Snapshots of the vector cache beside the database file (stores/vector_snapshot.py).
        snapshots = None if self._db.in_memory else Path(self._db.path + ".vectors")
        self.vector_cache = VectorCache(snapshots)  # sizes exported by /metrics
        # What every role of this store, and those beside it (roles.py), is built over.
        self.kit = SqliteKit(self._db, self.vector_cache)
        self.directory = SqliteDirectory(self.kit)
        self.reads = SqliteMemoryReads(self.kit)
        self.writes = SqliteMemoryWrites(self.kit)
        self.relations = SqliteRelations(self.kit)
        self.search = SqliteSearch(self.kit)
        self.documents = SqliteDocuments(self.kit)
        self.ledger = SqliteLedger(self.kit)
        self.handoffs = SqliteHandoffs(self.kit)
        migrate(self._db.keeper)
        backfill_terms(self._db.keeper)

    def ping(self) -> None:
        self._db.ping()

    def store_info(self, key: str) -> str | None:
        return directory.info(self._db.conn(), key)

    def set_store_info(self, key: str, value: str) -> None:
        with self._db.tx() as conn:
            directory.set_info(conn, key, value)

    def holds_memories(self) -> bool:
        return directory.holds_memories(self._db.conn())

    def close(self) -> None:
        self._db.close()

"""The embedded GraphStore: one SQLite file, FTS5 for text, exact vector scan, recursive CTEs.

Laid out like stores/neo4j/: the connection (connection.py), the rows it reads (records.py),
and one module per role (directory, memory_reads, memory_writes, relations, memory_search,
documents, ledger, handoffs; oauth, note_jobs, repos, evidence, security, lifecycle,
space_settings, conflicts, consolidation), each role a class built over the kit (kit.py: the
connection, the vector cache, each space's counts). The store is its roles as attributes, all
built here (domain/graph_port.py: `store.reads.get_memory(...)`), its search paths (the
in-process cache and the cold path), the facts about the store as a whole, and its lifecycle."""

from __future__ import annotations

from pathlib import Path

from memspace.stores.space_cache import CacheRole
from memspace.stores.sqlite.cold import SqliteColdSearch
from memspace.stores.sqlite.conflicts import SqliteConflicts
from memspace.stores.sqlite.connection import SqliteConnection
from memspace.stores.sqlite.consolidation import SqliteConsolidation
from memspace.stores.sqlite.directory import SqliteDirectory
from memspace.stores.sqlite.documents import SqliteDocuments
from memspace.stores.sqlite.evidence import SqliteEvidence
from memspace.stores.sqlite.handoffs import SqliteHandoffs
from memspace.stores.sqlite.kit import SqliteKit
from memspace.stores.sqlite.ledger import SqliteLedger
from memspace.stores.sqlite.lifecycle import SqliteLifecycle
from memspace.stores.sqlite.memory_reads import SqliteMemoryReads
from memspace.stores.sqlite.memory_search import SqliteSearch
from memspace.stores.sqlite.memory_writes import SqliteMemoryWrites
from memspace.stores.sqlite.migrations import backfill_terms, migrate
from memspace.stores.sqlite.note_jobs import SqliteNoteJobs
from memspace.stores.sqlite.oauth import SqliteOAuthStore
from memspace.stores.sqlite.relations import SqliteRelations
from memspace.stores.sqlite.repos import SqliteRepos
from memspace.stores.sqlite.security import SqliteSecurity
from memspace.stores.sqlite.space_settings import SqliteSpaceSettings
from memspace.stores.vector_cache import VectorCache


class SqliteStore:
    """GraphStore on one SQLite file (or `:memory:` for tests), one connection per thread."""

    backend = "sqlite"

    def __init__(self, path: Path | str) -> None:
        self._db = SqliteConnection(path)
        # Snapshots of the vector cache beside the database file (stores/vector_snapshot.py).
        snapshots = None if self._db.in_memory else Path(self._db.path + ".vectors")
        self.vector_cache = VectorCache(snapshots)  # sizes exported by /metrics
        self.kit = SqliteKit(self._db, self.vector_cache)  # what every role is built over
        self.directory = SqliteDirectory(self.kit)
        self.reads = SqliteMemoryReads(self.kit)
        self.writes = SqliteMemoryWrites(self.kit)
        self.relations = SqliteRelations(self.kit)
        self.search = SqliteSearch(self.kit)
        self.documents = SqliteDocuments(self.kit)
        self.ledger = SqliteLedger(self.kit)
        self.handoffs = SqliteHandoffs(self.kit)
        self.oauth = SqliteOAuthStore(self.kit)
        self.note_jobs = SqliteNoteJobs(self.kit)
        self.code_index = SqliteRepos(self.kit)
        self.evidence = SqliteEvidence(self.kit)
        self.security = SqliteSecurity(self.kit)
        self.marks = SqliteLifecycle(self.kit)
        self.texts = SqliteSpaceSettings(self.kit)
        self.conflicts = SqliteConflicts(self.kit)
        self.consolidation = SqliteConsolidation(self.kit)
        # The search paths (docs/scaling.md): spaces held in memory, loaded through `search`,
        # and the scan of a space that is not.
        self.cache = CacheRole(self.vector_cache, self.search)
        self.cold = SqliteColdSearch(self._db)
        migrate(self._db.keeper)
        backfill_terms(self._db.keeper)

    def ping(self) -> None:
        self._db.ping()

    def store_info(self, key: str) -> str | None:
        row = self._db.conn().execute("SELECT value FROM store_info WHERE key = ?",
                                      (key,)).fetchone()
        return str(row[0]) if row else None

    def set_store_info(self, key: str, value: str) -> None:
        with self._db.tx() as conn:
            conn.execute("INSERT INTO store_info (key, value) VALUES (?, ?) "
                         "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))

    def holds_memories(self) -> bool:
        return self._db.conn().execute("SELECT 1 FROM memories LIMIT 1").fetchone() is not None

    def close(self) -> None:
        self._db.close()

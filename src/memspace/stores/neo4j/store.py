"""GraphStore on Neo4j 5.26 (Community or Enterprise) through the official Bolt driver.

Spaces are a property (`spaceId`) in the one database, and every query names the space.
Driver errors stop at connection.Neo4jConnection: constraint violations become `Conflict`,
everything else `Unavailable` naming the URI.

Laid out like stores/sqlite/: the connection (connection.py), the records it reads
(records.py), the Cypher (cypher/, one module per role), search (search.py), and one module
per role (directory, memory_reads, memory_writes, relations, memory_search, documents, ledger,
handoffs; oauth, note_jobs, repos, evidence, security, lifecycle, space_settings, conflicts,
consolidation), each role a class built over the kit they share (kit.py: the connection, the
writers' turns, the vector cache, each space's counts). The store is its roles as attributes,
all built here (domain/graph_port.py: `store.reads.get_memory(...)`), its search paths (the
in-process cache and the cold path), the facts about the store as a whole, and its lifecycle.
"""

from __future__ import annotations

from pathlib import Path

from memspace.domain.indexing import IndexState
from memspace.stores.neo4j import directory
from memspace.stores.neo4j.cold import Neo4jColdSearch
from memspace.stores.neo4j.conflicts import Neo4jConflicts
from memspace.stores.neo4j.connection import Neo4jConnection
from memspace.stores.neo4j.consolidation import Neo4jConsolidation
from memspace.stores.neo4j.cypher.cold import AWAIT_TEXT_INDEXES
from memspace.stores.neo4j.directory import Neo4jDirectory
from memspace.stores.neo4j.documents import Neo4jDocuments
from memspace.stores.neo4j.evidence import Neo4jEvidence
from memspace.stores.neo4j.handoffs import Neo4jHandoffs
from memspace.stores.neo4j.indexing import index_states
from memspace.stores.neo4j.kit import Neo4jKit
from memspace.stores.neo4j.ledger import Neo4jLedger
from memspace.stores.neo4j.lifecycle import Neo4jLifecycle
from memspace.stores.neo4j.lifecycle_backfill import backfill_lifecycle
from memspace.stores.neo4j.memory_backfill import backfill_follows, backfill_terms
from memspace.stores.neo4j.memory_reads import Neo4jMemoryReads
from memspace.stores.neo4j.memory_search import Neo4jSearch
from memspace.stores.neo4j.memory_writes import Neo4jMemoryWrites
from memspace.stores.neo4j.note_jobs import Neo4jNoteJobs
from memspace.stores.neo4j.oauth import Neo4jOAuthStore
from memspace.stores.neo4j.relation_backfill import backfill_edge_spaces
from memspace.stores.neo4j.relations import Neo4jRelations
from memspace.stores.neo4j.repos import Neo4jRepos
from memspace.stores.neo4j.schema import ensure_schema
from memspace.stores.neo4j.security import Neo4jSecurity
from memspace.stores.neo4j.space_settings import Neo4jSpaceSettings
from memspace.stores.neo4j.valid_time_backfill import backfill_valid_time
from memspace.stores.neo4j.vector_index import IndexFeed
from memspace.stores.space_cache import CacheRole
from memspace.stores.vector_cache import VectorCache


class Neo4jStore:
    """GraphStore on a Neo4j server; the schema is created (idempotently) on construction.

    Raises:
        Unavailable: from the constructor and every method, when the server does not answer
            within `connect_timeout_s` per attempt and `retry_window_s` in all.
    """

    backend = "neo4j"

    def __init__(
        self,
        uri: str,
        user: str = "neo4j",
        password: str | None = None,
        database: str | None = None,
        connect_timeout_s: float = 3.0,
        retry_window_s: float = 5.0,
        snapshot_dir: Path | None = None,
    ) -> None:
        """`snapshot_dir`: where the vector cache is saved for the next start
        (stores/vector_snapshot.py); None reads every space's vectors from Neo4j again."""
        self._db = Neo4jConnection(uri, user, password, database, connect_timeout_s, retry_window_s)
        self.vector_cache = VectorCache(snapshot_dir)  # sizes exported by /metrics
        self.kit = Neo4jKit(self._db, self.vector_cache)  # what every role is built over
        try:
            self._db.retrying(lambda: ensure_schema(self._db.driver, database))
            backfill_terms(self._db)
            backfill_follows(self._db)
            backfill_lifecycle(self._db)
            backfill_valid_time(self._db)
            backfill_edge_spaces(self._db)
            # Each of these makes its own constraints and indexes as it is built.
            self.oauth = Neo4jOAuthStore(self.kit)
            self.note_jobs = Neo4jNoteJobs(self.kit)
            self.code_index = Neo4jRepos(self.kit)
            self.evidence = Neo4jEvidence(self.kit)
            self.security = Neo4jSecurity(self.kit)
            self.consolidation = Neo4jConsolidation(self.kit)
        except BaseException:
            self._db.close()
            raise
        self._feed = IndexFeed(self._db)  # the vector index's property, set after each write
        self.directory = Neo4jDirectory(self.kit)
        self.reads = Neo4jMemoryReads(self.kit)
        self.writes = Neo4jMemoryWrites(self.kit, self._feed)
        self.relations = Neo4jRelations(self.kit)
        self.search = Neo4jSearch(self.kit)
        self.documents = Neo4jDocuments(self.kit)
        self.ledger = Neo4jLedger(self.kit)
        self.handoffs = Neo4jHandoffs(self.kit)
        self.marks = Neo4jLifecycle(self.kit)
        self.texts = Neo4jSpaceSettings(self.kit)
        self.conflicts = Neo4jConflicts(self.kit)
        # The search paths (docs/scaling.md): spaces held in memory, loaded through `search`,
        # and the search inside Neo4j of a space that is not.
        self.cache = CacheRole(self.vector_cache, self.search)
        self.cold = Neo4jColdSearch(self._db)

    def ping(self) -> None:
        self._db.ping()

    def store_info(self, key: str) -> str | None:
        return directory.store_info(self._db, key)

    def set_store_info(self, key: str, value: str) -> None:
        directory.set_store_info(self._db, key, value)

    def holds_memories(self) -> bool:
        return directory.holds_memories(self._db)

    def index_states(self) -> list[IndexState]:
        """Every index and its state: a fresh load's may still be populating."""
        return index_states(self._db)

    def close(self) -> None:
        self._feed.close()
        self._db.close()

    def flush_vector_index(self, timeout_s: float | None = None) -> bool:
        """Wait until every memory written so far is in Neo4j's vector index and its full-text
        indexes (what a large cold space is searched through, stores/neo4j/cold.py; memspace's
        searches do not wait for them: the benches do)."""
        flushed = self._feed.flush(timeout_s)
        self._db.read(AWAIT_TEXT_INDEXES)
        return flushed

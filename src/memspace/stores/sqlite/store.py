"""The embedded GraphStore: one SQLite file, FTS5 for text, exact vector scan, recursive CTEs.

Laid out like stores/neo4j/: the connection (connection.py), the rows it reads (records.py),
search (search.py), and one module of statements per role (directory, memories, relations,
ledger, handoffs, documents); this class holds the transactions and the vector cache.
The spaces and keys, the ledger, handoffs and documents are role objects over the kit (kit.py)
whose methods it passes on as its own."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path

import numpy as np

from memspace.domain.models import (
    HybridHits,
    Memory,
    MemoryFilter,
    ScoredMemory,
    SpaceStats,
)
from memspace.domain.ports import Vector, WriteBatch
from memspace.domain.text import query_terms, words
from memspace.stores.sliced_ranking import sliced
from memspace.stores.space_counts import SpaceCounts
from memspace.stores.space_vectors import Row as CacheRow
from memspace.stores.sqlite import directory, memories, search
from memspace.stores.sqlite.connection import SqliteConnection
from memspace.stores.sqlite.directory import SqliteDirectory
from memspace.stores.sqlite.documents import SqliteDocuments
from memspace.stores.sqlite.handoffs import SqliteHandoffs
from memspace.stores.sqlite.kit import SqliteKit
from memspace.stores.sqlite.ledger import SqliteLedger
from memspace.stores.sqlite.memory_reads import SqliteMemoryReads
from memspace.stores.sqlite.migrations import backfill_terms, migrate
from memspace.stores.sqlite.relations import SqliteRelations
from memspace.stores.vector_cache import VectorCache


class SqliteStore:
    """GraphStore on one SQLite file (or `:memory:` for tests), one connection per thread."""

    backend = "sqlite"  # its role objects: stores/sqlite/roles.py

    def __init__(self, path: Path | str) -> None:
        self._db = SqliteConnection(path)
        self.concurrent_reads = not self._db.in_memory  # WAL: readers beside the writer
        # Snapshots of the vector cache beside the database file (stores/vector_snapshot.py).
        snapshots = None if self._db.in_memory else Path(self._db.path + ".vectors")
        self._vectors = self.vector_cache = VectorCache(snapshots)  # sizes exported by /metrics
        # What the roles beside this store are built over (stores/sqlite/roles.py).
        self.kit = SqliteKit(self._db, self._vectors)
        self._pass_on_roles()
        self._counts = SpaceCounts()  # memories and relations per space, by version
        migrate(self._db.keeper)
        backfill_terms(self._db.keeper)

    def _pass_on_roles(self) -> None:
        """The roles the store passes on as they are, each over the kit: their methods become
        the store's (GraphStore is all of them at once)."""
        directory_role = SqliteDirectory(self.kit)
        self.create_space = directory_role.create_space
        self.get_space = directory_role.get_space
        self.get_space_by_slug = directory_role.get_space_by_slug
        self.list_spaces = directory_role.list_spaces
        self.create_key = directory_role.create_key
        self.get_key = directory_role.get_key
        self.get_key_by_hash = directory_role.get_key_by_hash
        self.list_keys = directory_role.list_keys
        self.revoke_key = directory_role.revoke_key
        self.set_active_space = directory_role.set_active_space
        reads_role = SqliteMemoryReads(self.kit)
        self.get_memory = reads_role.get_memory
        self.find_active_by_hash = reads_role.find_active_by_hash
        self.existing_hashes = reads_role.existing_hashes
        self.latest_by_writer = reads_role.latest_by_writer
        self.list_memories = reads_role.list_memories
        self.memories_of_document = reads_role.memories_of_document
        self.list_changes = reads_role.list_changes
        relation_role = SqliteRelations(self.kit)
        self.relations_of = relation_role.relations_of
        self.open_conflicts = relation_role.open_conflicts
        self.relations_among = relation_role.relations_among
        self.neighbours = relation_role.neighbours
        document_role = SqliteDocuments(self.kit)
        self.add_document = document_role.add_document
        self.get_document = document_role.get_document
        self.list_documents = document_role.list_documents
        self.update_document = document_role.update_document
        self.find_document_by_sha256 = document_role.find_document_by_sha256
        self.documents_with_status = document_role.documents_with_status
        self.claim_document = document_role.claim_document
        self.release_document = document_role.release_document
        ledger_role = SqliteLedger(self.kit)
        self.record_usage = ledger_role.record_usage
        self.usage_totals = ledger_role.usage_totals
        self.claim_idempotency = ledger_role.claim_idempotency
        self.complete_idempotency = ledger_role.complete_idempotency
        self.release_idempotency = ledger_role.release_idempotency
        handoff_role = SqliteHandoffs(self.kit)
        self.add_handoff = handoff_role.add_handoff
        self.latest_handoff = handoff_role.latest_handoff
        self.list_handoffs = handoff_role.list_handoffs

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

    # -- spaces and keys ----------------------------------------------------------------------

    def space_stats(self, space_id: str) -> SpaceStats:
        """Memory and relation counts are recounted only when the space's version moved (every
        write bumps it): counting 100,000 rows took 10 ms of each search's profile."""
        conn = self._db.conn()
        version = self.vector_version(space_id)
        counted = self._counts.get(space_id)
        if counted is None or counted.version != version:
            counted = replace(directory.stats(conn, space_id), version=version)
            self._counts.keep(space_id, counted)
        return replace(counted, documents=directory.document_count(conn, space_id))

    # -- memories -----------------------------------------------------------------------------

    def write(self, batch: WriteBatch) -> None:
        with self._db.tx() as conn:
            version = memories.write(conn, batch)
        self._counts.advance(batch.space_id, version, [batch])

    def forget(self, space_id: str, memory_id: str, reason: str, by: str, at: datetime) -> Memory:
        with self._db.tx() as conn:
            memories.forget(conn, space_id, memory_id, reason, by, at)
        memory = self.get_memory(space_id, memory_id)
        assert memory is not None
        return memory

    # -- search -------------------------------------------------------------------------------

    def vector_search(self, where: MemoryFilter, embedding: Vector, limit: int) -> list[ScoredMemory]:
        return search.by_rowid(self._db.conn(), self._vector_hits(where, embedding, limit))

    def nearest_active(self, space_id: str, embedding: Vector, limit: int,
                       min_score: float) -> list[ScoredMemory]:
        if self._vectors.bounded_and_cold(space_id):
            return []  # a hint: not worth loading the space inside the add (docs/scaling.md)
        close = [hit for hit in self._vector_hits(MemoryFilter(space_id), embedding, limit)
                 if hit[1] >= min_score]
        return [h for h in search.by_rowid(self._db.conn(), close) if h.memory.active]

    def text_search(self, where: MemoryFilter, text: str, limit: int) -> list[ScoredMemory]:
        """BM25 over the memories' index terms (domain.text.index_terms), any query term, with
        the space's own statistics (stores/term_index.py, held by the vector cache)."""
        return search.by_rowid(self._db.conn(), self._vectors.text_top_k(
            self, where.space_id, query_terms(text), limit, where.category,
            where.include_inactive))

    def hybrid_search(self, where: MemoryFilter, embedding: Vector, text: str,
                      limit: int) -> HybridHits:
        """Both lists ranked on the cache, their memories read in one query."""
        hits = self._vectors.hybrid_top_k(self, where.space_id,
                                          np.asarray(embedding, dtype=np.float32),
                                          query_terms(text), limit, where.category,
                                          where.include_inactive)
        return HybridHits.of(*search.lists_by_rowid(self._db.conn(), [
            hits.by_vector, hits.by_text, hits.cosines, hits.text_scores]))

    def _vector_hits(self, where: MemoryFilter, embedding: Vector,
                     limit: int) -> list[tuple[int, float]]:
        return self._vectors.top_k(self, where.space_id, np.asarray(embedding, dtype=np.float32),
                                   limit, where.category, where.include_inactive)

    def keyword_search(self, where: MemoryFilter, keyword: str, limit: int,
                       exact: bool = False) -> list[ScoredMemory]:
        """Every word of `keyword`, typos tolerated unless `exact`, ranked on the cache
        (stores/keyword_index.py)."""
        typed, conn = words(keyword), self._db.conn()
        inactive = where.include_inactive or where.at is not None  # a slice reads every version

        def rank(depth: int) -> list[tuple[int, float]]:
            return self._vectors.keyword_top_k(self, where.space_id, typed, depth,
                                               where.category, inactive, exact=exact)

        if where.at is None:
            return search.by_rowid(conn, rank(limit))

        def read(depth: int) -> tuple[int, list[ScoredMemory]]:  # docs/time.md
            ranked = rank(depth)
            return len(ranked), search.sliced_by_rowid(conn, where, ranked, limit)

        return sliced(read, limit)

    # VectorSource: the rowid is the sequence number (rows are never deleted).

    def vector_version(self, space_id: str) -> int:
        row = self._db.conn().execute(
            "SELECT version FROM spaces WHERE id = ?", (space_id,)).fetchone()
        return int(row[0]) if row else 0

    def vectors_after(self, space_id: str, after_seq: int) -> list[CacheRow]:
        # A refresh reads the newest rows: walk the rowid range past the last one seen (`+`
        # keeps SQLite off the space's index, which made it visit and sort all 100,000 rows of
        # the space: 10 ms per add). A first load reads the space through its index.
        space_filter = "+space_id = ?" if after_seq else "space_id = ?"
        rows = self._db.conn().execute(
            "SELECT rowid, embedding, category, terms, content FROM memories "
            f"WHERE rowid > ? AND {space_filter} ORDER BY rowid",
            (after_seq, space_id),
        ).fetchall()
        return [(int(r[0]), r[1], str(r[2]), r[3] or "", str(r[4])) for r in rows]

    def inactive_seqs(self, space_id: str, upto_seq: int) -> list[int]:
        rows = self._db.conn().execute(
            "SELECT rowid FROM memories WHERE space_id = ? AND active = 0 AND rowid <= ?",
            (space_id, upto_seq),
        ).fetchall()
        return [int(r[0]) for r in rows]

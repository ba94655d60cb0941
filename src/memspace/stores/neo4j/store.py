"""GraphStore on Neo4j 5.26 (Community or Enterprise) through the official Bolt driver.

Spaces are a property (`spaceId`) in the one database, and every query names the space.
Driver errors stop at connection.Neo4jConnection: constraint violations become `Conflict`,
everything else `Unavailable` naming the URI.

Laid out like stores/sqlite/: the connection (connection.py), the records it reads
(records.py), the Cypher (cypher/, one module per role), search (search.py), and one module
per role (directory, memories, relations, ledger, handoffs, documents); this class holds the
group commit, and the kit its roles share (kit.py: the connection, the writers' turns, the
vector cache). The spaces and keys, the ledger, handoffs and documents are role objects
over that kit whose methods it passes on as its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
from memspace.stores.neo4j import (
    directory,
    memories,
    search,
)
from memspace.stores.neo4j.connection import Neo4jConnection
from memspace.stores.neo4j.directory import Neo4jDirectory
from memspace.stores.neo4j.documents import Neo4jDocuments
from memspace.stores.neo4j.group_commit import GroupCommit
from memspace.stores.neo4j.handoffs import Neo4jHandoffs
from memspace.stores.neo4j.kit import Neo4jKit
from memspace.stores.neo4j.ledger import Neo4jLedger
from memspace.stores.neo4j.lifecycle_backfill import backfill_lifecycle
from memspace.stores.neo4j.memory_backfill import backfill_follows, backfill_terms
from memspace.stores.neo4j.memory_reads import Neo4jMemoryReads
from memspace.stores.neo4j.relations import Neo4jRelations
from memspace.stores.neo4j.schema import ensure_schema
from memspace.stores.neo4j.valid_time_backfill import backfill_valid_time
from memspace.stores.neo4j.vector_index import IndexFeed
from memspace.stores.space_counts import SpaceCounts
from memspace.stores.space_vectors import Row as CacheRow
from memspace.stores.vector_cache import VectorCache


class Neo4jStore:
    """GraphStore on a Neo4j server; the schema is created (idempotently) on construction.

    Raises:
        Unavailable: from the constructor and every method, when the server does not answer
            within `connect_timeout_s` per attempt and `retry_window_s` in all.
    """

    backend = "neo4j"  # its role objects: stores/neo4j/roles.py
    concurrent_reads = True

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
        self._vectors = self.vector_cache = VectorCache(snapshot_dir)  # sizes exported by /metrics
        # What the roles beside this store are built over (stores/neo4j/roles.py).
        self.kit = Neo4jKit(self._db, self._vectors)
        self._pass_on_roles()
        self._space_turn = self.kit.turn  # this process's writers of a space take turns
        self._groups: GroupCommit[WriteBatch] = GroupCommit(self._write_group)
        self._counts = SpaceCounts()  # memories and relations per space, by version
        try:
            self._db.retrying(lambda: ensure_schema(self._db.driver, database))
            backfill_terms(self._db)
            backfill_follows(self._db)
            backfill_lifecycle(self._db)
            backfill_valid_time(self._db)
        except BaseException:
            self._db.close()
            raise
        self._feed = IndexFeed(self._db)  # the vector index's property, set after each write

    def _pass_on_roles(self) -> None:
        """The roles the store passes on as they are, each over the kit: their methods become
        the store's (GraphStore is all of them at once)."""
        directory_role = Neo4jDirectory(self.kit)
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
        reads_role = Neo4jMemoryReads(self.kit)
        self.get_memory = reads_role.get_memory
        self.find_active_by_hash = reads_role.find_active_by_hash
        self.existing_hashes = reads_role.existing_hashes
        self.latest_by_writer = reads_role.latest_by_writer
        self.list_memories = reads_role.list_memories
        self.memories_of_document = reads_role.memories_of_document
        self.list_changes = reads_role.list_changes
        relation_role = Neo4jRelations(self.kit)
        self.relations_of = relation_role.relations_of
        self.open_conflicts = relation_role.open_conflicts
        self.relations_among = relation_role.relations_among
        self.neighbours = relation_role.neighbours
        document_role = Neo4jDocuments(self.kit)
        self.add_document = document_role.add_document
        self.get_document = document_role.get_document
        self.list_documents = document_role.list_documents
        self.update_document = document_role.update_document
        self.find_document_by_sha256 = document_role.find_document_by_sha256
        self.documents_with_status = document_role.documents_with_status
        self.claim_document = document_role.claim_document
        self.release_document = document_role.release_document
        ledger_role = Neo4jLedger(self.kit)
        self.record_usage = ledger_role.record_usage
        self.usage_totals = ledger_role.usage_totals
        self.claim_idempotency = ledger_role.claim_idempotency
        self.complete_idempotency = ledger_role.complete_idempotency
        self.release_idempotency = ledger_role.release_idempotency
        handoff_role = Neo4jHandoffs(self.kit)
        self.add_handoff = handoff_role.add_handoff
        self.latest_handoff = handoff_role.latest_handoff
        self.list_handoffs = handoff_role.list_handoffs

    def ping(self) -> None:
        self._db.ping()

    def store_info(self, key: str) -> str | None:
        return directory.store_info(self._db, key)

    def set_store_info(self, key: str, value: str) -> None:
        directory.set_store_info(self._db, key, value)

    def holds_memories(self) -> bool:
        return directory.holds_memories(self._db)

    def close(self) -> None:
        self._feed.close()
        self._db.close()

    def flush_vector_index(self, timeout_s: float | None = None) -> bool:
        """Wait until every memory written so far is in Neo4j's vector index (ad-hoc Cypher's
        `db.index.vector.queryNodes`; memspace's searches do not wait for it)."""
        return self._feed.flush(timeout_s)

    # -- spaces and keys ----------------------------------------------------------------------

    def space_stats(self, space_id: str) -> SpaceStats:
        known = self._counts.get(space_id)
        row = directory.stats(self._db, space_id, known.version if known is not None else -1)
        if row["active"] is None and known is not None:  # unchanged since last counted
            return replace(known, documents=row["documents"])
        stats = SpaceStats(row["active"], row["inactive"], row["relations"], row["documents"],
                           int(row["version"]))
        self._counts.keep(space_id, stats)
        return stats

    # -- memories -----------------------------------------------------------------------------

    def write(self, batch: WriteBatch) -> None:
        if memories.groupable(batch):
            self._groups.submit(batch.space_id, batch)
            return
        version = memories.write(self._db, self._space_turn, self._vectors, self._feed, batch)
        self._counts.advance(batch.space_id, version, [batch])

    def _write_group(self, space: str, batches: Sequence[WriteBatch]) -> list[BaseException | None]:
        outcomes, version = memories.write_group(self._db, self._space_turn, self._vectors,
                                                 self._feed, space, batches)
        self._counts.advance(space, version, [b for b, o in zip(batches, outcomes, strict=True)
                                              if o is None])
        return outcomes

    def forget(self, space_id: str, memory_id: str, reason: str, by: str, at: datetime) -> Memory:
        return memories.forget(self._db, self._space_turn, space_id, memory_id, reason, by, at)

    # -- search -------------------------------------------------------------------------------

    def vector_search(self, where: MemoryFilter, embedding: Vector, limit: int) -> list[ScoredMemory]:
        """Exact, from the in-process cache of the space's vectors (see stores/vector_cache.py)."""
        query = np.asarray(embedding, dtype=np.float32)
        return self._one_list(where, lambda version: self._vectors.top_k(
            self, where.space_id, query, limit, where.category, where.include_inactive, version))

    def text_search(self, where: MemoryFilter, text: str, limit: int) -> list[ScoredMemory]:
        """BM25 over the memories' index terms (domain.text.index_terms), any query term, with
        the space's own statistics (stores/term_index.py, held by the vector cache)."""
        terms = query_terms(text)
        return self._one_list(where, lambda version: self._vectors.text_top_k(
            self, where.space_id, terms, limit, where.category, where.include_inactive, version))

    def _one_list(self, where: MemoryFilter,
                  rank: Callable[[int | None], list[tuple[int, float]]]) -> list[ScoredMemory]:
        [hits] = search.lists_from_cache(self._db, self._vectors, where,
                                         lambda version: [rank(version)])
        return hits

    def hybrid_search(self, where: MemoryFilter, embedding: Vector, text: str,
                      limit: int) -> HybridHits:
        """Both lists ranked on the cache, their memories fetched in one round trip (two reads
        of 50 records each took 16 ms of a 50 ms search at 100,000 memories)."""
        query = np.asarray(embedding, dtype=np.float32)
        terms = query_terms(text)

        def rank(version: int | None) -> list[list[tuple[int, float]]]:
            hits = self._vectors.hybrid_top_k(self, where.space_id, query, terms, limit,
                                              where.category, where.include_inactive, version)
            return [hits.by_vector, hits.by_text, hits.cosines, hits.text_scores]

        return HybridHits.of(*search.lists_from_cache(self._db, self._vectors, where, rank))

    def nearest_active(self, space_id: str, embedding: Vector, limit: int,
                       min_score: float) -> list[ScoredMemory]:
        """Ranked on the cache as it is (no version read: with writers committing all the
        time, checking it made most similar-on-save lookups read twice), fetched only when a
        memory is close enough. A memory deactivated since the cache last looked is dropped
        by its record; twice `limit` are ranked so that one such does not shorten the list."""
        if self._vectors.bounded_and_cold(space_id):
            return []  # a hint: not worth loading the space inside the add (docs/scaling.md)
        ranked = self._vectors.top_k(self, space_id, np.asarray(embedding, dtype=np.float32),
                                     2 * limit, None, False, self._vectors.version_of(space_id))
        close = [hit for hit in ranked if hit[1] >= min_score]
        return [h for h in search.by_seq(self._db, space_id, close)
                if h.memory.active][:limit]

    def keyword_search(self, where: MemoryFilter, keyword: str, limit: int,
                       exact: bool = False) -> list[ScoredMemory]:
        """Every word of `keyword`, typos tolerated unless `exact`, ranked on the cache
        (stores/keyword_index.py)."""
        typed = words(keyword)
        inactive = where.include_inactive or where.at is not None  # a slice reads every version

        def rank(depth: int, version: int | None) -> list[tuple[int, float]]:
            return self._vectors.keyword_top_k(self, where.space_id, typed, depth,
                                               where.category, inactive, version, exact)

        if where.at is not None:  # the slice is kept in the fetch (docs/time.md)
            return search.sliced_from_cache(self._db, self._vectors, where, rank, limit)
        return self._one_list(where, lambda version: rank(limit, version))

    # VectorSource

    def vector_version(self, space_id: str) -> int:
        return search.vector_version(self._db, space_id)

    def vectors_after(self, space_id: str, after_seq: int) -> list[CacheRow]:
        return search.vectors_after(self._db, space_id, after_seq)

    def inactive_seqs(self, space_id: str, upto_seq: int) -> list[int]:
        return search.inactive_seqs(self._db, space_id, upto_seq)

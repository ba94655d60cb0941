"""GraphStore on Neo4j 5.26 (Community or Enterprise) through the official Bolt driver.

Spaces are a property (`spaceId`) in the one database, and every query names the space.
Driver errors stop at connection.Neo4jConnection: constraint violations become `Conflict`,
everything else `Unavailable` naming the URI.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import numpy as np
from neo4j import Transaction

from memspace.domain.errors import Conflict, DuplicateContent, NotFound
from memspace.domain.models import (
    ApiKey,
    Document,
    DocumentStatus,
    Handoff,
    Memory,
    MemoryFilter,
    Neighbour,
    Relation,
    RelationType,
    ScoredMemory,
    Space,
    SpaceStats,
    Usage,
)
from memspace.domain.ports import Change, ChangeAfter, PageAfter, Vector, WriteBatch
from memspace.domain.text import index_terms, query_terms
from memspace.stores.neo4j import cypher, search
from memspace.stores.neo4j import records as rec
from memspace.stores.neo4j.connection import Neo4jConnection, Row
from memspace.stores.neo4j.group_commit import GroupCommit
from memspace.stores.neo4j.schema import ensure_schema
from memspace.stores.vector_cache import Row as CacheRow
from memspace.stores.vector_cache import VectorCache

# Memory ids whose sequence numbers a store remembers from its last fetches (~100 bytes each):
# enough for the hits of many concurrent searches.
SEQS_REMEMBERED = 10_000


class Neo4jStore:
    """GraphStore on a Neo4j server; the schema is created (idempotently) on construction.

    Raises:
        Unavailable: from the constructor and every method, when the server does not answer
            within `connect_timeout_s` per attempt and `retry_window_s` in all.
    """

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
        self._space_locks: dict[str, threading.Lock] = {}
        self._groups: GroupCommit[WriteBatch] = GroupCommit(self._write_group)
        self._seq_of: OrderedDict[str, int] = OrderedDict()  # memory id -> seq, recently fetched
        self._seqs_guard = threading.Lock()
        self._stats: dict[str, tuple[int, SpaceStats]] = {}  # space -> (version, counts)
        self._stats_guard = threading.Lock()
        self._space_locks_guard = threading.Lock()
        try:
            self._db.retrying(lambda: ensure_schema(self._db.driver, database))
            self._backfill_terms()
        except BaseException:
            self._db.close()
            raise

    def _backfill_terms(self, batch: int = 2_000) -> None:
        """Give memories stored before index terms existed their terms (from their content)."""
        while True:
            rows = self._db.read(cypher.MEMORIES_WITHOUT_TERMS, limit=batch)
            if not rows:
                return
            filled = [{"id": r["id"], "terms": index_terms(r["content"])} for r in rows]

            def fill(tx: Transaction, rows: list[dict[str, str]] = filled) -> None:
                tx.run(cypher.SET_TERMS, rows=rows).consume()

            self._db.write(fill)

    def ping(self) -> None:
        self._db.ping()

    @contextmanager
    def _space_turn(self, space_id: str) -> Iterator[None]:
        """This process's writers of one space take turns before they reach the server.

        Every write transaction of a space locks its Space node first, so they serialise in
        Neo4j anyway; but 16 of them queued on that one lock made Neo4j's deadlock detector
        (Forseti) abort 27 of 320 adds with DeadlockDetected, and one add wait 120 s (the
        probe of issue 11, tests/load/test_load.py). Queued here, at most one transaction per
        space and process waits on the server's lock; other servers sharing the database still
        serialise on the Space node, and a transient error left is retried (connection.py).
        """
        with self._space_locks_guard:
            lock = self._space_locks.setdefault(space_id, threading.Lock())
        with lock:
            yield

    def close(self) -> None:
        self._db.close()

    # -- spaces -----------------------------------------------------------------------------

    def create_space(self, space: Space) -> None:
        props = rec.space_props(space)
        self._db.write(lambda tx: tx.run(cypher.CREATE_SPACE, props=props).consume(),
                       conflict=f"a space with slug '{space.slug}' already exists")

    def get_space(self, space_id: str) -> Space | None:
        rows = self._db.read(cypher.GET_SPACE, id=space_id)
        return rec.space_from(rows[0]["space"]) if rows else None

    def get_space_by_slug(self, slug: str) -> Space | None:
        rows = self._db.read(cypher.GET_SPACE_BY_SLUG, slug=slug)
        return rec.space_from(rows[0]["space"]) if rows else None

    def list_spaces(self) -> list[Space]:
        return [rec.space_from(r["space"]) for r in self._db.read(cypher.LIST_SPACES)]

    def space_stats(self, space_id: str) -> SpaceStats:
        with self._stats_guard:
            known = self._stats.get(space_id)
        row = self._db.read(cypher.SPACE_STATS, space=space_id,
                            known=known[0] if known is not None else -1)[0]
        if row["active"] is None and known is not None:  # unchanged since last counted
            return replace(known[1], documents=row["documents"])
        stats = SpaceStats(row["active"], row["inactive"], row["relations"], row["documents"])
        with self._stats_guard:
            self._stats[space_id] = (int(row["version"]), stats)
        return stats

    # -- keys -------------------------------------------------------------------------------

    def create_key(self, key: ApiKey) -> None:
        props = rec.key_props(key)
        grants = [{"space": s, "access": a.value} for s, a in key.grants.items()]

        def work(tx: Transaction) -> None:
            granted = tx.run(cypher.CREATE_KEY, props=props, grants=grants).single(strict=True)
            if granted["granted"] != len(grants):
                raise NotFound("a grant names a space that does not exist")

        self._db.write(work, f"an API key with id '{key.id}' or the same hash already exists")

    def get_key(self, key_id: str) -> ApiKey | None:
        rows = self._db.read(cypher.GET_KEY, id=key_id)
        return rec.key_from(rows[0]["key"], rows[0]["grants"]) if rows else None

    def get_key_by_hash(self, sha256: str) -> ApiKey | None:
        rows = self._db.read(cypher.GET_KEY_BY_HASH, sha256=sha256)
        return rec.key_from(rows[0]["key"], rows[0]["grants"]) if rows else None

    def list_keys(self) -> list[ApiKey]:
        return [rec.key_from(r["key"], r["grants"]) for r in self._db.read(cypher.LIST_KEYS)]

    def revoke_key(self, key_id: str, at: datetime) -> None:
        def work(tx: Transaction) -> None:
            if tx.run(cypher.REVOKE_KEY, id=key_id, at=rec.utc(at)).single(strict=True)["found"] == 0:
                raise NotFound(f"no API key with id '{key_id}'; `memspace key list` shows them")

        self._db.write(work)

    def set_active_space(self, key_id: str, space_id: str | None) -> None:
        self._db.write(lambda tx: tx.run(cypher.SET_ACTIVE_SPACE, id=key_id, space=space_id).consume())

    # -- memories ---------------------------------------------------------------------------

    def write(self, batch: WriteBatch) -> None:
        if _groupable(batch):
            self._groups.submit(batch.space_id, batch)
            return
        space = batch.space_id
        stamp = batch.at or (batch.memories[0].created_at if batch.memories else None)
        at = rec.utc(stamp) if stamp is not None else None
        # Sorted, so two writers locking overlapping sets take the locks in the same order.
        olds = sorted(batch.supersede)
        rows = [rec.memory_row(space, m) for m in batch.memories]
        ends = sorted({r.source_id for r in batch.relations} | {r.target_id for r in batch.relations})
        documents = sorted({m.document_id for m in batch.memories if m.document_id})
        hashes = [m.content_hash for m in batch.memories if m.active]
        if len(set(hashes)) != len(hashes):
            raise Conflict("the batch holds the same content twice; write it once")

        def count(tx: Transaction, query: str, ids: list[str]) -> int:
            return cast(int, tx.run(query, ids=ids, space=space).single(strict=True)["found"])

        committed: dict[str, int] = {}

        def work(tx: Transaction) -> None:
            begun = tx.run(cypher.BEGIN_SPACE_WRITE, space=space, count=len(rows), at=at).single()
            if begun is None:
                raise NotFound(f"no space '{space}'")
            committed["version"] = int(begun["version"])  # of the attempt that commits
            for offset, row in enumerate(rows, start=1):
                row["props"]["seq"] = begun["base"] + offset
                row["props"]["changed"] = begun["version"]
            if olds:
                tx.run(cypher.LOCK_MEMORIES, ids=olds, space=space).consume()
                if count(tx, cypher.COUNT_ACTIVE, olds) != len(olds):
                    raise Conflict(
                        "a memory to supersede is no longer active (another change replaced or "
                        "forgot it); search again and correct the current version"
                    )
            if hashes:
                taken = tx.run(cypher.ACTIVE_WITH_HASHES, hashes=hashes, space=space, skip=olds)
                repeats = {r["hash"]: r["id"] for r in taken}
                if repeats:
                    raise DuplicateContent(repeats)
            if documents and count(tx, cypher.COUNT_DOCUMENTS, documents) != len(documents):
                raise NotFound("a memory names a document that is not in this space")
            tx.run(cypher.CREATE_MEMORIES, rows=rows).consume()
            if ends and count(tx, cypher.COUNT_MEMORIES, ends) != len(ends):
                raise NotFound("a relation points at a memory that is not in this space")
            if documents:
                links = [{"document": m.document_id, "memory": m.id}
                         for m in batch.memories if m.document_id]
                tx.run(cypher.LINK_DOCUMENTS, rows=links, space=space).consume()
            for kind in RelationType:
                edges = [rec.relation_props(r) for r in batch.relations if r.type is kind]
                if edges:
                    tx.run(cypher.create_relations(kind.value), rows=edges, space=space).consume()
            if olds:
                sup = [{"old": old, "new": batch.supersede[old]} for old in olds]
                tx.run(cypher.SUPERSEDE, rows=sup, space=space, at=at,
                       version=begun["version"]).consume()
            if batch.source is not None:
                advanced = tx.run(cypher.ADVANCE_DOCUMENT, document=batch.source.document_id,
                                  space=space, done=batch.source.chunk + 1).single(strict=True)
                if advanced["found"] == 0:
                    raise NotFound(f"no document '{batch.source.document_id}' in this space")

        with self._space_turn(space):
            self._db.write(work, conflict="a memory with one of these ids already exists")
            if not olds:  # still this process's turn: the cache sees this space's writes in order
                version = committed["version"]
                self._vectors.record_write(space, version - 1, version, *_cache_rows(
                    list(zip(rows, batch.memories, strict=True))))

    def _write_group(self, space: str, batches: Sequence[WriteBatch]) -> list[BaseException | None]:
        """Plain adds of one space (see `_groupable`) in one transaction (group_commit.py).
        Each batch keeps the outcome it would have had alone: content an active memory holds,
        or that an earlier batch of the group writes, makes that batch a `duplicate`."""
        stamps = [b.at or b.memories[0].created_at for b in batches if b.at or b.memories]
        at = rec.utc(max(stamps)) if stamps else None
        rows = [[rec.memory_row(space, m) for m in b.memories] for b in batches]
        hashes = [[m.content_hash for m in b.memories if m.active] for b in batches]
        settled: list[BaseException | None] = [
            Conflict("the batch holds the same content twice; write it once")
            if len(set(h)) != len(h) else None for h in hashes]
        committed: dict[str, object] = {}

        def work(tx: Transaction) -> None:
            count = sum(len(r) for r in rows)
            begun = tx.run(cypher.BEGIN_SPACE_WRITE, space=space, count=count, at=at).single()
            if begun is None:
                raise NotFound(f"no space '{space}'")
            wanted = [h for i, hs in enumerate(hashes) if settled[i] is None for h in hs]
            taken = {r["hash"]: r["id"] for r in tx.run(
                cypher.ACTIVE_WITH_HASHES, hashes=wanted, space=space, skip=[])} if wanted else {}
            outcomes = list(settled)
            kept: list[tuple[dict[str, Any], Memory]] = []
            for i, batch in enumerate(batches):
                if outcomes[i] is not None:
                    continue
                repeats = {h: taken[h] for h in hashes[i] if h in taken}
                if repeats:
                    outcomes[i] = DuplicateContent(repeats)
                    continue
                taken.update((m.content_hash, m.id) for m in batch.memories if m.active)
                kept.extend(zip(rows[i], batch.memories, strict=True))
            for offset, (row, _) in enumerate(kept, start=1):
                row["props"]["seq"] = begun["base"] + offset
                row["props"]["changed"] = begun["version"]
            if kept:
                tx.run(cypher.CREATE_MEMORIES, rows=[row for row, _ in kept]).consume()
            committed.update(version=int(begun["version"]), kept=kept, outcomes=outcomes)

        with self._space_turn(space):
            self._db.write(work, conflict="a memory with one of these ids already exists")
            version = cast(int, committed["version"])
            kept = cast("list[tuple[dict[str, Any], Memory]]", committed["kept"])
            self._vectors.record_write(space, version - 1, version, *_cache_rows(kept))
        return cast("list[BaseException | None]", committed["outcomes"])

    def forget(self, space_id: str, memory_id: str, reason: str, by: str, at: datetime) -> Memory:
        def work(tx: Transaction) -> Memory:
            begun = tx.run(cypher.BEGIN_SPACE_WRITE, space=space_id, count=0,
                           at=rec.utc(at)).single()
            if begun is None:
                raise NotFound(f"no space '{space_id}'")
            tx.run(cypher.LOCK_MEMORIES, ids=[memory_id], space=space_id).consume()
            state = tx.run(cypher.FORGET_STATE, id=memory_id, space=space_id).single()
            if state is None:
                raise NotFound(f"no memory '{memory_id}' in this space")
            if not state["active"]:
                raise Conflict(f"memory '{memory_id}' is already inactive; nothing to forget")
            record = tx.run(cypher.FORGET, id=memory_id, space=space_id, at=rec.utc(at),
                            reason=reason, by=by, version=begun["version"]).single(strict=True)
            return rec.memory_from(record["memory"])

        with self._space_turn(space_id):
            return self._db.write(work)

    def get_memory(self, space_id: str, memory_id: str) -> Memory | None:
        rows = self._db.read(cypher.GET_MEMORY, id=memory_id, space=space_id)
        return rec.memory_from(rows[0]["memory"]) if rows else None

    def find_active_by_hash(self, space_id: str, content_hash: str) -> Memory | None:
        rows = self._db.read(cypher.FIND_ACTIVE_BY_HASH, space=space_id, hash=content_hash)
        return rec.memory_from(rows[0]["memory"]) if rows else None

    def similarities(self, space_id: str, embedding: Vector,
                     memory_ids: Sequence[str]) -> dict[str, float]:
        if not memory_ids:
            return {}
        # The memories a search just fetched are known by sequence number: no read for them
        # (a hybrid search asks for the cosines of its full-text hits right after fetching them).
        with self._seqs_guard:
            ids = {self._seq_of[i]: i for i in memory_ids if i in self._seq_of}
        missing = [i for i in memory_ids if i not in ids.values()]
        if missing:
            rows = self._db.read(cypher.SEQS_OF_MEMORIES, space=space_id, ids=missing)
            ids.update({int(r["seq"]): str(r["id"]) for r in rows if r["seq"] is not None})
        scores = self._vectors.scores_of(self, space_id, np.asarray(embedding, dtype=np.float32),
                                         list(ids))
        return {ids[seq]: score for seq, score in scores.items()}

    def latest_by_writer(self, space_id: str, created_by: str, since: datetime) -> Memory | None:
        rows = self._db.read(cypher.LATEST_BY_WRITER, space=space_id, writer=created_by,
                             since=rec.utc(since))
        return rec.memory_from(rows[0]["memory"]) if rows else None

    def list_memories(
        self, where: MemoryFilter, limit: int, after: PageAfter | None = None
    ) -> list[Memory]:
        condition, params = cypher.memory_filter(where)
        if after is not None:
            params |= {"at": rec.utc(after.created_at), "id": after.id}
        rows = self._db.read(cypher.list_memories(condition, after is not None), limit=limit, **params)
        return [rec.memory_from(r["memory"]) for r in rows]

    def memories_of_document(self, space_id: str, document_id: str, limit: int) -> list[Memory]:
        rows = self._db.read(cypher.MEMORIES_OF_DOCUMENT, document=document_id, space=space_id,
                             limit=limit)
        return [rec.memory_from(r["memory"]) for r in rows]

    def list_changes(
        self, where: MemoryFilter, limit: int, after: ChangeAfter | None = None,
        since: datetime | None = None,
    ) -> list[Change]:
        condition, params = cypher.memory_filter(replace(where, include_inactive=True))
        if after is not None:
            params |= {"stamp": after.stamp, "id": after.id}
        if since is not None:
            params |= {"since": rec.utc(since)}
        rows = self._db.read(cypher.list_changes(condition, after is not None, since is not None),
                             limit=limit, **params)
        return [Change(rec.memory_from(r["memory"]), int(r["stamp"])) for r in rows]

    def relations_of(self, space_id: str, memory_id: str) -> list[Relation]:
        rows = self._db.read(cypher.RELATIONS_OF, id=memory_id, space=space_id)
        return [rec.relation_from(r) for r in rows]

    def open_conflicts(self, space_id: str, limit: int) -> list[Relation]:
        rows = self._db.read(cypher.OPEN_CONFLICTS, space=space_id, limit=limit)
        return [rec.relation_from(r) for r in rows]

    def relations_among(self, space_id: str, memory_ids: Sequence[str]) -> list[Relation]:
        if not memory_ids:
            return []
        ids = list(dict.fromkeys(memory_ids))
        rows = self._db.read(cypher.RELATIONS_AMONG, ids=ids, space=space_id)
        return [rec.relation_from(r) for r in rows]

    # -- search -----------------------------------------------------------------------------

    def vector_search(self, where: MemoryFilter, embedding: Vector, limit: int) -> list[ScoredMemory]:
        """Exact, from the in-process cache of the space's vectors (see stores/vector_cache.py)."""
        query = np.asarray(embedding, dtype=np.float32)
        return self._from_cache(where, lambda version: self._vectors.top_k(
            self, where.space_id, query, limit, where.category, where.include_inactive, version))

    def text_search(self, where: MemoryFilter, text: str, limit: int) -> list[ScoredMemory]:
        """BM25 over the memories' index terms (domain.text.index_terms), any query term, with
        the space's own statistics (stores/term_index.py, held by the vector cache)."""
        terms = query_terms(text)
        return self._from_cache(where, lambda version: self._vectors.text_top_k(
            self, where.space_id, terms, limit, where.category, where.include_inactive, version))

    def _from_cache(self, where: MemoryFilter,
                    rank: Callable[[int | None], list[tuple[int, float]]]) -> list[ScoredMemory]:
        """Memories ranked by the cache (`rank(version)`: (seq, score) best first), fetched."""
        known = self._vectors.version_of(where.space_id)
        if known is not None:
            # Rank on the cache as it is and check its version in the fetch's round trip (each
            # read is ~3 bolt exchanges; a hybrid search made four). A write since then costs
            # the lookup, refresh and fetch below instead.
            hits = rank(known)
            rows = self._db.read(cypher.MEMORIES_BY_SEQ_AT_VERSION, space=where.space_id,
                                 seqs=[seq for seq, _ in hits])
            if rows and int(rows[0]["version"]) == known:
                return self._scored_by_seq(hits, rows)
        hits = rank(None)
        if not hits:
            return []
        rows = self._db.read(cypher.MEMORIES_BY_SEQ, space=where.space_id,
                             seqs=[seq for seq, _ in hits])
        return self._scored_by_seq(hits, rows)

    def _scored_by_seq(self, hits: list[tuple[int, float]], rows: list[Row]) -> list[ScoredMemory]:
        by_seq = {r["seq"]: rec.memory_from(r["memory"]) for r in rows if r["seq"] is not None}
        with self._seqs_guard:  # a memory's sequence number never changes
            for seq, memory in by_seq.items():
                self._seq_of[memory.id] = int(seq)
                self._seq_of.move_to_end(memory.id)
            while len(self._seq_of) > SEQS_REMEMBERED:
                self._seq_of.popitem(last=False)
        return [ScoredMemory(by_seq[seq], score) for seq, score in hits if seq in by_seq]

    # VectorSource

    def vector_version(self, space_id: str) -> int:
        rows = self._db.read(cypher.VECTOR_VERSION, space=space_id)
        return int(rows[0]["version"]) if rows else 0

    def vectors_after(self, space_id: str, after_seq: int) -> list[CacheRow]:
        rows = self._db.read(cypher.VECTORS_AFTER, space=space_id, after=after_seq)
        return [(int(r["seq"]), r["embedding"], str(r["category"]), r["terms"] or "")
                for r in rows]

    def inactive_seqs(self, space_id: str, upto_seq: int) -> list[int]:
        rows = self._db.read(cypher.INACTIVE_SEQS, space=space_id, upto=upto_seq)
        return [int(r["seq"]) for r in rows]

    def keyword_search(self, where: MemoryFilter, keyword: str, limit: int) -> list[ScoredMemory]:
        return search.keyword_search(self._db, where, keyword, limit)

    def neighbours(
        self, space_id: str, memory_ids: Sequence[str], hops: int = 2, per_origin: int = 10
    ) -> list[Neighbour]:
        if not memory_ids or hops < 1 or per_origin < 1:
            return []
        ids = list(dict.fromkeys(memory_ids))
        rows = self._db.read(cypher.neighbours(hops), ids=ids, space=space_id, per=per_origin)
        return [
            Neighbour(r["origin"], rec.memory_from(r["memory"]), r["hops"], RelationType(r["via"]),
                      r["direction"])
            for r in rows
        ]

    def existing_hashes(self, space_id: str, hashes: Sequence[str]) -> set[str]:
        if not hashes:
            return set()
        rows = self._db.read(cypher.EXISTING_HASHES, space=space_id, hashes=list(hashes))
        return {r["hash"] for r in rows}

    # -- usage and idempotency ------------------------------------------------------------

    def record_usage(self, space_id: str, usage: Usage) -> None:
        def work(tx: Transaction) -> None:
            found = tx.run(cypher.RECORD_USAGE, space=space_id, calls=usage.llm_calls,
                           prompt=usage.prompt_tokens, completion=usage.completion_tokens).single(strict=True)
            if found["found"] == 0:
                raise NotFound(f"no space '{space_id}'")

        with self._space_turn(space_id):
            self._db.write(work)

    def usage_totals(self, space_id: str) -> Usage:
        rows = self._db.read(cypher.USAGE_TOTALS, space=space_id)
        if not rows:
            return Usage()
        return Usage(rows[0]["calls"], rows[0]["prompt"], rows[0]["completion"])

    def claim_idempotency(self, space_id: str, scope: str, key: str, at: datetime) -> str | None:
        def work(tx: Transaction) -> tuple[bool, str | None]:
            row = tx.run(cypher.CLAIM_IDEMPOTENCY, space=space_id, scope=scope, key=key,
                         at=rec.utc(at)).single(strict=True)
            return bool(row["fresh"]), row["result"]

        fresh, result = self._db.write(work)
        if fresh:
            return None
        if result is None:
            raise Conflict(
                f"a call with idempotencyKey '{key}' is still running; retry it in a moment"
            )
        return str(result)

    def complete_idempotency(self, space_id: str, scope: str, key: str, result: str) -> None:
        self._db.write(lambda tx: tx.run(cypher.COMPLETE_IDEMPOTENCY, space=space_id, scope=scope,
                                      key=key, result=result).consume())

    def release_idempotency(self, space_id: str, scope: str, key: str) -> None:
        self._db.write(lambda tx: tx.run(cypher.RELEASE_IDEMPOTENCY, space=space_id, scope=scope,
                                      key=key).consume())

    # -- handoffs ---------------------------------------------------------------------------

    def add_handoff(self, handoff: Handoff) -> None:
        props = rec.handoff_props(handoff)

        def work(tx: Transaction) -> None:
            if tx.run(cypher.CREATE_HANDOFF, props=props).single() is None:
                raise NotFound(f"no space '{handoff.space_id}'")

        self._db.write(work, conflict=f"a handoff with id '{handoff.id}' already exists")

    def latest_handoff(self, space_id: str, agent: str | None = None,
                       topic: str | None = None) -> Handoff | None:
        found = self._handoffs(space_id, 1, None, agent, topic)
        return found[0] if found else None

    def list_handoffs(self, space_id: str, limit: int, after: PageAfter | None = None,
                      agent: str | None = None) -> list[Handoff]:
        return self._handoffs(space_id, limit, after, agent, None)

    def _handoffs(self, space_id: str, limit: int, after: PageAfter | None, agent: str | None,
                  topic: str | None) -> list[Handoff]:
        params: dict[str, Any] = {"space": space_id, "limit": limit}
        if agent is not None:
            params["agent"] = agent.casefold()
        if topic is not None:
            params["topic"] = topic.casefold()
        if after is not None:
            params |= {"at": rec.utc(after.created_at), "id": after.id}
        query = cypher.handoffs(agent is not None, topic is not None, after is not None)
        return [rec.handoff_from(r["handoff"]) for r in self._db.read(query, **params)]

    # -- documents --------------------------------------------------------------------------

    def add_document(self, document: Document) -> None:
        props = rec.document_props(document)
        self._db.write(lambda tx: tx.run(cypher.CREATE_DOCUMENT, props=props).consume(),
                       conflict=f"space '{document.space_id}' already holds a document with "
                                f"sha256 {document.sha256} (or one with id '{document.id}')")

    def get_document(self, space_id: str, document_id: str) -> Document | None:
        rows = self._db.read(cypher.GET_DOCUMENT, id=document_id, space=space_id)
        return rec.document_from(rows[0]["document"]) if rows else None

    def list_documents(
        self, space_id: str, limit: int, after: PageAfter | None = None
    ) -> list[Document]:
        params: dict[str, Any] = {"space": space_id, "limit": limit}
        if after is not None:
            params |= {"at": rec.utc(after.created_at), "id": after.id}
        rows = self._db.read(cypher.list_documents(after is not None), **params)
        return [rec.document_from(r["document"]) for r in rows]

    def update_document(
        self,
        space_id: str,
        document_id: str,
        status: DocumentStatus,
        error: str | None = None,
        chunks_total: int | None = None,
        chunks_done: int | None = None,
        uploaded_by_key: str | None = None,
    ) -> Document:
        def work(tx: Transaction) -> Document:
            row = tx.run(cypher.UPDATE_DOCUMENT, id=document_id, space=space_id,
                         status=status.value, error=error, total=chunks_total,
                         done=chunks_done, key=uploaded_by_key).single()
            if row is None:
                raise NotFound(f"no document '{document_id}' in this space")
            return rec.document_from(row["document"])

        return self._db.write(work)

    def find_document_by_sha256(self, space_id: str, sha256: str) -> Document | None:
        rows = self._db.read(cypher.FIND_DOCUMENT_BY_SHA256, space=space_id, sha256=sha256)
        return rec.document_from(rows[0]["document"]) if rows else None

    def documents_with_status(self, statuses: Sequence[DocumentStatus]) -> list[Document]:
        rows = self._db.read(cypher.DOCUMENTS_WITH_STATUS, statuses=[s.value for s in statuses])
        return [rec.document_from(r["document"]) for r in rows]

    def claim_document(self, space_id: str, document_id: str, owner: str, now: datetime,
                       until: datetime) -> Document | None:
        def work(tx: Transaction) -> Document | None:
            row = tx.run(cypher.CLAIM_DOCUMENT, id=document_id, space=space_id, owner=owner,
                         now=rec.utc(now), until=rec.utc(until)).single()
            return rec.document_from(row["document"]) if row else None

        return self._db.write(work)

    def release_document(self, space_id: str, document_id: str, owner: str) -> None:
        self._db.write(lambda tx: tx.run(cypher.RELEASE_DOCUMENT, id=document_id, space=space_id,
                                      owner=owner).consume())


def _groupable(batch: WriteBatch) -> bool:
    """A plain add (new memories, nothing superseded or linked, no document chunk) can share a
    transaction with other writers' adds; the rest keep one transaction each."""
    return bool(batch.memories) and not (batch.supersede or batch.relations or batch.source) \
        and not any(m.document_id for m in batch.memories)


def _cache_rows(written: list[tuple[dict[str, Any], Memory]]) -> tuple[list[CacheRow], list[bool]]:
    """The vector cache's view of rows just written, and their active flags."""
    return ([(row["props"]["seq"], memory.embedding, str(memory.category),
              row["props"].get("terms") or "") for row, memory in written],
            [memory.active for _, memory in written])

"""GraphStore on Neo4j 5.26 (Community or Enterprise) through the official Bolt driver.

Spaces are a property (`spaceId`) in one database, and every query names the space. Driver
errors stop at this module's edge: a constraint violation is a `Conflict`, anything else the
driver or server raises (connection refused, timeouts, transient errors after the bounded
retry window) is `Unavailable` naming the URI.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any, TypeVar, cast

from neo4j import (
    READ_ACCESS,
    WRITE_ACCESS,
    Driver,
    GraphDatabase,
    Transaction,
    basic_auth,
)
from neo4j.exceptions import ConstraintError, DriverError, GqlError, Neo4jError

from memspace.config import Settings
from memspace.domain.errors import Conflict, NotFound, Unavailable
from memspace.domain.models import (
    ApiKey,
    Document,
    Memory,
    MemoryFilter,
    Neighbour,
    Relation,
    RelationType,
    ScoredMemory,
    Space,
    SpaceStats,
)
from memspace.domain.ports import PageAfter, Vector, WriteBatch
from memspace.domain.text import max_edits, query_words, tolerated, words
from memspace.stores.neo4j import cypher
from memspace.stores.neo4j import records as rec
from memspace.stores.neo4j.schema import ensure_schema

T = TypeVar("T")
Row = dict[str, Any]

# Full-text and vector indexes cannot filter by space, category or `active`, so a search asks
# Lucene for more candidates than it returns and filters them in Cypher. The space itself is
# required inside the Lucene query (cypher.lucene_in_space), so only inactive or other-category
# memories of the same space can use up the window: a space where more than ~10x `limit`
# better-scoring matches are inactive or off-category could return fewer hits than exist.
# Keyword search also drops candidates in Python (the symmetric typo rule), hence the margin.
OVERFETCH_FACTOR = 10
OVERFETCH_MARGIN = 100

# Back-off between attempts of a transaction that failed in a retryable way (connection lost,
# deadlock, leader switch): short, because the whole window is only seconds (DESIGN §9).
RETRY_FIRST_DELAY_S = 0.2
RETRY_MAX_DELAY_S = 1.0
_CONFLICT = "the change conflicts with stored data"


class Neo4jStore:
    """GraphStore on a Neo4j server; one driver (its own connection pool) per store."""

    def __init__(
        self,
        uri: str,
        user: str = "neo4j",
        password: str | None = None,
        database: str | None = None,
        connect_timeout_s: float = 3.0,
        retry_window_s: float = 5.0,
    ) -> None:
        self._uri = uri
        self._database = database
        self._retry_window_s = retry_window_s
        # Retries are ours (see _transact), so the driver makes one attempt per call.
        self._driver: Driver = GraphDatabase.driver(
            uri,
            auth=basic_auth(user, password) if password is not None else None,
            connection_timeout=connect_timeout_s,
            connection_acquisition_timeout=connect_timeout_s + 1.0,
        )
        self._bookmarks = GraphDatabase.bookmark_manager()
        try:
            with self._edge():
                ensure_schema(self._driver, database)
        except BaseException:
            self._driver.close()
            raise

    @classmethod
    def from_settings(cls, settings: Settings) -> Neo4jStore:
        if not settings.neo4j_uri:
            raise ValueError("MEMSPACE_NEO4J_URI is not set")
        password = settings.neo4j_password
        return cls(
            settings.neo4j_uri,
            user=settings.neo4j_user,
            password=password.get_secret_value() if password is not None else None,
            database=settings.neo4j_database,
            connect_timeout_s=settings.neo4j_connect_timeout_s,
            retry_window_s=settings.neo4j_retry_window_s,
        )

    # -- plumbing ---------------------------------------------------------------------------

    @contextmanager
    def _edge(self, conflict: str = "the change conflicts with stored data") -> Iterator[None]:
        """Translate driver and server errors into the domain's."""
        try:
            yield
        except ConstraintError as exc:
            raise Conflict(conflict) from exc
        except (DriverError, OSError) as exc:
            raise Unavailable(
                f"Neo4j at {self._uri} is not answering: {exc}; check that the server is up "
                "(`make neo4j` or `docker compose up neo4j`) and retry"
            ) from exc
        except GqlError as exc:  # the server answered, with an error this store did not expect
            raise Unavailable(f"Neo4j at {self._uri} failed the request: {exc}") from exc

    def _transact(self, work: Callable[[Transaction], T], access: str, conflict: str) -> T:
        """Run `work` in one transaction, retrying retryable failures within the window.

        The driver's own managed retries give up only at the first attempt after their window,
        following 1, 2, 4 s back-offs: a 5 s window measured 7.0 s against a stopped server.
        Here no attempt starts past the deadline, so an outage surfaces after about
        `retry_window_s` (4.5 s measured for the default 5 s), plus at most one connection
        timeout when the server hangs instead of refusing.
        """
        deadline = time.monotonic() + self._retry_window_s
        delay = RETRY_FIRST_DELAY_S
        with self._edge(conflict):
            while True:
                try:
                    with self._driver.session(
                        database=self._database, default_access_mode=access,
                        bookmark_manager=self._bookmarks,
                    ) as session, session.begin_transaction() as tx:
                        result = work(tx)
                        tx.commit()
                        return result
                except (DriverError, Neo4jError) as exc:
                    if not exc.is_retryable() or time.monotonic() + delay > deadline:
                        raise
                time.sleep(delay)
                delay = min(delay * 2, RETRY_MAX_DELAY_S)

    def _read(self, query: str, **params: Any) -> list[Row]:
        return self._transact(lambda tx: tx.run(query, params).data(), READ_ACCESS, _CONFLICT)

    def _write(self, work: Callable[[Transaction], T], conflict: str = _CONFLICT) -> T:
        return self._transact(work, WRITE_ACCESS, conflict)

    def ping(self) -> None:
        with self._edge():
            self._driver.verify_connectivity()

    def close(self) -> None:
        self._driver.close()

    # -- spaces -----------------------------------------------------------------------------

    def create_space(self, space: Space) -> None:
        props = rec.space_props(space)
        self._write(lambda tx: tx.run(cypher.CREATE_SPACE, props=props).consume(),
                    conflict=f"a space with slug '{space.slug}' already exists")

    def get_space(self, space_id: str) -> Space | None:
        rows = self._read(cypher.GET_SPACE, id=space_id)
        return rec.space_from(rows[0]["space"]) if rows else None

    def get_space_by_slug(self, slug: str) -> Space | None:
        rows = self._read(cypher.GET_SPACE_BY_SLUG, slug=slug)
        return rec.space_from(rows[0]["space"]) if rows else None

    def list_spaces(self) -> list[Space]:
        return [rec.space_from(r["space"]) for r in self._read(cypher.LIST_SPACES)]

    def space_stats(self, space_id: str) -> SpaceStats:
        row = self._read(cypher.SPACE_STATS, space=space_id)[0]
        return SpaceStats(row["active"], row["inactive"], row["relations"], row["documents"])

    # -- keys -------------------------------------------------------------------------------

    def create_key(self, key: ApiKey) -> None:
        props = rec.key_props(key)
        grants = [{"space": s, "access": a.value} for s, a in key.grants.items()]

        def work(tx: Transaction) -> None:
            granted = tx.run(cypher.CREATE_KEY, props=props, grants=grants).single(strict=True)
            if granted["granted"] != len(grants):
                raise NotFound("a grant names a space that does not exist")

        self._write(work, f"an API key with id '{key.id}' or the same hash already exists")

    def get_key(self, key_id: str) -> ApiKey | None:
        rows = self._read(cypher.GET_KEY, id=key_id)
        return rec.key_from(rows[0]["key"], rows[0]["grants"]) if rows else None

    def get_key_by_hash(self, sha256: str) -> ApiKey | None:
        rows = self._read(cypher.GET_KEY_BY_HASH, sha256=sha256)
        return rec.key_from(rows[0]["key"], rows[0]["grants"]) if rows else None

    def list_keys(self) -> list[ApiKey]:
        return [rec.key_from(r["key"], r["grants"]) for r in self._read(cypher.LIST_KEYS)]

    def revoke_key(self, key_id: str, at: datetime) -> None:
        def work(tx: Transaction) -> None:
            if tx.run(cypher.REVOKE_KEY, id=key_id, at=rec.utc(at)).single(strict=True)["found"] == 0:
                raise NotFound(f"no API key with id '{key_id}'; `memspace key list` shows them")

        self._write(work)

    def set_active_space(self, key_id: str, space_id: str | None) -> None:
        self._write(lambda tx: tx.run(cypher.SET_ACTIVE_SPACE, id=key_id, space=space_id).consume())

    # -- memories ---------------------------------------------------------------------------

    def write(self, batch: WriteBatch) -> None:
        space = batch.space_id
        stamp = batch.at or (batch.memories[0].created_at if batch.memories else None)
        at = rec.utc(stamp) if stamp is not None else None
        # Sorted, so two writers locking overlapping sets take the locks in the same order.
        olds = sorted(batch.supersede)
        rows = [rec.memory_props(space, m) for m in batch.memories]
        ends = sorted({r.source_id for r in batch.relations} | {r.target_id for r in batch.relations})
        documents = sorted({m.document_id for m in batch.memories if m.document_id})

        def count(tx: Transaction, query: str, ids: list[str]) -> int:
            return cast(int, tx.run(query, ids=ids, space=space).single(strict=True)["found"])

        def work(tx: Transaction) -> None:
            if tx.run(cypher.SPACE_EXISTS, space=space).single(strict=True)["found"] == 0:
                raise NotFound(f"no space '{space}'")
            if olds:
                tx.run(cypher.LOCK_MEMORIES, ids=olds, space=space).consume()
                if count(tx, cypher.COUNT_ACTIVE, olds) != len(olds):
                    raise Conflict(
                        "a memory to supersede is no longer active (another change replaced or "
                        "forgot it); search again and correct the current version"
                    )
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
                tx.run(cypher.SUPERSEDE, rows=sup, space=space, at=at).consume()
            if at is not None:
                tx.run(cypher.TOUCH_SPACE, space=space, at=at).consume()

        self._write(work, conflict="a memory with one of these ids already exists")

    def forget(self, space_id: str, memory_id: str, reason: str, by: str, at: datetime) -> Memory:
        def work(tx: Transaction) -> Memory:
            tx.run(cypher.LOCK_MEMORIES, ids=[memory_id], space=space_id).consume()
            state = tx.run(cypher.FORGET_STATE, id=memory_id, space=space_id).single()
            if state is None:
                raise NotFound(f"no memory '{memory_id}' in this space")
            if not state["active"]:
                raise Conflict(f"memory '{memory_id}' is already inactive; nothing to forget")
            record = tx.run(cypher.FORGET, id=memory_id, space=space_id, at=rec.utc(at),
                            reason=reason, by=by).single(strict=True)
            tx.run(cypher.TOUCH_SPACE, space=space_id, at=rec.utc(at)).consume()
            return rec.memory_from(record["memory"])

        return self._write(work)

    def get_memory(self, space_id: str, memory_id: str) -> Memory | None:
        rows = self._read(cypher.GET_MEMORY, id=memory_id, space=space_id)
        return rec.memory_from(rows[0]["memory"]) if rows else None

    def find_active_by_hash(self, space_id: str, content_hash: str) -> Memory | None:
        rows = self._read(cypher.FIND_ACTIVE_BY_HASH, space=space_id, hash=content_hash)
        return rec.memory_from(rows[0]["memory"]) if rows else None

    def list_memories(
        self, where: MemoryFilter, limit: int, after: PageAfter | None = None
    ) -> list[Memory]:
        condition, params = cypher.memory_filter(where)
        if after is not None:
            params |= {"at": rec.utc(after.created_at), "id": after.id}
        rows = self._read(cypher.list_memories(condition, after is not None), limit=limit, **params)
        return [rec.memory_from(r["memory"]) for r in rows]

    def relations_of(self, space_id: str, memory_id: str) -> list[Relation]:
        rows = self._read(cypher.RELATIONS_OF, id=memory_id, space=space_id)
        return [rec.relation_from(r) for r in rows]

    # -- search -----------------------------------------------------------------------------

    def vector_search(self, where: MemoryFilter, embedding: Vector, limit: int) -> list[ScoredMemory]:
        """Exact: a cosine scan of the space's memories, not the approximate vector index.

        Measured on tools/neo4j-local (2 cores), 10,000 memories in one space among 100,000,
        384 dims, top 10 (/tmp bench, see the store's report): the exact scan answered in
        SCAN_MS ms; the index path (queryNodes over-fetching 100x, then filtering by space)
        in INDEX_MS ms with recall RECALL against the exact top 10. The index cannot pre-filter
        by space, misses writes of the current transaction and is approximate; the scan is
        exact and fast enough at the sizes a team's space reaches.
        """
        condition, params = cypher.memory_filter(where)
        rows = self._read(cypher.vector_scan(condition), vector=rec.floats(embedding),
                          limit=limit, **params)
        return [ScoredMemory(rec.memory_from(r["memory"]), float(r["score"])) for r in rows]

    def _vector_search_by_index(
        self, where: MemoryFilter, embedding: Vector, limit: int, fetch: int
    ) -> list[ScoredMemory]:
        """The approximate alternative, kept for the measurement above (bench/ reruns it)."""
        condition, params = cypher.memory_filter(where)
        rows = self._read(cypher.vector_index(condition), vector=rec.floats(embedding),
                          limit=limit, fetch=fetch, **params)
        return [ScoredMemory(rec.memory_from(r["memory"]), float(r["score"])) for r in rows]

    def _lucene(self, where: MemoryFilter, content_query: str, fetch: int) -> list[ScoredMemory]:
        condition, params = cypher.memory_filter(where)
        lucene = cypher.lucene_in_space(where.space_id, content_query)
        rows = self._read(cypher.text_query(condition), lucene=lucene, fetch=fetch, limit=fetch,
                          **params)
        return [ScoredMemory(rec.memory_from(r["memory"]), float(r["score"])) for r in rows]

    def text_search(self, where: MemoryFilter, text: str, limit: int) -> list[ScoredMemory]:
        terms = query_words(text)
        if not terms:
            return []
        fetch = limit * OVERFETCH_FACTOR + OVERFETCH_MARGIN
        return self._lucene(where, cypher.lucene_any(terms), fetch)[:limit]

    def keyword_search(self, where: MemoryFilter, keyword: str, limit: int) -> list[ScoredMemory]:
        """Lucene fuzzy terms find candidates; the symmetric rule of domain.text keeps them."""
        terms = words(keyword)
        if not terms:
            return []
        fetch = limit * OVERFETCH_FACTOR + OVERFETCH_MARGIN
        hits = self._lucene(where, cypher.lucene_fuzzy_all([(t, max_edits(t)) for t in terms]), fetch)
        kept = []
        for hit in hits:
            vocabulary = words(hit.memory.content)
            if all(any(tolerated(t, w) for w in vocabulary) for t in terms):
                kept.append(hit)
        return kept[:limit]

    def neighbours(
        self, space_id: str, memory_ids: Sequence[str], hops: int = 2, per_origin: int = 10
    ) -> list[Neighbour]:
        if not memory_ids or hops < 1 or per_origin < 1:
            return []
        ids = list(dict.fromkeys(memory_ids))
        rows = self._read(cypher.neighbours(hops), ids=ids, space=space_id, per=per_origin)
        return [
            Neighbour(r["origin"], rec.memory_from(r["memory"]), r["hops"], RelationType(r["via"]),
                      r["direction"])
            for r in rows
        ]

    # -- documents --------------------------------------------------------------------------

    def add_document(self, document: Document) -> None:
        props = rec.document_props(document)
        self._write(lambda tx: tx.run(cypher.CREATE_DOCUMENT, props=props).consume(),
                    conflict=f"a document with id '{document.id}' already exists")

    def get_document(self, space_id: str, document_id: str) -> Document | None:
        rows = self._read(cypher.GET_DOCUMENT, id=document_id, space=space_id)
        return rec.document_from(rows[0]["document"]) if rows else None

    def list_documents(
        self, space_id: str, limit: int, after: PageAfter | None = None
    ) -> list[Document]:
        params: dict[str, Any] = {"space": space_id, "limit": limit}
        if after is not None:
            params |= {"at": rec.utc(after.created_at), "id": after.id}
        rows = self._read(cypher.list_documents(after is not None), **params)
        return [rec.document_from(r["document"]) for r in rows]

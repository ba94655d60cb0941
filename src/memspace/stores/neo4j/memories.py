"""Memories in the Neo4j store: the atomic write batch, the group commit of plain adds and
forgetting (the MemoryWriteStore role; the reads are memory_reads.py's). What an older
version stored is brought up to date at start-up by memory_backfill.py.

Writes take the space's turn (`turn`: the kit's SpaceTurns, kit.py) and, inside it, tell the
vector cache what they wrote, so the cache sees a space's writes in order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, cast

from neo4j import Transaction

from memspace.domain.bitemporal import valid_from_of
from memspace.domain.errors import Conflict, DuplicateContent, NotFound
from memspace.domain.models import Memory, RelationType
from memspace.domain.ports import WriteBatch
from memspace.stores.neo4j import records as rec
from memspace.stores.neo4j.connection import Neo4jConnection
from memspace.stores.neo4j.cypher import memories as cypher
from memspace.stores.neo4j.vector_index import IndexFeed
from memspace.stores.space_vectors import Row as CacheRow
from memspace.stores.vector_cache import VectorCache

# A group of at least this many memories (a bulk import's batch) sets their indexed embedding in
# its own statement; smaller ones leave it to the feed (stores/neo4j/vector_index.py), so that
# an add's commit does not wait for the index. In a bulk load the feed cost the server a second
# write of every memory and of its pending mark.
INDEX_IN_THE_WRITE = 64

WriterTurn = Callable[[str], AbstractContextManager[None]]


def groupable(batch: WriteBatch) -> bool:
    """A plain add (new memories, nothing superseded or linked, no document chunk) can share a
    transaction with other writers' adds; the rest keep one transaction each."""
    return bool(batch.memories) and not (batch.supersede or batch.relations or batch.source) \
        and not any(m.document_id for m in batch.memories)


def write(db: Neo4jConnection, turn: WriterTurn, vectors: VectorCache, feed: IndexFeed,
          batch: WriteBatch) -> int:
    """One batch in one transaction (a `groupable` one goes through the group commit instead);
    the space's version it committed. Its memories' vectors go to the index's `feed` once
    committed."""
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

    committed: dict[str, int] = {}

    def work(tx: Transaction) -> None:
        begun = tx.run(cypher.BEGIN_SPACE_WRITE, space=space, count=len(rows), at=at).single()
        if begun is None:
            raise NotFound(f"no space '{space}'")
        committed["version"] = int(begun["version"])  # of the attempt that commits
        for offset, row in enumerate(rows, start=1):
            row["props"]["seq"] = begun["base"] + offset
            row["props"]["changed"] = begun["version"]
        _check_batch(tx, space, olds, hashes, documents)
        tx.run(cypher.CREATE_MEMORIES, props=[row["props"] for row in rows]).consume()
        _link_batch(tx, batch, at, olds, ends, documents, begun["version"])

    with turn(space):
        db.write(work, conflict="a memory with one of these ids already exists")
        version = committed["version"]
        if not olds:  # still this process's turn: the cache sees this space's writes in order
            vectors.record_write(space, version - 1, version, *_cache_rows(
                list(zip(rows, batch.memories, strict=True))))
    feed.add((m.id, row["embedding"]) for row, m in zip(rows, batch.memories, strict=True))
    return version


def _count(tx: Transaction, query: str, ids: list[str], space: str) -> int:
    return cast(int, tx.run(query, ids=ids, space=space).single(strict=True)["found"])


def _check_batch(tx: Transaction, space: str, olds: list[str], hashes: list[str],
                 documents: list[str]) -> None:
    """Inside a batch's transaction, before its memories are created: what it supersedes is
    locked and still active, no active memory holds its content, and the documents it names
    are in the space."""
    if olds:
        tx.run(cypher.LOCK_MEMORIES, ids=olds, space=space).consume()
        if _count(tx, cypher.COUNT_ACTIVE, olds, space) != len(olds):
            raise Conflict(
                "a memory to supersede is no longer active (another change replaced or "
                "forgot it); search again and correct the current version"
            )
    if hashes:
        taken = tx.run(cypher.ACTIVE_WITH_HASHES, hashes=hashes, space=space, skip=olds)
        repeats = {r["hash"]: r["id"] for r in taken}
        if repeats:
            raise DuplicateContent(repeats)
    if documents and _count(tx, cypher.COUNT_DOCUMENTS, documents, space) != len(documents):
        raise NotFound("a memory names a document that is not in this space")


def _link_batch(tx: Transaction, batch: WriteBatch, at: datetime | None, olds: list[str],
                ends: list[str], documents: list[str], version: int) -> None:
    """Inside a batch's transaction, once its memories are created: their documents'
    links, its relations, the supersedes and the document's progress."""
    space = batch.space_id
    if ends and _count(tx, cypher.COUNT_MEMORIES, ends, space) != len(ends):
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
        starts = {m.id: rec.utc(valid_from_of(m)) for m in batch.memories}
        sup = [{"old": old, "new": batch.supersede[old],
                "validTo": starts.get(batch.supersede[old], at)} for old in olds]
        tx.run(cypher.SUPERSEDE, rows=sup, space=space, at=at, version=version).consume()
    if batch.source is not None:
        advanced = tx.run(cypher.ADVANCE_DOCUMENT, document=batch.source.document_id,
                          space=space, done=batch.source.chunk + 1).single(strict=True)
        if advanced["found"] == 0:
            raise NotFound(f"no document '{batch.source.document_id}' in this space")


def write_group(db: Neo4jConnection, turn: WriterTurn, vectors: VectorCache, feed: IndexFeed,
                space: str, batches: Sequence[WriteBatch]
                ) -> tuple[list[BaseException | None], int]:
    """Plain adds of one space (see `groupable`) in one statement (group_commit.py,
    cypher.WRITE_GROUP). Each batch keeps the outcome it would have had alone: content an
    active memory holds, or that an earlier batch of the group writes, makes that batch a
    `duplicate`. Returns the outcomes and the space's version the statement committed."""
    stamps = [b.at or b.memories[0].created_at for b in batches if b.at or b.memories]
    at = rec.utc(max(stamps)) if stamps else None
    rows = [[rec.memory_row(space, m) for m in b.memories] for b in batches]
    hashes = [[m.content_hash for m in b.memories if m.active] for b in batches]
    outcomes: list[BaseException | None] = [
        Conflict("the batch holds the same content twice; write it once")
        if len(set(h)) != len(h) else None for h in hashes]
    sent = [i for i, outcome in enumerate(outcomes) if outcome is None]
    # A bulk write indexes its vectors itself; the feed would write every memory a second time.
    indexed = sum(len(rows[i]) for i in sent) >= INDEX_IN_THE_WRITE
    if indexed:
        for i in sent:
            for row in rows[i]:
                row["props"].pop("vectorPending", None)
    with turn(space):
        answer = db.write_one(
            cypher.WRITE_GROUP_INDEXED if indexed else cypher.WRITE_GROUP,
            conflict="a memory with one of these ids already exists",
            space=space, at=at, hashes=sorted({h for i in sent for h in hashes[i]}),
            batches=[{"at": n, "hashes": hashes[i], "props": [r["props"] for r in rows[i]],
                      **({"vectors": [r["embedding"] for r in rows[i]]} if indexed else {})}
                     for n, i in enumerate(sent)])
        if not answer:
            raise NotFound(f"no space '{space}'")
        [done] = answer
        version, base, kept_at = int(done["version"]), int(done["base"]), set(done["kept"])
        held: dict[str, str] = {}
        for taken in done["taken"]:
            held[taken["hash"]] = min(held.get(taken["hash"], taken["id"]), taken["id"])
        kept: list[tuple[dict[str, Any], Memory]] = []
        for n, i in enumerate(sent):
            if n not in kept_at:
                outcomes[i] = DuplicateContent({h: held[h] for h in hashes[i] if h in held})
                continue
            held.update((m.content_hash, m.id) for m in batches[i].memories if m.active)
            kept.extend(zip(rows[i], batches[i].memories, strict=True))
        for offset, (row, _) in enumerate(kept, start=1):  # as the statement numbered them
            row["props"]["seq"] = base + offset
            row["props"]["changed"] = version
        vectors.record_write(space, version - 1, version, *_cache_rows(kept))
    if not indexed:
        feed.add((m.id, row["embedding"]) for row, m in kept)
    return outcomes, version


def _cache_rows(written: list[tuple[dict[str, Any], Memory]]) -> tuple[list[CacheRow], list[bool]]:
    """The vector cache's view of rows just written, and their active flags."""
    return ([(row["props"]["seq"], memory.embedding, str(memory.category),
              row["props"].get("terms") or "", memory.content) for row, memory in written],
            [memory.active for _, memory in written])

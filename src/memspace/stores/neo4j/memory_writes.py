"""The memory writes of the Neo4j store (the MemoryWriteStore role, the store's `writes`) over
its kit (neo4j/kit.py): the group commit of small batches of one space, the writers' turns, and
the feed of the vector index; a batch's transactions are memories.py's (the group commit runs
them too), a forget's its own."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from neo4j import Transaction

from memspace.domain.errors import Conflict, NotFound
from memspace.domain.models import Memory
from memspace.domain.ports import WriteBatch
from memspace.stores.neo4j import memories
from memspace.stores.neo4j import records as rec
from memspace.stores.neo4j.cypher import memories as cypher
from memspace.stores.neo4j.group_commit import GroupCommit
from memspace.stores.neo4j.kit import Neo4jKit
from memspace.stores.neo4j.vector_index import IndexFeed


class Neo4jMemoryWrites:
    """A batch of memories and relations (small ones of a space committed together); a memory
    forgotten."""

    def __init__(self, kit: Neo4jKit, feed: IndexFeed) -> None:
        self._db, self._turn, self._vectors, self._counts = kit.db, kit.turn, kit.vectors, kit.counts
        self._feed = feed  # the vector index's property, set after each write
        self._groups: GroupCommit[WriteBatch] = GroupCommit(self._write_group)

    def write(self, batch: WriteBatch) -> None:
        if memories.groupable(batch):
            self._groups.submit(batch.space_id, batch)
            return
        version = memories.write(self._db, self._turn, self._vectors, self._feed, batch)
        self._counts.advance(batch.space_id, version, [batch])

    def _write_group(self, space: str, batches: Sequence[WriteBatch]) -> list[BaseException | None]:
        outcomes, version = memories.write_group(self._db, self._turn, self._vectors,
                                                 self._feed, space, batches)
        self._counts.advance(space, version, [b for b, o in zip(batches, outcomes, strict=True)
                                              if o is None])
        return outcomes

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

        with self._turn(space_id):
            return self._db.write(work)

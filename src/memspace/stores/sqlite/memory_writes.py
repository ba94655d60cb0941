"""The memory writes of the embedded store (the MemoryWriteStore role, the store's `writes`)
over its kit (sqlite/kit.py); the statements are memories.py's."""

from __future__ import annotations

from datetime import datetime

from memspace.domain.models import Memory
from memspace.domain.ports import WriteBatch
from memspace.stores.sqlite import memories
from memspace.stores.sqlite.kit import SqliteKit


class SqliteMemoryWrites:
    """A batch of memories and relations in one transaction; a memory forgotten."""

    def __init__(self, kit: SqliteKit) -> None:
        self._db = kit.db
        self._counts = kit.counts  # moved along by each batch written here

    def write(self, batch: WriteBatch) -> None:
        with self._db.tx() as conn:
            version = memories.write(conn, batch)
        self._counts.advance(batch.space_id, version, [batch])

    def forget(self, space_id: str, memory_id: str, reason: str, by: str, at: datetime) -> Memory:
        with self._db.tx() as conn:
            memories.forget(conn, space_id, memory_id, reason, by, at)
        memory = memories.one(self._db.conn(), space_id, memory_id)
        assert memory is not None
        return memory

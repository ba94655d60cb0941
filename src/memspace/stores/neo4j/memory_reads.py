"""The memory reads of the Neo4j store (the MemoryReadStore role, and a document's
memories) over the store's kit (neo4j/kit.py); the statements are memories.py's."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memspace.domain.models import Memory, MemoryFilter
from memspace.domain.ports import Change, ChangeAfter, PageAfter
from memspace.stores.neo4j import memories
from memspace.stores.neo4j.kit import Neo4jKit


class Neo4jMemoryReads:
    """Memories by id, content, writer, page, document and change."""

    def __init__(self, kit: Neo4jKit) -> None:
        self._db = kit.db

    def get_memory(self, space_id: str, memory_id: str) -> Memory | None:
        return memories.one(self._db, space_id, memory_id)

    def get_memories(self, space_id: str, memory_ids: Sequence[str]) -> list[Memory]:
        return memories.several(self._db, space_id, memory_ids)

    def find_active_by_hash(self, space_id: str, content_hash: str) -> Memory | None:
        return memories.active_by_hash(self._db, space_id, content_hash)

    def existing_hashes(self, space_id: str, hashes: Sequence[str]) -> set[str]:
        return memories.existing_hashes(self._db, space_id, hashes)

    def latest_by_writer(self, space_id: str, created_by: str, since: datetime) -> Memory | None:
        return memories.latest_by_writer(self._db, space_id, created_by, since)

    def list_memories(
        self, where: MemoryFilter, limit: int, after: PageAfter | None = None
    ) -> list[Memory]:
        return memories.page(self._db, where, limit, after)

    def memories_of_document(self, space_id: str, document_id: str, limit: int) -> list[Memory]:
        return memories.of_document(self._db, space_id, document_id, limit)

    def list_changes(
        self, where: MemoryFilter, limit: int, after: ChangeAfter | None = None,
        since: datetime | None = None,
    ) -> list[Change]:
        return memories.changes(self._db, where, limit, after, since)

"""In-memory fakes of single store roles (domain/ports.py), for services and helpers that ask
for one role: state a real store could not reach (a corrupt chain) costs a dict."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memspace.domain.models import Memory, MemoryFilter
from memspace.domain.ports import AnswerReads, Change, ChangeAfter, MemoryReadStore, PageAfter


class MemoryReads(MemoryReadStore):
    """MemoryReadStore over a dict of memories by id (one space, no paging rules)."""

    def __init__(self, *memories: Memory) -> None:
        self.memories = {m.id: m for m in memories}
        self.reads = 0

    def get_memory(self, space_id: str, memory_id: str) -> Memory | None:
        self.reads += 1
        found = self.memories.get(memory_id)
        return found if found is not None and found.space_id == space_id else None

    def get_memories(self, space_id: str, memory_ids: Sequence[str]) -> list[Memory]:
        return [m for i in dict.fromkeys(memory_ids) if (m := self.get_memory(space_id, i))]

    def find_active_by_hash(self, space_id: str, content_hash: str) -> Memory | None:
        return next((m for m in self.memories.values() if m.space_id == space_id and m.active
                     and m.content_hash == content_hash), None)

    def ids_with_prefix(self, space_id: str, prefixes: Sequence[str], limit: int) -> list[str]:
        return [i for p in dict.fromkeys(prefixes) for i in sorted(
            m.id for m in self.memories.values()
            if m.space_id == space_id and m.id.startswith(p))[:limit]]

    def answer_reads(self, space_id: str, memory_ids: Sequence[str], hops: int,
                     per_origin: int, head_chars: int, prefix_limit: int) -> AnswerReads | None:
        return None

    def existing_hashes(self, space_id: str, hashes: Sequence[str]) -> set[str]:
        return {h for h in hashes if self.find_active_by_hash(space_id, h) is not None}

    def latest_by_writer(self, space_id: str, created_by: str, since: datetime) -> Memory | None:
        mine = [m for m in self.memories.values() if m.space_id == space_id
                and m.created_by == created_by and m.created_at >= since]
        return max(mine, key=lambda m: m.created_at, default=None)

    def list_memories(self, where: MemoryFilter, limit: int,
                      after: PageAfter | None = None) -> list[Memory]:
        rows = [m for m in self.memories.values() if m.space_id == where.space_id
                and (m.active or where.include_inactive)]
        return sorted(rows, key=lambda m: (m.created_at, m.id), reverse=True)[:limit]

    def list_changes(self, where: MemoryFilter, limit: int, after: ChangeAfter | None = None,
                     since: datetime | None = None) -> list[Change]:
        raise NotImplementedError("no change feed in this fake")

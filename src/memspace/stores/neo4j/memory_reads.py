"""The memory reads of the Neo4j store (the MemoryReadStore role, and a document's
memories) over the store's kit (neo4j/kit.py); the writes are memories.py's."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from memspace.domain.models import Memory, MemoryFilter, Neighbour, RelationType
from memspace.domain.ports import AnswerReads, Change, ChangeAfter, PageAfter
from memspace.stores.neo4j import records as rec
from memspace.stores.neo4j.cypher import answer
from memspace.stores.neo4j.cypher import memories as cypher
from memspace.stores.neo4j.cypher.fields import memory_filter
from memspace.stores.neo4j.kit import Neo4jKit

# The first page of a listing is looked for among the last this many memories written to the
# space (cypher.recent_memories); a listing asking for more, or a space where fewer of them pass
# the filter, is answered by the full sort.
RECENT_WINDOW = 512


class Neo4jMemoryReads:
    """Memories by id, content, writer, page, document and change."""

    def __init__(self, kit: Neo4jKit) -> None:
        self._db = kit.db

    def get_memory(self, space_id: str, memory_id: str) -> Memory | None:
        rows = self._db.read(cypher.GET_MEMORY, id=memory_id, space=space_id)
        return rec.memory_from(rows[0]["memory"]) if rows else None

    def get_memories(self, space_id: str, memory_ids: Sequence[str]) -> list[Memory]:
        if not memory_ids:
            return []
        [row] = self._db.read(cypher.GET_MEMORIES, ids=list(memory_ids), space=space_id)
        return [rec.memory_from(m) for m in row["memories"]]

    def find_active_by_hash(self, space_id: str, content_hash: str) -> Memory | None:
        rows = self._db.read(cypher.FIND_ACTIVE_BY_HASH, space=space_id, hash=content_hash)
        return rec.memory_from(rows[0]["memory"]) if rows else None

    def ids_with_prefix(self, space_id: str, prefixes: Sequence[str], limit: int) -> list[str]:
        if not prefixes:
            return []
        rows = self._db.read(cypher.IDS_WITH_PREFIX, space=space_id,
                             prefixes=list(dict.fromkeys(prefixes)), limit=limit)
        return [i for r in rows for i in r["ids"]]

    def answer_reads(self, space_id: str, memory_ids: Sequence[str], hops: int,
                     per_origin: int, head_chars: int, prefix_limit: int) -> AnswerReads | None:
        [row] = self._db.read(answer.answer_reads(hops), ids=list(dict.fromkeys(memory_ids)),
                              space=space_id, per=per_origin, knownAt=None, head=head_chars,
                              limit=prefix_limit)
        return AnswerReads(
            [rec.memory_from(m) for m in row["memories"]],
            [Neighbour(r["origin"], rec.memory_from(r["memory"]), r["hops"],
                       RelationType(r["via"]), r["direction"]) for r in row["related"]],
            frozenset(row["heads"]), list(row["sharing"]))

    def existing_hashes(self, space_id: str, hashes: Sequence[str]) -> set[str]:
        if not hashes:
            return set()
        rows = self._db.read(cypher.EXISTING_HASHES, space=space_id, hashes=list(hashes))
        return {r["hash"] for r in rows}

    def latest_by_writer(self, space_id: str, created_by: str, since: datetime) -> Memory | None:
        rows = self._db.read(cypher.LATEST_BY_WRITER, space=space_id, writer=created_by,
                             since=rec.utc(since))
        return rec.memory_from(rows[0]["memory"]) if rows else None

    def list_memories(
        self, where: MemoryFilter, limit: int, after: PageAfter | None = None
    ) -> list[Memory]:
        condition, params = memory_filter(where)
        if after is None:
            recent = self._db.read(cypher.recent_memories(condition, memory_filter(where, "o")[0]),
                                   limit=limit, window=RECENT_WINDOW, **params)
            if len(recent) == limit and not recent[0]["missed"]:
                return [rec.memory_from(r["memory"]) for r in recent]
        else:
            params |= {"at": rec.utc(after.created_at), "id": after.id}
        rows = self._db.read(cypher.list_memories(condition, after is not None), limit=limit,
                             **params)
        return [rec.memory_from(r["memory"]) for r in rows]

    def memories_of_document(self, space_id: str, document_id: str, limit: int) -> list[Memory]:
        rows = self._db.read(cypher.MEMORIES_OF_DOCUMENT, document=document_id, space=space_id,
                             limit=limit)
        return [rec.memory_from(r["memory"]) for r in rows]

    def list_changes(
        self, where: MemoryFilter, limit: int, after: ChangeAfter | None = None,
        since: datetime | None = None,
    ) -> list[Change]:
        condition, params = memory_filter(replace(where, include_inactive=True))
        if after is not None:
            params |= {"stamp": after.stamp, "id": after.id}
        if since is not None:
            params |= {"since": rec.utc(since)}
        rows = self._db.read(cypher.list_changes(condition, after is not None, since is not None),
                             limit=limit, **params)
        return [Change(rec.memory_from(r["memory"]), int(r["stamp"])) for r in rows]

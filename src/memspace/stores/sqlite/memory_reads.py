"""The memory reads of the embedded store (the MemoryReadStore role, and a document's
memories) over the store's kit (sqlite/kit.py). A memory by id is memories.py's `one`, which
the lifecycle marks also read inside their own transaction."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from memspace.domain.models import Memory, MemoryFilter
from memspace.domain.ports import AnswerReads, Change, ChangeAfter, PageAfter
from memspace.stores.sqlite import memories
from memspace.stores.sqlite.kit import SqliteKit
from memspace.stores.sqlite.memories import filter_sql
from memspace.stores.sqlite.records import MEMORY_COLUMNS, ids_with_prefix, memory_from_row, ts


class SqliteMemoryReads:
    """Memories by id, content, writer, page, document and change."""

    def __init__(self, kit: SqliteKit) -> None:
        self._db = kit.db

    def get_memory(self, space_id: str, memory_id: str) -> Memory | None:
        return memories.one(self._db.conn(), space_id, memory_id)

    def get_memories(self, space_id: str, memory_ids: Sequence[str]) -> list[Memory]:
        if not memory_ids:
            return []
        rows = self._db.conn().execute(
            f"SELECT {MEMORY_COLUMNS} FROM memories WHERE space_id = ? "
            "AND id IN (SELECT value FROM json_each(?))",
            (space_id, json.dumps(list(memory_ids))),
        ).fetchall()
        return [memory_from_row(r) for r in rows]

    def find_active_by_hash(self, space_id: str, content_hash: str) -> Memory | None:
        row = self._db.conn().execute(
            # Named: without statistics the planner chose the (space_id, active) index and
            # walked every active memory of the space (86 ms of a flat add at 100,000 memories).
            f"SELECT {MEMORY_COLUMNS} FROM memories INDEXED BY memories_by_hash "
            "WHERE space_id = ? AND content_hash = ? AND active = 1",
            (space_id, content_hash),
        ).fetchone()
        return memory_from_row(row) if row else None

    def ids_with_prefix(self, space_id: str, prefixes: Sequence[str], limit: int) -> list[str]:
        return ids_with_prefix(self._db.conn(), "memories", space_id, prefixes, limit)

    def answer_reads(self, space_id: str, memory_ids: Sequence[str], hops: int,
                     per_origin: int, head_chars: int, prefix_limit: int) -> AnswerReads | None:
        return None  # in process: three reads cost no round trip

    def existing_hashes(self, space_id: str, hashes: Sequence[str]) -> set[str]:
        if not hashes:
            return set()
        rows = self._db.conn().execute(
            "SELECT content_hash FROM memories INDEXED BY memories_by_hash WHERE space_id = ? "
            "AND active = 1 AND content_hash IN (SELECT value FROM json_each(?))",
            (space_id, json.dumps(list(hashes))),
        ).fetchall()
        return {r[0] for r in rows}

    def latest_by_writer(self, space_id: str, created_by: str, since: datetime) -> Memory | None:
        row = self._db.conn().execute(
            f"SELECT {MEMORY_COLUMNS} FROM memories INDEXED BY memories_by_writer "
            "WHERE space_id = ? AND created_by = ? AND created_at >= ? AND document_id IS NULL "
            "ORDER BY created_at DESC, rowid DESC LIMIT 1",
            (space_id, created_by, ts(since)),
        ).fetchone()
        return memory_from_row(row) if row else None

    def list_memories(
        self, where: MemoryFilter, limit: int, after: PageAfter | None = None
    ) -> list[Memory]:
        sql, args = filter_sql(where)
        if after is not None:
            sql += " AND (m.created_at, m.id) < (?, ?)"
            args += [ts(after.created_at), after.id]
        rows = self._db.conn().execute(
            f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE {sql} "
            "ORDER BY m.created_at DESC, m.id DESC LIMIT ?",
            (*args, limit),
        ).fetchall()
        return [memory_from_row(r) for r in rows]

    def memories_of_document(self, space_id: str, document_id: str, limit: int) -> list[Memory]:
        rows = self._db.conn().execute(
            f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.space_id = ? "
            "AND m.document_id = ? ORDER BY m.created_at, m.id LIMIT ?",
            (space_id, document_id, limit),
        ).fetchall()
        return [memory_from_row(r) for r in rows]

    def list_changes(
        self, where: MemoryFilter, limit: int, after: ChangeAfter | None = None,
        since: datetime | None = None,
    ) -> list[Change]:
        sql, args = filter_sql(replace(where, include_inactive=True))
        if after is not None:
            sql += " AND (m.changed_version, m.id) > (?, ?)"
            args += [after.stamp, after.id]
        if since is not None:
            sql += " AND (m.created_at >= ? OR m.invalidated_at >= ?)"
            args += [ts(since), ts(since)]
        rows = self._db.conn().execute(
            f"SELECT {MEMORY_COLUMNS}, m.changed_version FROM memories m WHERE {sql} "
            "ORDER BY m.changed_version, m.id LIMIT ?",
            (*args, limit),
        ).fetchall()
        return [Change(memory_from_row(r), int(r["changed_version"])) for r in rows]

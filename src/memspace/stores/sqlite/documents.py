"""Documents in the embedded store: rows, status and progress, and the checks a write makes."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import datetime

from memspace.domain.chunks import ChunkSource
from memspace.domain.errors import Conflict, NotFound
from memspace.domain.models import Document, DocumentStatus, Memory
from memspace.domain.ports import PageAfter
from memspace.stores.sqlite.kit import SqliteKit
from memspace.stores.sqlite.records import document_from_row, ids_with_prefix, ts


def check_sources(conn: sqlite3.Connection, space_id: str, memories: Sequence[Memory]) -> None:
    """Every document a new memory names must be in the memory's space."""
    named = sorted({m.document_id for m in memories if m.document_id})
    if not named:
        return
    found = conn.execute(
        "SELECT count(*) FROM documents WHERE space_id = ? AND id IN "
        "(SELECT value FROM json_each(?))",
        (space_id, json.dumps(named)),
    ).fetchone()[0]
    if found != len(named):
        raise NotFound("a memory names a document that is not in this space")


def advance(conn: sqlite3.Connection, space_id: str, source: ChunkSource) -> None:
    """Mark the chunk done and recount the document's facts (inside the memory write)."""
    cur = conn.execute(
        "UPDATE documents SET chunks_done = max(chunks_done, ?), "
        "fact_count = (SELECT count(*) FROM memories m WHERE m.document_id = documents.id) "
        "WHERE id = ? AND space_id = ?",
        (source.chunk + 1, source.document_id, space_id),
    )
    if cur.rowcount != 1:
        raise NotFound(f"no document '{source.document_id}' in this space")


class SqliteDocuments:
    """The DocumentStore role over the store's kit (sqlite/kit.py)."""

    def __init__(self, kit: SqliteKit) -> None:
        self._db = kit.db

    def add_document(self, document: Document) -> None:
        with self._db.tx() as conn:
            try:
                conn.execute(
                    "INSERT INTO documents (id, space_id, title, kind, size_bytes, sha256, status, "
                    "error, fact_count, created_at, created_by, chunks_total, chunks_done, "
                    "uploaded_by_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (document.id, document.space_id, document.title, document.kind,
                     document.size_bytes, document.sha256, document.status.value, document.error,
                     document.fact_count, ts(document.created_at), document.created_by,
                     document.chunks_total, document.chunks_done, document.uploaded_by_key),
                )
            except sqlite3.IntegrityError as exc:
                raise Conflict(f"space '{document.space_id}' already holds a document with "
                               f"sha256 {document.sha256}") from exc

    def get_document(self, space_id: str, document_id: str) -> Document | None:
        row = self._db.conn().execute(
            "SELECT * FROM documents WHERE id = ? AND space_id = ?", (document_id, space_id)
        ).fetchone()
        return document_from_row(row) if row else None

    def ids_with_prefix(self, space_id: str, prefixes: Sequence[str], limit: int) -> list[str]:
        return ids_with_prefix(self._db.conn(), "documents", space_id, prefixes, limit)

    def list_documents(
        self, space_id: str, limit: int, after: PageAfter | None = None
    ) -> list[Document]:
        sql, args = "space_id = ?", [space_id]
        if after is not None:
            sql += " AND (created_at, id) < (?, ?)"
            args += [ts(after.created_at), after.id]
        rows = self._db.conn().execute(
            f"SELECT * FROM documents WHERE {sql} ORDER BY created_at DESC, id DESC LIMIT ?",
            (*args, limit),
        ).fetchall()
        return [document_from_row(r) for r in rows]

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
        with self._db.tx() as conn:
            cur = conn.execute(
                "UPDATE documents SET status = ?, error = ?, "
                "chunks_total = coalesce(?, chunks_total), "
                "chunks_done = coalesce(?, chunks_done), "
                "uploaded_by_key = coalesce(?, uploaded_by_key) WHERE id = ? AND space_id = ?",
                (status.value, error, chunks_total, chunks_done, uploaded_by_key, document_id,
                 space_id),
            )
            if cur.rowcount != 1:
                raise NotFound(f"no document '{document_id}' in this space")
        updated = self.get_document(space_id, document_id)
        assert updated is not None
        return updated

    def find_document_by_sha256(self, space_id: str, sha256: str) -> Document | None:
        row = self._db.conn().execute(
            "SELECT * FROM documents WHERE space_id = ? AND sha256 = ?", (space_id, sha256)
        ).fetchone()
        return document_from_row(row) if row else None

    def documents_with_status(self, statuses: Sequence[DocumentStatus]) -> list[Document]:
        rows = self._db.conn().execute(
            "SELECT * FROM documents WHERE status IN (SELECT value FROM json_each(?)) "
            "ORDER BY created_at, id",
            (json.dumps([s.value for s in statuses]),),
        ).fetchall()
        return [document_from_row(r) for r in rows]

    def claim_document(self, space_id: str, document_id: str, owner: str, now: datetime,
                       until: datetime) -> Document | None:
        """Take or renew the processing lease; the document when held."""
        with self._db.tx() as conn:
            cur = conn.execute(
                "UPDATE documents SET status = 'processing', lease_owner = ?, lease_until = ? "
                "WHERE id = ? AND space_id = ? AND (status = 'queued' OR (status = 'processing' "
                "AND (lease_owner IS NULL OR lease_owner = ? OR lease_until IS NULL "
                "OR lease_until < ?)))",
                (owner, ts(until), document_id, space_id, owner, ts(now)),
            )
            held = cur.rowcount == 1
        return self.get_document(space_id, document_id) if held else None

    def release_document(self, space_id: str, document_id: str, owner: str) -> None:
        with self._db.tx() as conn:
            conn.execute(
                "UPDATE documents SET lease_owner = NULL, lease_until = NULL "
                "WHERE id = ? AND space_id = ? AND lease_owner = ?", (document_id, space_id, owner),
            )

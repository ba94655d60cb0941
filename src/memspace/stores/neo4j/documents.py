"""Documents in the Neo4j store, with their processing lease (the DocumentStore role; the
memories of a document are read in memory_reads.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from neo4j import Transaction

from memspace.domain.errors import NotFound
from memspace.domain.models import Document, DocumentStatus
from memspace.domain.ports import PageAfter
from memspace.stores.neo4j import records as rec
from memspace.stores.neo4j.cypher import documents as cypher
from memspace.stores.neo4j.kit import Neo4jKit


class Neo4jDocuments:
    """The DocumentStore role over the store's kit (neo4j/kit.py)."""

    def __init__(self, kit: Neo4jKit) -> None:
        self._db = kit.db

    def add_document(self, document: Document) -> None:
        props = rec.document_props(document)
        self._db.write(lambda tx: tx.run(cypher.CREATE_DOCUMENT, props=props).consume(),
                       conflict=f"space '{document.space_id}' already holds a document with "
                                f"sha256 {document.sha256} (or one with id '{document.id}')")

    def get_document(self, space_id: str, document_id: str) -> Document | None:
        rows = self._db.read(cypher.GET_DOCUMENT, id=document_id, space=space_id)
        return rec.document_from(rows[0]["document"]) if rows else None

    def ids_with_prefix(self, space_id: str, prefixes: Sequence[str], limit: int) -> list[str]:
        if not prefixes:
            return []
        rows = self._db.read(cypher.IDS_WITH_PREFIX, space=space_id,
                             prefixes=list(dict.fromkeys(prefixes)), limit=limit)
        return [i for r in rows for i in r["ids"]]

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
        self._db.write(lambda tx: tx.run(cypher.RELEASE_DOCUMENT, id=document_id,
                                         space=space_id, owner=owner).consume())

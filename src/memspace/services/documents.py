"""Reading documents (uploads arrive with the ingestion work)."""

from __future__ import annotations

from memspace.domain.errors import NotFound
from memspace.domain.models import Document
from memspace.domain.ports import GraphStore, PageAfter
from memspace.services.access import AccessService, Principal
from memspace.services.paging import Page, clamp_limit, decode_cursor, encode_cursor, fingerprint


class DocumentService:
    def __init__(self, store: GraphStore, access: AccessService, max_page_size: int = 100) -> None:
        self._store = store
        self._access = access
        self._max_page_size = max_page_size

    def list(
        self, principal: Principal, space: str | None = None, limit: int = 20,
        cursor: str | None = None,
    ) -> tuple[str, Page[Document]]:
        target = self._access.resolve(principal, space)
        size = clamp_limit(limit, self._max_page_size)
        query = fingerprint("documents", target.space.id)
        after = decode_cursor(cursor, query) if cursor else None
        rows = self._store.list_documents(target.space.id, size + 1, after)
        next_cursor = None
        if len(rows) > size:
            rows = rows[:size]
            next_cursor = encode_cursor(query, PageAfter(rows[-1].created_at, rows[-1].id))
        return target.space.slug, Page(rows, next_cursor)

    def get(self, principal: Principal, document_id: str, space: str | None = None) -> Document:
        target = self._access.resolve(principal, space)
        document = self._store.get_document(target.space.id, (document_id or "").strip())
        if document is None:
            raise NotFound(
                f"no document '{document_id}' in space '{target.space.slug}'; listDocuments "
                "shows the documents of a space"
            )
        return document

"""Reading documents: listings, status, and their extracted text a page of chunks at a time."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from memspace.domain.chunks import Chunk
from memspace.domain.errors import InvalidInput, NotFound
from memspace.domain.graph_port import WithDocuments, WithReads
from memspace.domain.models import Document, Memory
from memspace.domain.ports import DocumentStore, PageAfter
from memspace.services.access import AccessService, Principal
from memspace.services.documents.document_files import DocumentFiles
from memspace.services.shared import (
    Page,
    clamp_limit,
    decode_cursor,
    document_in,
    encode_cursor,
    fingerprint,
)


def document_titles(store: DocumentStore, space_id: str, memories: Iterable[Memory]) -> dict[str, str]:
    """Titles of the documents these memories came from (one read per distinct document)."""
    titles: dict[str, str] = {}
    for document_id in {m.document_id for m in memories if m.document_id}:
        document = store.get_document(space_id, document_id)
        if document is not None:
            titles[document_id] = document.title
    return titles


# Chunks per page of getDocument content: 10 chunks of ~800 characters keep a page near 8,000
# characters, a comfortable read for a model's context.
DEFAULT_CHUNKS_PER_PAGE = 10
MAX_CHUNKS_PER_PAGE = 50


@dataclass(frozen=True)
class DocumentPage:
    """A document with a page of its extracted text (getDocument)."""

    document: Document
    total: int  # chunks in the whole text
    offset: int  # index of the first chunk of `chunks`
    chunks: tuple[Chunk, ...]
    next_offset: int | None  # where the next page starts; None at the end
    notes: tuple[str, ...]  # what the reader noticed (skipped pages, truncation)
    unavailable: str | None = None  # why there is no text at all


class DocumentPorts(WithDocuments, WithReads, Protocol):
    """The documents, and the memories their chunks produced."""


class DocumentService:
    def __init__(self, store: DocumentPorts, access: AccessService, files: DocumentFiles,
                 max_page_size: int = 100) -> None:
        self._store = store
        self._access = access
        self._files = files
        self._max_page_size = max_page_size

    def list(
        self, principal: Principal, space: str | None = None, limit: int = 20,
        cursor: str | None = None,
    ) -> tuple[str, Page[Document]]:
        target = self._access.resolve(principal, space)
        size = clamp_limit(limit, self._max_page_size)
        query = fingerprint("documents", target.space.id)
        after = decode_cursor(cursor, query) if cursor else None
        rows = self._store.documents.list_documents(target.space.id, size + 1, after)
        next_cursor = None
        if len(rows) > size:
            rows = rows[:size]
            next_cursor = encode_cursor(query, PageAfter(rows[-1].created_at, rows[-1].id))
        return target.space.slug, Page(rows, next_cursor)

    def get(self, principal: Principal, document_id: str, space: str | None = None) -> Document:
        target = self._access.resolve(principal, space)
        document = document_in(self._store.documents, target.space.id, document_id)
        if document is None:
            raise NotFound(
                f"no document '{document_id}' in space '{target.space.slug}'; listDocuments "
                "shows the documents of a space"
            )
        return document

    def facts(self, principal: Principal, document_id: str, space: str | None = None,
              limit: int = 50) -> tuple[Document, Sequence[Memory]]:
        """A document and the first `limit` memories its chunks produced, in document order."""
        document = self.get(principal, document_id, space)
        size = clamp_limit(limit, self._max_page_size)
        return document, self._store.reads.memories_of_document(document.space_id, document.id, size)

    def content(self, principal: Principal, document_id: str, space: str | None = None,
                offset: int = 0, limit: int = DEFAULT_CHUNKS_PER_PAGE) -> DocumentPage:
        """The document and a page of its extracted text: chunks `offset`.. with their origins."""
        document = self.get(principal, document_id, space)
        if offset < 0 or not 1 <= limit <= MAX_CHUNKS_PER_PAGE:
            raise InvalidInput(f"offset must be 0 or more and limit between 1 and "
                               f"{MAX_CHUNKS_PER_PAGE}")
        try:
            text = self._files.text(document)
        except NotFound:
            return DocumentPage(document, 0, offset, (), None, (),
                                document.error or "no text was extracted from this document")
        page = tuple(text.chunks[offset:offset + limit])
        end = offset + len(page)
        return DocumentPage(document, len(text.chunks), offset, page,
                            end if end < len(text.chunks) else None, tuple(text.notes))

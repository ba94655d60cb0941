"""Turning uploaded files into memories, without ever losing what was uploaded.

The order is the guarantee:
1. upload: the original bytes are stored, then the document is recorded `queued`. Nothing is
   parsed in the request: a file built to be slow to read must not hold it.
2. process: its text is extracted (in a child process under MEMSPACE_MAX_PARSE_SECONDS, see
   ingest/budget.py) and stored as chunks, or the document ends `failed` with the reason, the
   original still kept; then `processing`; each chunk goes through the add pipeline
   (MemoryService.submit, exactly as add_memory), whose write links the facts to the document
   and advances `chunksDone` in the same transaction; then `done`. A failure stops at the
   chunk, says which and why, and leaves the document `failed` and retryable; a retry goes on
   from the first chunk not done.
A restart finds documents left `queued` or `processing` (`unfinished`) and processes them
again from `chunksDone`, so no chunk is skipped and none is turned into facts twice.

A server processes a document only while it holds its lease (GraphStore.claim_document), so two
servers sharing a store never work on one document at once; a crashed server's lease runs out
after LEASE and another (or its restart) takes over. Processing stops, the document `failed`,
as soon as the key that uploaded it is revoked or may no longer write the space.
"""

from __future__ import annotations

import hashlib
import os
import socket
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import PureWindowsPath
from typing import Protocol

from memspace.domain.chunks import Chunk, ChunkSource
from memspace.domain.errors import (
    Conflict,
    ContainsSecret,
    InvalidInput,
    MemspaceError,
    NotFound,
    UnreadableDocument,
)
from memspace.domain.files import DocumentReader
from memspace.domain.graph_port import WithDirectory, WithDocuments
from memspace.domain.models import Access, Document, DocumentStatus, Space
from memspace.domain.ports import Clock
from memspace.services.access import AccessService, Principal
from memspace.services.documents import DocumentFiles
from memspace.services.ingestion import document_secrets
from memspace.services.ingestion.upload_checks import document_title, too_large, uploader_refusal
from memspace.services.memories import AddRequest, MemoryService
from memspace.services.security import ContentGuard, screened_text, screened_upload
from memspace.services.shared import document_in, new_id

# Chunks embedded together ahead of the adds that need them (see embeddings/prefetch.py): the
# local model's batch size is 256, and 64 keeps the first add of a window waiting ~1 s at most.
PREFETCH_WINDOW = 64
UNFINISHED = (DocumentStatus.QUEUED, DocumentStatus.PROCESSING)
# How long a processing lease lasts without renewal, and how often it is renewed. A step between
# two renewals is one chunk (embedding, at most two model calls of MEMSPACE_LLM_TIMEOUT_S = 30 s)
# or reading the file (MEMSPACE_MAX_PARSE_SECONDS = 60 s): both well inside two minutes.
LEASE = timedelta(minutes=2)
RENEW_EVERY_S = 10.0
# An upload writes its original, then records the document, within a second or two (the upload
# itself is already read by then); files an hour old without a document were left by a crash.
ORPHAN_AGE_S = 3600.0

Progress = Callable[[Document], None]


@dataclass(frozen=True)
class Uploaded:
    document: Document
    duplicate: bool = False  # the same bytes were already uploaded to this space


class IngestionPorts(WithDirectory, WithDocuments, Protocol):
    """The store roles document ingestion uses (its memories go through MemoryService)."""


class IngestionService:
    def __init__(self, store: IngestionPorts, access: AccessService, memories: MemoryService,
                 reader: DocumentReader, files: DocumentFiles, clock: Clock,
                 max_upload_bytes: int,
                 prefetch: Callable[[Sequence[str]], None] | None = None,
                 guard: ContentGuard | None = None) -> None:
        self._guard = guard  # the file, its text, title and name pass the write guard
        self._store = store
        self._access = access
        self._memories = memories
        self._reader = reader
        self._files = files
        self._clock = clock
        self.max_upload_bytes = max_upload_bytes
        self._prefetch = prefetch
        self._listeners: list[Callable[[Document], None]] = []
        # Who holds a lease: unique per service instance, readable in the store.
        self.worker_id = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"

    def on_queued(self, listener: Callable[[Document], None]) -> None:
        """Call `listener` with each document that becomes `queued` (the worker's inbox)."""
        self._listeners.append(listener)

    def upload(self, principal: Principal, filename: str, data: bytes, space: str | None = None,
               title: str | None = None) -> Uploaded:
        """Store the file and its text, and queue it; the same bytes again return the first upload.

        Raises:
            InvalidInput: empty, or not a kind memspace reads (nothing stored).
            TooLarge: over MEMSPACE_MAX_UPLOAD_BYTES (nothing stored).
        """
        target = self._access.resolve(principal, space, write=True)
        name = PureWindowsPath(filename or "").name.strip() or "upload"  # also strips C:\ paths
        if not data:
            raise InvalidInput(f"'{name}' is empty (0 bytes); choose the file again. Nothing was "
                               "stored")
        if len(data) > self.max_upload_bytes:
            raise too_large(self.max_upload_bytes, len(data), f"'{name}'")
        digest = hashlib.sha256(data).hexdigest()
        existing = self._store.documents.find_document_by_sha256(target.space.id, digest)
        if existing is not None:
            return Uploaded(existing, duplicate=True)
        kind = self._reader.kind_of(name, data)
        document_id = new_id()  # before the guard, so its audit entry names the document
        data, shown = screened_upload(self._guard, target.space.id, principal.actor, kind, data,
                                      document_title(title, name), name, document_id)
        document = Document(
            id=document_id, space_id=target.space.id, title=shown, kind=kind,
            size_bytes=len(data), sha256=digest, status=DocumentStatus.QUEUED,
            created_at=self._clock.now(), created_by=principal.actor,
            uploaded_by_key=principal.key_id,
        )
        self._files.put_original(document, data)
        try:
            self._store.documents.add_document(document)
        except Conflict:  # the same file arrived twice at once: the other upload won
            existing = self._store.documents.find_document_by_sha256(target.space.id, digest)
            if existing is None:
                raise
            return Uploaded(existing, duplicate=True)
        self._announce(document)
        return Uploaded(document)

    def retry(self, principal: Principal, document_id: str, space: str | None = None) -> Document:
        """Queue a failed document again: from its first chunk not done, or, when its text was
        never extracted, to read the stored original again (under the current limits).

        Raises:
            Conflict: the document has not failed.
        """
        target = self._access.resolve(principal, space, write=True)
        document = document_in(self._store.documents, target.space.id, document_id)
        if document is None:
            raise NotFound(f"no document '{document_id}' in space '{target.space.slug}'; "
                           "listDocuments shows the documents of a space")
        if document.status is not DocumentStatus.FAILED:
            raise Conflict(f"document '{document.id}' is {document.status.value}; only a failed "
                           "document can be retried")
        try:
            total: int | None = len(self._files.text(document).chunks)
        except NotFound:
            try:
                self._files.original(document)
            except NotFound as exc:
                raise NotFound(f"the original of document '{document.id}' is missing from the "
                               f"data folder ({exc.message}); upload the file again") from exc
            total = None  # read again by `process`
        # The retrier's key answers for it from now on (the uploader's may be the revoked one).
        queued = self._store.documents.update_document(document.space_id, document.id,
                                             DocumentStatus.QUEUED, chunks_total=total,
                                             uploaded_by_key=principal.key_id)
        self._announce(queued)
        return queued

    def sweep_orphans(self, age_s: float = ORPHAN_AGE_S) -> int:
        """Delete the stored files of uploads a crash stopped before their document was
        recorded; how many files. Only older ones: an upload in flight is not an orphan."""
        return self._files.sweep_orphans(
            lambda space_id, document_id: self._store.documents.get_document(space_id, document_id)
            is not None, age_s)

    def unfinished(self) -> list[Document]:
        """Documents a previous run left queued or processing, oldest first."""
        return self._store.documents.documents_with_status(UNFINISHED)

    def process(self, document: Document, progress: Progress | None = None,
                should_stop: Callable[[], bool] = lambda: False) -> Document:
        """Run a queued (or interrupted) document's remaining chunks through the add pipeline.

        Returns the document as it ends: `done`, `failed` with the reason, or still
        `processing` when `should_stop` said so between two chunks (a later run goes on).
        """
        current = self._store.documents.get_document(document.space_id, document.id)
        space = self._store.directory.get_space(document.space_id)
        if current is None or space is None or current.status not in UNFINISHED:
            return current or document
        claimed = self._claim(current)
        if claimed is None:  # another server holds it
            return current
        current = claimed
        renewed = time.monotonic()
        refusal = uploader_refusal(self._store.directory, current)
        if refusal is not None:
            return self.fail(current, refusal)
        chunks = self._chunks(current)
        if isinstance(chunks, Document):
            return chunks
        current = self._store.documents.update_document(space.id, current.id, DocumentStatus.PROCESSING,
                                              chunks_total=len(chunks))
        # Memories are written as the uploader (their createdBy), and into this space only.
        writer = Principal(name=current.created_by, key_id=None,
                           grants={space.id: Access.READWRITE})
        return self._run_chunks(current, space, chunks, writer, renewed, progress, should_stop)

    def _run_chunks(self, current: Document, space: Space, chunks: tuple[Chunk, ...],
                    writer: Principal, renewed: float, progress: Progress | None,
                    should_stop: Callable[[], bool]) -> Document:
        """`process`'s loop: each chunk not done through the add pipeline, the lease renewed
        and the uploader's key checked between two chunks."""
        first = current.chunks_done
        report = document_secrets.carried(current)  # what the guard step did to earlier chunks
        for index in range(first, len(chunks)):
            if should_stop():
                self._store.documents.release_document(space.id, current.id, self.worker_id)
                return current
            if time.monotonic() - renewed > RENEW_EVERY_S:
                if self._claim(current) is None:  # our lease ran out and another server has it
                    return current
                renewed = time.monotonic()
            refusal = uploader_refusal(self._store.directory, current)
            if refusal is not None:
                return self.fail(current, f"stopped at chunk {index + 1} of {len(chunks)}: "
                                          f"{refusal}")
            if self._prefetch is not None and (index - first) % PREFETCH_WINDOW == 0:
                self._prefetch([c.text.strip() for c in chunks[index:index + PREFETCH_WINDOW]])
            chunk = chunks[index]
            try:
                added = self._memories.submit(writer, AddRequest(
                    chunk.text, space.slug, source=ChunkSource(current.id, index, chunk.origin)))
            except ContainsSecret as exc:  # this chunk is not stored; the document goes on
                report.append(document_secrets.refused(index, chunk.origin, exc))
                added = None
            except MemspaceError as exc:
                return self.fail(current, (
                    f"stopped at chunk {index + 1} of {len(chunks)} ({chunk.origin}): "
                    f"{exc.message}. The chunks before it are saved; retry the document to go "
                    "on from there"))
            entry = document_secrets.redacted(index, chunk.origin, added.warnings) if added else None
            report += [entry] if entry else []
            if added is None or added.status != "created" or entry:
                # nothing written (so the write did not advance it), or a report to keep
                self._store.documents.update_document(space.id, current.id, DocumentStatus.PROCESSING,
                                            error=document_secrets.note(report),
                                            chunks_done=index + 1)
            current = replace(current, chunks_done=index + 1)
            if progress is not None:
                progress(current)
        return self._store.documents.update_document(space.id, current.id, DocumentStatus.DONE,
                                           error=document_secrets.note(report))

    def _claim(self, document: Document) -> Document | None:
        now = self._clock.now()
        return self._store.documents.claim_document(document.space_id, document.id, self.worker_id, now,
                                          now + LEASE)

    def _chunks(self, document: Document) -> tuple[Chunk, ...] | Document:
        """The document's stored chunks; read from its original (and stored) the first time.
        When it cannot be read, the document as failed with the reason."""
        try:
            return self._files.text(document).chunks
        except NotFound:
            pass
        try:
            original = self._files.original(document)
        except NotFound:
            return self.fail(document, "its original is missing from the data folder; upload "
                                       "the file again")
        try:
            text = self._reader.read(document.kind, original)
        except UnreadableDocument as exc:
            return self.fail(document, exc.message)
        text, refusal, redacted = screened_text(self._guard, document, text)
        if refusal is not None or redacted:  # its bytes hold what may not be kept
            self._files.drop_original(document)
        if refusal is not None:
            return self.fail(document, refusal)
        self._files.put_text(document, text)
        return text.chunks

    def fail(self, document: Document, reason: str) -> Document:
        """Mark the document failed with the reason (it stays retryable)."""
        return self._store.documents.update_document(document.space_id, document.id,
                                           DocumentStatus.FAILED, reason)

    def _announce(self, document: Document) -> None:
        if document.status is DocumentStatus.QUEUED:
            for listener in self._listeners:
                listener(document)


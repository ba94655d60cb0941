"""Who may retry a failed document, what it keeps, and the words of the upload limit."""

from __future__ import annotations

import pytest

from memspace.domain.errors import Forbidden, NotFound, Unavailable
from memspace.domain.models import DocumentStatus
from memspace.domain.ports import WriteBatch
from memspace.ingest.reader import FileReader, ReaderLimits
from memspace.services.ingestion.upload_checks import too_large
from tests.support.fakes import MemoryBlobStore
from tests.unit.conftest import World

NOTES = b"Deploys go out on Thursdays.\n\nEvery deploy needs two approvals.\n\nRollbacks are announced."


def failed_half_way(world: World) -> tuple[str, str]:
    """A three-chunk document whose second chunk failed to write: (document id, space id)."""
    uploader = world.principal({"acme": "rw"})
    world.app.ingestion._reader = FileReader(  # type: ignore[attr-defined]
        ReaderLimits(chunk_chars=40, max_chunk_chars=200))
    queued = world.app.ingestion.upload(uploader, "runbook.txt", NOTES).document
    store, write = world.app.store, world.app.store.writes.write
    calls = 0

    def flaky(batch: WriteBatch) -> None:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise Unavailable("the store did not answer")
        write(batch)

    store.writes.write = flaky  # type: ignore[method-assign]
    failed = world.app.ingestion.process(queued)
    store.writes.write = write  # type: ignore[method-assign]
    assert (failed.status, failed.chunks_done, failed.chunks_total) == (DocumentStatus.FAILED, 1, 3)
    return failed.id, failed.space_id


def test_a_retry_keeps_the_chunks_done_and_hands_the_document_to_the_retrier(world: World) -> None:
    document_id, _ = failed_half_way(world)
    retrier = world.principal({"acme": "rw", "other": "rw"}, name="bo")
    world.app.access.set_active_space(retrier, "other")  # the slug given wins over it
    requeued = world.app.ingestion.retry(retrier, f" {document_id} ", "acme")
    assert (requeued.status, requeued.chunks_done, requeued.chunks_total, requeued.uploaded_by_key) == (
        DocumentStatus.QUEUED, 1, 3, retrier.key_id)


def test_a_reader_of_the_space_cannot_retry(world: World) -> None:
    document_id, space_id = failed_half_way(world)
    reader = world.principal({"acme": "r"})
    with pytest.raises(Forbidden, match="can only read space 'acme'"):
        world.app.ingestion.retry(reader, document_id, "acme")
    document = world.app.store.documents.get_document(space_id, document_id)
    assert document is not None and document.status is DocumentStatus.FAILED


def test_a_retry_names_what_is_missing(world: World) -> None:
    document_id, space_id = failed_half_way(world)
    who = world.principal({"acme": "rw"})
    with pytest.raises(NotFound) as unknown:
        world.app.ingestion.retry(who, "doc-nope", "acme")
    assert unknown.value.message == ("no document 'doc-nope' in space 'acme'; listDocuments shows "
                                     "the documents of a space")
    with pytest.raises(NotFound):
        world.app.ingestion.retry(who, "", "acme")
    stored = world.app.ingestion._files._blobs  # type: ignore[attr-defined]
    assert isinstance(stored, MemoryBlobStore)
    for name in [k for k in stored.blobs if k.startswith(f"{space_id}/{document_id}/")]:
        del stored.blobs[name]
    with pytest.raises(NotFound) as lost:
        world.app.ingestion.retry(who, document_id, "acme")
    assert lost.value.message.startswith(
        f"the original of document '{document_id}' is missing from the data folder (")
    assert lost.value.message.endswith("); upload the file again")


def test_the_upload_limit_says_the_size_the_limit_and_what_to_do() -> None:
    limit = 12 * 2**20
    assert too_large(limit, limit + 1, "'big.txt'").message == (
        "'big.txt' is 12,582,913 bytes; the upload limit is 12,582,912 bytes (12 MiB, "
        "MEMSPACE_MAX_UPLOAD_BYTES). Split it into smaller files, or ask the operator to raise the "
        "limit; nothing was stored")
    assert too_large(limit).message.startswith(
        "the file is too large: the upload limit is 12,582,912 bytes (12 MiB,")


def test_a_document_never_read_is_queued_to_be_read_again(world: World) -> None:
    from tests.support import corpus

    who = world.principal({"acme": "rw"})
    failed = world.app.ingestion.process(
        world.app.ingestion.upload(who, "locked.pdf", corpus.encrypted_pdf()).document)
    assert (failed.status, failed.chunks_total) == (DocumentStatus.FAILED, 0)
    requeued = world.app.ingestion.retry(who, failed.id, "acme")
    assert (requeued.status, requeued.chunks_total, requeued.chunks_done) == (DocumentStatus.QUEUED, 0, 0)

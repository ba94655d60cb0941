"""Ingestion over fakes: what is stored first, what each chunk becomes, and what a failure,
a restart or a retry leaves behind."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from memspace.domain.errors import Conflict, Forbidden, InvalidInput, TooLarge, Unavailable
from memspace.domain.models import Document, DocumentStatus, MemoryFilter
from memspace.domain.ports import WriteBatch
from memspace.present.json import search_json, upload_json
from memspace.services.search.search import SearchRequest
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from memspace.stores.sqlite import SqliteStore
from tests.support import corpus
from tests.support.fakes import HashEmbedder, MemoryBlobStore, StepClock, fact
from tests.unit.conftest import World

NOTES = b"Deploys go out on Thursdays.\n\nEvery deploy needs two approvals.\n\nRollbacks are announced."


def blobs(world: World) -> MemoryBlobStore:
    store = world.app.ingestion._files._blobs  # type: ignore[attr-defined]
    assert isinstance(store, MemoryBlobStore)
    return store


def space_id(world: World, slug: str = "acme") -> str:
    space = world.app.store.directory.get_space_by_slug(slug)
    assert space is not None
    return space.id


def contents(world: World, slug: str = "acme") -> list[str]:
    where = MemoryFilter(space_id(world, slug), include_inactive=True)
    rows = world.app.store.reads.list_memories(where, 100)
    return sorted(m.content for m in rows)


def small_chunks(world: World) -> None:
    """Chunks of at most 40 characters, so NOTES makes three."""
    from memspace.ingest.reader import FileReader, ReaderLimits

    world.app.ingestion._reader = FileReader(  # type: ignore[attr-defined]
        ReaderLimits(chunk_chars=40, max_chunk_chars=200))


def test_an_upload_is_stored_then_queued_then_each_chunk_becomes_a_linked_memory(world: World) -> None:
    who = world.principal({"acme": "rw"}, name="ana")
    small_chunks(world)
    uploaded = world.app.ingestion.upload(who, "runbook.txt", NOTES, title="Runbook")
    queued = uploaded.document
    assert (queued.status, queued.chunks_total, queued.title, queued.created_by) == (
        DocumentStatus.QUEUED, 0, "Runbook", "ana")  # nothing is parsed in the request
    assert blobs(world).blobs[f"{queued.space_id}/{queued.id}/original"] == NOTES
    assert f"{queued.space_id}/{queued.id}/extracted.json" not in blobs(world).blobs
    assert contents(world) == []
    calls = world.embedder.calls
    done = world.app.ingestion.process(queued)
    assert world.embedder.calls == calls + 1  # the three chunks embedded in one batch
    assert (done.status, done.chunks_done, done.fact_count, done.error) == (
        DocumentStatus.DONE, 3, 3, None)
    assert contents(world) == ["Deploys go out on Thursdays.", "Every deploy needs two approvals.",
                               "Rollbacks are announced."]
    found = world.app.search.search(who, SearchRequest(query="deploy approvals", limit=1))
    [hit] = search_json(found)["results"]
    assert (hit["documentId"], hit["documentTitle"], hit["origin"], hit["createdBy"]) == (
        queued.id, "Runbook", "line 3", "ana")
    detail = world.app.memories.get(who, hit["id"])
    assert detail.source is not None and detail.source.title == "Runbook"
    assert detail.memory.origin == "line 3"


def test_the_same_file_again_is_the_same_document(world: World) -> None:
    who = world.principal({"acme": "rw", "other": "rw"})
    first = world.app.ingestion.upload(who, "runbook.txt", NOTES, space="acme")
    world.app.ingestion.process(first.document)
    again = world.app.ingestion.upload(who, "renamed.txt", NOTES, space="acme", title="Another")
    assert again.duplicate and again.document.id == first.document.id
    assert upload_json(again)["duplicate"] is True and again.document.status is DocumentStatus.DONE
    elsewhere = world.app.ingestion.upload(who, "runbook.txt", NOTES, space="other")
    assert not elsewhere.duplicate and elsewhere.document.space_id == space_id(world, "other")


@pytest.mark.parametrize("name, data, reason", [
    ("locked.pdf", corpus.encrypted_pdf(), "encrypted PDF"),
    ("scan.pdf", corpus.scanned_pdf(), "no text layer"),
    ("export.csv", corpus.binary_as_csv().data, "binary data"),
])
def test_an_unreadable_file_is_kept_and_its_document_fails_with_the_reason(
    world: World, name: str, data: bytes, reason: str
) -> None:
    who = world.principal({"acme": "rw"})
    world.app.memories.add(who, "Something already known")
    uploaded = world.app.ingestion.upload(who, name, data).document
    assert uploaded.status is DocumentStatus.QUEUED  # read by the worker, not the request
    failed = world.app.ingestion.process(uploaded)
    assert failed.status is DocumentStatus.FAILED and reason in (failed.error or "")
    assert blobs(world).blobs[f"{uploaded.space_id}/{uploaded.id}/original"] == data
    assert world.app.store.documents.get_document(uploaded.space_id, uploaded.id) == failed
    assert contents(world) == ["Something already known"]
    assert world.app.ingestion.process(failed).status is DocumentStatus.FAILED


@pytest.mark.parametrize("name, data, error, words", [
    ("empty.txt", b"", InvalidInput, "'empty.txt' is empty (0 bytes)"),
    ("photo.png", b"\x89PNG\r\n\x1a\n....", InvalidInput, "'photo.png' is not a file memspace reads"),
    ("big.txt", b"x" * 1001, TooLarge, "'big.txt' is 1,001 bytes; the upload limit is 1,000 bytes"),
])
def test_refused_uploads_store_nothing(world: World, name: str, data: bytes,
                                       error: type[Exception], words: str) -> None:
    world.app.ingestion.max_upload_bytes = 1000
    who = world.principal({"acme": "rw"})
    with pytest.raises(error, match=re.escape(words)):
        world.app.ingestion.upload(who, name, data)
    assert blobs(world).blobs == {} and world.app.store.documents.list_documents(space_id(world), 10) == []


def test_a_read_key_cannot_upload(world: World) -> None:
    with pytest.raises(Forbidden, match="can only read"):
        world.app.ingestion.upload(world.principal({"acme": "r"}), "notes.txt", NOTES)


def test_a_full_disk_refuses_the_upload_and_records_nothing(world: World) -> None:
    blobs(world).fail_puts_after = 0
    with pytest.raises(Unavailable, match="disk full"):
        world.app.ingestion.upload(world.principal({"acme": "rw"}), "notes.txt", NOTES)
    assert world.app.store.documents.list_documents(space_id(world), 10) == []


def test_an_interrupted_document_resumes_at_its_first_chunk_not_done(world: World) -> None:
    who = world.principal({"acme": "rw"})
    small_chunks(world)
    queued = world.app.ingestion.upload(who, "runbook.txt", NOTES).document
    seen: list[int] = []
    stopped = world.app.ingestion.process(
        queued, progress=lambda d: seen.append(d.chunks_done), should_stop=lambda: len(seen) == 1)
    assert (stopped.status, stopped.chunks_done) == (DocumentStatus.PROCESSING, 1)
    assert [d.id for d in world.app.ingestion.unfinished()] == [queued.id]
    # Re-done chunks would be deduplicated into the same end state, so watch which chunks run.
    resumed: list[int] = []
    done = world.app.ingestion.process(queued, progress=lambda d: resumed.append(d.chunks_done))
    assert resumed == [2, 3]
    assert (done.status, done.chunks_done, done.fact_count) == (DocumentStatus.DONE, 3, 3)
    assert len(contents(world)) == 3 and world.app.ingestion.unfinished() == []


def test_a_failure_mid_way_keeps_what_was_done_and_a_retry_goes_on(world: World) -> None:
    who = world.principal({"acme": "rw"})
    small_chunks(world)
    queued = world.app.ingestion.upload(who, "runbook.txt", NOTES).document
    store = world.app.store
    write = store.writes.write
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
    assert failed.status is DocumentStatus.FAILED and failed.chunks_done == 1
    assert failed.error is not None and failed.error.startswith(
        "stopped at chunk 2 of 3 (line 3): the store did not answer")
    assert contents(world) == ["Deploys go out on Thursdays."]
    other = world.app.ingestion.upload(who, "other.txt", b"Other text.").document
    with pytest.raises(Conflict, match="is queued; only a failed document can be retried"):
        world.app.ingestion.retry(who, other.id)
    requeued = world.app.ingestion.retry(who, queued.id)
    assert (requeued.status, requeued.error, requeued.chunks_done) == (DocumentStatus.QUEUED, None, 1)
    done = world.app.ingestion.process(requeued)
    assert (done.status, done.fact_count) == (DocumentStatus.DONE, 3)


def test_a_retry_reads_the_original_again_under_the_current_limits(world: World) -> None:
    from memspace.ingest.reader import FileReader, ReaderLimits

    who = world.principal({"acme": "rw"})
    world.app.ingestion._reader = FileReader(ReaderLimits(max_pdf_pages=1))  # type: ignore[attr-defined]
    uploaded = world.app.ingestion.upload(who, "pricing.pdf", corpus.two_page_pdf()).document
    failed = world.app.ingestion.process(uploaded)
    assert "has 2 pages; the limit is 1" in (failed.error or "")
    still = world.app.ingestion.process(world.app.ingestion.retry(who, failed.id))
    assert still.status is DocumentStatus.FAILED
    world.app.ingestion._reader = FileReader()  # type: ignore[attr-defined]
    requeued = world.app.ingestion.retry(who, failed.id)
    assert requeued.status is DocumentStatus.QUEUED
    done = world.app.ingestion.process(requeued)
    assert (done.chunks_total, done.fact_count) == (1, 1)


def test_chunks_are_embedded_a_window_at_a_time(world: World) -> None:
    from memspace.services.ingestion.ingestion import PREFETCH_WINDOW

    who = world.principal({"acme": "rw"})
    small_chunks(world)
    lines = b"\n\n".join(b"Fact number %d is here." % i for i in range(PREFETCH_WINDOW + 6))
    document = world.app.ingestion.upload(who, "many.txt", lines).document
    calls = world.embedder.calls
    done = world.app.ingestion.process(document)
    assert done.chunks_done == PREFETCH_WINDOW + 6
    assert world.embedder.calls == calls + 2


def test_a_chunk_that_repeats_a_memory_is_a_duplicate_and_still_counts_as_done(world: World) -> None:
    who = world.principal({"acme": "rw"})
    world.app.memories.add(who, "Deploys go out on Thursdays.")
    document = world.app.ingestion.upload(who, "one.txt", b"Deploys go out on Thursdays.").document
    done = world.app.ingestion.process(document)
    assert (done.status, done.chunks_done, done.fact_count) == (DocumentStatus.DONE, 1, 0)
    assert contents(world) == ["Deploys go out on Thursdays."]


def test_with_a_model_each_chunk_is_one_extraction_and_its_facts_link_back(model_world: World) -> None:
    assert model_world.extractor is not None
    who = model_world.principal({"acme": "rw"})
    small_chunks(model_world)
    model_world.extractor.facts(fact("Deploys happen on Thursdays", "convention"))
    model_world.extractor.facts(fact("A deploy needs two approvals", "convention"),
                                fact("Approvals come from the team", "convention"))
    model_world.extractor.facts(fact("Rollbacks are announced", "process", e=(0, "extends")))
    document = model_world.app.ingestion.upload(who, "runbook.txt", NOTES).document
    done = model_world.app.ingestion.process(document)
    assert [c[0] for c in model_world.extractor.calls] == [
        "Deploys go out on Thursdays.", "Every deploy needs two approvals.", "Rollbacks are announced."]
    assert (done.status, done.fact_count) == (DocumentStatus.DONE, 4)
    rows = model_world.app.store.reads.list_memories(MemoryFilter(document.space_id), 10)
    assert {m.document_id for m in rows} == {document.id}
    assert {m.origin for m in rows} == {"line 1", "line 3", "line 5"}


def test_the_worker_resumes_unfinished_documents_and_takes_new_uploads(tmp_path: Path) -> None:
    # A file store: the worker's thread and this one write at once, which the shared-cache
    # in-memory database of the other tests refuses (SQLITE_LOCKED ignores the busy timeout).
    settings = Settings(_env_file=None, data_dir=tmp_path)  # type: ignore[call-arg]
    app = build(settings, store=SqliteStore(tmp_path / "memspace.db"), embedder=HashEmbedder(),
                clock=StepClock(), blobs=MemoryBlobStore())
    app.admin.create_space("acme")
    who = app.access.operator()
    left = app.ingestion.upload(who, "left.txt", b"Left over from the last run.", "acme").document
    app.worker.start()
    try:
        fresh = app.ingestion.upload(who, "fresh.txt", b"Uploaded while running.", "acme").document
        assert wait_for(app, left).status is DocumentStatus.DONE
        assert wait_for(app, fresh).status is DocumentStatus.DONE
    finally:
        app.worker.stop()
    rows = app.store.reads.list_memories(MemoryFilter(left.space_id), 10)
    assert sorted(m.content for m in rows) == ["Left over from the last run.",
                                               "Uploaded while running."]
    app.close()


def wait_for(app: Container, document: Document, bound_s: float = 30.0) -> Document:
    """Poll until the document is done or failed; the bound only guards against a hang."""
    deadline = time.monotonic() + bound_s
    while True:
        current = app.store.documents.get_document(document.space_id, document.id)
        assert current is not None
        if current.status in (DocumentStatus.DONE, DocumentStatus.FAILED):
            return current
        assert time.monotonic() < deadline, f"still {current.status.value} after {bound_s} s"
        time.sleep(0.01)


"""Who may keep a document processing: only the holder of its lease (two servers sharing a
store never both work on it), and only while the key that uploaded it may still write."""

from __future__ import annotations

import copy
import os
import time
from pathlib import Path

from memspace.domain.models import Access, Document, DocumentStatus, MemoryFilter
from memspace.services.documents.document_files import DocumentFiles
from memspace.services.ingestion.ingestion import ORPHAN_AGE_S
from memspace.stores.files import FilesystemBlobStore
from tests.unit.conftest import World
from tests.unit.test_ingestion import NOTES, small_chunks


def memories(world: World, document: Document) -> list[str]:
    rows = world.app.store.reads.list_memories(MemoryFilter(document.space_id), 100)
    return sorted(m.content for m in rows)


def test_a_document_whose_uploading_key_is_revoked_stops_and_a_writer_can_retry_it(
    world: World,
) -> None:
    small_chunks(world)
    created = world.app.admin.create_key("uploader", {"acme": Access.READWRITE})
    uploader = world.app.access.authenticate(created.raw)
    queued = world.app.ingestion.upload(uploader, "runbook.txt", NOTES).document
    assert queued.uploaded_by_key == created.key.id

    def revoke_after_the_first_chunk(progress: Document) -> None:
        if progress.chunks_done == 1:
            world.app.admin.revoke_key(created.key.id)

    stopped = world.app.ingestion.process(queued, revoke_after_the_first_chunk)
    assert (stopped.status, stopped.chunks_done) == (DocumentStatus.FAILED, 1)
    assert stopped.error == ("stopped at chunk 2 of 3: the API key that uploaded it was revoked, "
                             "so its processing stopped; a writer of this space can retry the "
                             "document")
    assert memories(world, queued) == ["Deploys go out on Thursdays."]
    teammate = world.principal({"acme": "rw"}, name="teammate")
    done = world.app.ingestion.process(world.app.ingestion.retry(teammate, queued.id))
    assert (done.status, done.chunks_done, done.uploaded_by_key) == (
        DocumentStatus.DONE, 3, teammate.key_id)
    assert len(memories(world, queued)) == 3


def test_a_revoked_key_s_queued_document_fails_before_anything_is_read(world: World) -> None:
    created = world.app.admin.create_key("uploader", {"acme": Access.READWRITE})
    uploader = world.app.access.authenticate(created.raw)
    queued = world.app.ingestion.upload(uploader, "runbook.txt", NOTES).document
    world.app.admin.revoke_key(created.key.id)
    failed = world.app.ingestion.process(queued)
    assert failed.status is DocumentStatus.FAILED and "was revoked" in (failed.error or "")
    assert failed.chunks_total == 0 and memories(world, queued) == []


def test_a_second_server_leaves_a_document_alone_while_the_first_holds_its_lease(
    world: World,
) -> None:
    small_chunks(world)
    who = world.principal({"acme": "rw"})
    queued = world.app.ingestion.upload(who, "runbook.txt", NOTES).document
    other = copy.copy(world.app.ingestion)  # a second server on the same store
    other.worker_id = "another-server"
    seen: list[DocumentStatus] = []

    def the_other_server_tries(progress: Document) -> None:
        if progress.chunks_done == 1:
            seen.append(other.process(queued).status)

    done = world.app.ingestion.process(queued, the_other_server_tries)
    assert seen == [DocumentStatus.PROCESSING]  # it returned without touching the document
    assert (done.status, done.chunks_done, done.fact_count) == (DocumentStatus.DONE, 3, 3)
    assert len(memories(world, queued)) == 3


def test_a_clean_stop_releases_the_lease_so_the_next_start_goes_on_at_once(world: World) -> None:
    small_chunks(world)
    who = world.principal({"acme": "rw"})
    queued = world.app.ingestion.upload(who, "runbook.txt", NOTES).document
    stopped = world.app.ingestion.process(queued, should_stop=lambda: bool(
        (d := world.app.store.documents.get_document(queued.space_id, queued.id)) and d.chunks_done >= 1))
    assert (stopped.status, stopped.chunks_done) == (DocumentStatus.PROCESSING, 1)
    restarted = copy.copy(world.app.ingestion)
    restarted.worker_id = "the-restarted-server"
    assert restarted.process(queued).status is DocumentStatus.DONE


def test_files_of_an_upload_a_crash_cut_short_are_swept_once_old(tmp_path: Path) -> None:
    blobs = FilesystemBlobStore(tmp_path)
    blobs.put("space-1/kept/original", b"a document's file")
    blobs.put("space-1/ghost/original", b"written, then the server died")
    leftover = tmp_path / "space-1" / "ghost" / ".original.abc123.tmp"  # a put cut short
    leftover.write_bytes(b"half")
    blobs.put("space-1/recent/original", b"an upload in flight")
    old = time.time() - 2 * ORPHAN_AGE_S
    for key in ("space-1/kept/original", "space-1/ghost/original",
                "space-1/ghost/.original.abc123.tmp"):
        os.utime(tmp_path / key, (old, old))
    recorded = {("space-1", "kept")}
    removed = DocumentFiles(blobs).sweep_orphans(lambda s, d: (s, d) in recorded, ORPHAN_AGE_S)
    assert removed == 2
    assert not (tmp_path / "space-1" / "ghost").exists()  # its emptied folder too
    assert blobs.get("space-1/kept/original") == b"a document's file"
    assert blobs.get("space-1/recent/original") == b"an upload in flight"


def test_the_sweep_keeps_every_file_of_a_recorded_document(world: World) -> None:
    who = world.principal({"acme": "rw"})
    uploaded = world.app.ingestion.upload(who, "runbook.txt", NOTES).document
    world.app.ingestion.process(uploaded)
    files = world.app.ingestion._files._blobs  # type: ignore[attr-defined]
    files.put(f"{uploaded.space_id}/never-recorded/original", b"orphan")
    assert world.app.ingestion.sweep_orphans(age_s=0) == 1
    assert sorted(files.blobs) == [f"{uploaded.space_id}/{uploaded.id}/extracted.json",
                                   f"{uploaded.space_id}/{uploaded.id}/original"]

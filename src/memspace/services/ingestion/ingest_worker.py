"""The server's background ingestion: one thread, one document at a time, oldest first.

Started and stopped by the app's lifespan. On start it first queues what an earlier run left
`queued` or `processing`; after that, each upload or retry that queues a document hands it
over. Stopping finishes the chunk in hand and leaves the document `processing`, which the next
start resumes from its first chunk not done. One thread is deliberate: chunks of one space
must see each other's facts (as candidates, as duplicates), and the embedder and the model
are the bottleneck either way.
"""

from __future__ import annotations

import logging
import queue
import threading

from memspace.domain.errors import MemspaceError
from memspace.domain.models import Document
from memspace.domain.notes import NoteJob
from memspace.services.ingestion.ingestion import LEASE, IngestionService
from memspace.services.memories import NoteExtraction

log = logging.getLogger(__name__)


class IngestionWorker:
    """Documents and notes saved without waiting (docs/contract.md), one at a time in arrival order,
    so a burst of adds to one space is extracted in the order it was saved."""

    def __init__(self, ingestion: IngestionService, notes: NoteExtraction | None = None) -> None:
        self._ingestion = ingestion
        self._notes = notes
        self._inbox: queue.Queue[Document | NoteJob | None] = queue.Queue()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        ingestion.on_queued(self.submit)
        if notes is not None:
            notes.on_queued(self.submit)

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stopping.clear()
        # Before the thread runs, so notes left pending go ahead of any saved from now on.
        self._enqueue_pending_notes()
        self._thread = threading.Thread(target=self._run, name="memspace-ingest", daemon=True)
        self._thread.start()

    def queue_depth(self) -> int:
        """Documents handed over and not yet taken up (approximate while the worker runs)."""
        return self._inbox.qsize()

    def submit(self, job: Document | NoteJob) -> None:
        self._inbox.put(job)

    def stop(self, timeout_s: float = 10.0) -> None:
        """Stop after the chunk in hand (a model call may take up to its timeout)."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stopping.set()
        self._inbox.put(None)
        thread.join(timeout_s)
        if thread.is_alive():
            log.warning("ingestion worker still busy after %.0f s; its document resumes on the "
                        "next start", timeout_s)

    def _run(self) -> None:
        self._sweep()
        self._enqueue_unfinished()
        while not self._stopping.is_set():
            try:
                queued = self._inbox.get(timeout=LEASE.total_seconds())
            except queue.Empty:
                # Idle: look for documents whose lease ran out (another server sharing the
                # store died while processing them); a live holder's are skipped by the claim.
                self._sweep()
                self._enqueue_unfinished()
                continue
            if queued is None:
                break
            self._process(queued)

    def _sweep(self) -> None:
        try:
            removed = self._ingestion.sweep_orphans()
        except (MemspaceError, OSError) as exc:
            log.error("could not clean up files of interrupted uploads: %s", exc)
            return
        if removed:
            log.info("removed %d file(s) of uploads interrupted before they were recorded", removed)

    def _enqueue_unfinished(self) -> None:
        try:
            for document in self._ingestion.unfinished():
                self._inbox.put(document)
        except MemspaceError as exc:
            log.error("could not look for unfinished documents: %s", exc.message)

    def _enqueue_pending_notes(self) -> None:
        if self._notes is None:
            return
        try:
            for job in self._notes.pending():
                self._inbox.put(job)
        except MemspaceError as exc:
            log.error("could not look for pending notes: %s", exc.message)

    def _process(self, job: Document | NoteJob) -> None:
        if isinstance(job, NoteJob):
            self._process_note(job)
            return
        document = job
        try:
            done = self._ingestion.process(document, should_stop=self._stopping.is_set)
        except MemspaceError as exc:  # the store is down: the document resumes on next start
            log.error("document %s stopped: %s", document.id, exc.message)
            return
        except Exception:  # a bug must not end the worker, nor leave the document hanging
            log.exception("document %s failed unexpectedly", document.id)
            self._fail(document)
            return
        log.info("document %s: %s (%d facts)", done.id, done.status.value, done.fact_count)

    def _process_note(self, job: NoteJob) -> None:
        assert self._notes is not None
        try:
            self._notes.process(job)
        except MemspaceError as exc:  # the store is down: the note stays pending for next start
            log.error("note %s stays pending: %s", job.memory_id, exc.message)
        except Exception:  # a bug must not end the worker; the note stays a plain memory
            log.exception("note %s failed unexpectedly; it stays pending", job.memory_id)

    def _fail(self, document: Document) -> None:
        try:
            self._ingestion.fail(document, "an internal error stopped the processing (see the "
                                           "server log); retry the document")
        except MemspaceError as exc:
            log.error("could not mark document %s failed: %s", document.id, exc.message)

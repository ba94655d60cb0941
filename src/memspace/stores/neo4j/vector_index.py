"""The vector index's property, written beside the adds instead of inside them.

A memory's embedding is stored twice (records.memory_row): as float32 bytes (`vector`), which
memspace's own searches read (through the vector cache), and as the float array that Neo4j's
vector index covers (`embedding`, schema.VECTOR_INDEX), which only ad-hoc Cypher reads.
Indexing the array inside the add's own transaction made every commit update the index: a
single add's commit took 18.0 / 12.7 ms p50 with it and 10.1 / 7.6 ms without (two runs each of
60 adds on a 101,000-memory space). So a write stores `vector` alone, and the
feed sets `embedding` afterwards, for as many memories as wrote meanwhile in one transaction,
on its own thread.

Such a transaction costs the server about as much for one memory as for dozens, so the feed
gathers: once a memory is waiting, it waits GATHER_S for others (or for BATCH of them) before
writing. One agent adding every 100 ms then costs one index transaction per several adds
instead of one each, and that work runs on the same cores as the searches: single adds 50 ms
apart on a 101,000-memory space cost Neo4j 13.6-15.2 ms of CPU each with a transaction each,
9.0-11.9 ms gathered (four runs each way). A `flush` or `close` writes what waits at once.
The index trails the adds by up to GATHER_S and one transaction.

A bulk write (a group of at least memories.INDEX_IN_THE_WRITE memories, such as an import's
batch) sets `embedding` in its own statement instead: its commit is no add's wait, and going
through the feed wrote every memory and its mark a second time (a 20,000-memory load cost the
server 33-35 s of CPU with the write setting it, 43-47 s through the feed; two runs each).

A write marks its memories `vectorPending`, and the feed's transaction clears the mark. A
memory still marked because the process stopped first is found (through an index on the mark)
and indexed at the next start (`backfill`, run by the feed's thread before anything else).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import Any

import numpy as np

from memspace.domain.errors import MemspaceError
from memspace.stores.neo4j.connection import Neo4jConnection
from memspace.stores.neo4j.cypher import memories as cypher

log = logging.getLogger(__name__)

# Memories per transaction of the feed (and per read of the backfill).
BATCH = 500
# How long the first memory waiting for the index waits for others to share its transaction.
GATHER_S = 0.5
# After a failed transaction the feed waits this long before trying again (a server restarting).
RETRY_AFTER_S = 2.0

Pending = dict[str, Any]  # {"id": memory id, "embedding": [floats]}


class IndexFeed:
    """Sets the indexed `embedding` of memories already written, in batches, on one thread."""

    def __init__(self, db: Neo4jConnection, backfill: bool = True,
                 gather_s: float | None = None) -> None:
        """`gather_s`: how long a waiting memory waits for others (None: GATHER_S)."""
        self._db = db
        self._gather_s = GATHER_S if gather_s is None else gather_s
        self._hurry = 0  # flushes and closes waiting: write at once, gather no more
        self._pending: list[Pending] = []
        self._busy = backfill  # until the backfill is done, a flush waits for it too
        self._failing = False  # the last transaction failed: the server is away
        self._closed = False
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, args=(backfill,), daemon=True,
                                        name="memspace-vector-index")
        self._thread.start()

    def add(self, rows: Iterable[tuple[str, list[float] | None]]) -> None:
        """Index these (memory id, embedding) once they are committed; None ones are skipped."""
        pending = [{"id": memory_id, "embedding": embedding}
                   for memory_id, embedding in rows if embedding is not None]
        if pending:
            with self._changed:
                self._pending.extend(pending)
                self._changed.notify_all()

    def flush(self, timeout_s: float | None = None) -> bool:
        """Wait until everything added so far is indexed (or the feed closed); False if the
        wait timed out first."""
        with self._changed:
            self._hurry += 1
            self._changed.notify_all()
            try:
                return self._changed.wait_for(
                    lambda: self._closed or not (self._pending or self._busy), timeout_s)
            finally:
                self._hurry -= 1

    def close(self, timeout_s: float = 10.0) -> None:
        """Index what is pending (for at most `timeout_s`, and only while the server
        answers), then stop. What is left is indexed by the next start's backfill."""
        with self._changed:
            self._hurry += 1
            self._changed.notify_all()
            self._changed.wait_for(
                lambda: self._failing or not (self._pending or self._busy), timeout_s)
            self._closed = True
            self._changed.notify_all()
        self._thread.join(timeout_s)

    def _run(self, backfill: bool) -> None:
        if backfill:
            try:
                self._backfill()
            except MemspaceError as exc:
                log.warning("vector index backfill stopped: %s; the next start resumes it",
                            exc.message)
            except Exception:
                log.exception("vector index backfill stopped; the next start resumes it")
            finally:
                with self._changed:
                    self._busy = False
                    self._changed.notify_all()
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._closed or bool(self._pending))
                if self._closed:
                    if self._pending:
                        log.warning("%d memories not yet in the vector index; the next start "
                                    "adds them", len(self._pending))
                    return
                self._changed.wait_for(
                    lambda: self._closed or self._hurry > 0 or len(self._pending) >= BATCH,
                    self._gather_s)
                batch, self._pending = self._pending[:BATCH], self._pending[BATCH:]
                self._busy = True
            try:
                self._index(batch)
            except MemspaceError as exc:  # the server is away: these wait for it
                log.warning("vector index update of %d memories failed: %s; trying again",
                            len(batch), exc.message)
                with self._changed:
                    self._pending[:0] = batch
                    self._busy = False
                    self._failing = True
                    self._changed.notify_all()
                    self._changed.wait_for(lambda: self._closed, RETRY_AFTER_S)
                continue
            except Exception:  # anything else would fail again: the next start's backfill
                log.exception("vector index update of %d memories failed; the next start "
                              "adds them", len(batch))
            with self._changed:
                self._busy = self._failing = False
                self._changed.notify_all()

    def _index(self, batch: list[Pending]) -> None:
        # Sorted: two transactions locking overlapping memories take the locks in one order.
        rows = sorted(batch, key=lambda row: str(row["id"]))
        self._db.write_one(cypher.INDEX_EMBEDDINGS, rows=rows)

    def _backfill(self) -> None:
        """Index memories written but not indexed (the process stopped before the feed ran)."""
        while not self._closed:
            rows = self._db.read(cypher.UNINDEXED_VECTORS, limit=BATCH)
            if not rows:
                return
            self._index([{"id": row["id"],
                          "embedding": np.frombuffer(row["vector"], dtype="<f4").tolist()}
                         for row in rows])
            log.info("vector index: %d memories written before a stop indexed", len(rows))

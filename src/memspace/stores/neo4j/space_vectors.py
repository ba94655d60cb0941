"""A large space's own vector index on Neo4j (docs/scaling.md, "The cold path on Neo4j").

Neo4j 5.26 cannot filter inside a vector index, so a cold search of a space through the
store-wide index (`memory_embedding`) asks it for `k` nodes over every space, `k` growing as the
space's share of the store shrinks, and keeps the space's after: at a million memories that
was most of a large space's cold search. A space of at least OWN_INDEX_MIN memories therefore
gets an index of its own: its memories carry a label named after the space, a vector index
covers that label, and the cold path asks it for just the space's nearest memories.

The build runs on one background thread per process, after the first cold search that finds
the space large; searches take the store-wide path until it is ready. Its steps, each safe to
repeat (another replica may take over a build claimed more than CLAIM_STALE_S ago):

1. claim it on the Space node and name the label there: every write that sets a memory's
   `embedding` in the space from then on labels it too (cypher/memories.py);
2. label the memories already written, LABEL_ROWS sequence numbers per transaction (a write in
   flight on one of them holds its lock: the label waits for it, or the write labels it);
3. create the index (its population reads the labelled memories in bulk) and wait until it is
   online; then mark the space ready, and cold searches use it.

An own index costs the store a second copy of the space's vectors in an index (~1.5-2 KB a
memory) and each of the space's vector writes a second index update.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import deque

from memspace.domain.errors import MemspaceError
from memspace.stores.neo4j.connection import Neo4jConnection
from memspace.stores.neo4j.cypher import space_vectors as cypher
from memspace.stores.neo4j.schema import EMBEDDING_DIMENSIONS

log = logging.getLogger(__name__)

# A space this large gets its own vector index: every space the cold path does not pass over
# (cold.SCAN_MAX). At a million memories, scoring a mid-sized space's vectors inside Neo4j cost
# ~15 µs a memory (97 ms for 6,362), its own index 19 ms for 10,279 (docs/scaling.md).
OWN_INDEX_MIN = 3_000
# Memories labelled per transaction of the backfill.
LABEL_ROWS = 10_000
# A claimed build not finished after this long (its replica died) may be taken over.
CLAIM_STALE_S = 3_600.0
# How often the build looks at the index's population, and for how long at most.
POLL_S = 1.0
POPULATE_MAX_S = 3_600.0
_SAFE = re.compile(r"[A-Za-z0-9_]{1,64}")


def names(space_id: str) -> tuple[str, str] | None:
    """The space's index and label names (None for an id that cannot make a safe name)."""
    key = space_id.replace("-", "_")
    if not _SAFE.fullmatch(key):
        return None
    return f"space_vectors_{key}", f"SpaceVectors_{key}"


class SpaceVectorIndexes:
    """Builds large spaces' own vector indexes, in the background or when asked."""

    def __init__(self, db: Neo4jConnection) -> None:
        self._db = db
        self._asked: set[str] = set()
        self._queue: deque[str] = deque()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None
        self._building = False
        self._closed = False

    def request(self, space_id: str) -> None:
        """Build the space's index on the background thread, once per process; returns at
        once."""
        if names(space_id) is None:
            return
        with self._changed:
            if self._closed or space_id in self._asked:
                return
            self._asked.add(space_id)
            self._queue.append(space_id)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name="memspace-space-vectors")
                self._thread.start()
            self._changed.notify_all()

    def build(self, space_id: str) -> bool:
        """Build the space's index now (what the background thread runs); True once it is
        ready, False when another replica's build holds the claim or this one stopped."""
        named = names(space_id)
        if named is None:
            return False
        index, label = named
        now = time.time()
        claimed = self._db.write_one(cypher.CLAIM, space=space_id, now=now,
                                     stale=now - CLAIM_STALE_S, label=label, index=index)
        if not claimed:
            return self.ready(space_id)
        upto, after, labelled = int(claimed[0]["seq"]), 0, 0
        started = time.monotonic()
        while after < upto:
            if self._closed:
                return False
            [row] = self._db.write_one(cypher.LABEL_RANGE, space=space_id, after=after,
                                       upto=min(after + LABEL_ROWS, upto), label=label)
            labelled += int(row["labelled"])
            after += LABEL_ROWS
        self._db.write_one(cypher.create_index(index, label, EMBEDDING_DIMENSIONS))
        if not self._populated(index):
            return False
        self._db.write_one(cypher.READY, space=space_id, index=index)
        log.info("space %s: own vector index %s ready (%d memories, %.1f s)", space_id, index,
                 labelled, time.monotonic() - started)
        return True

    def settled(self, timeout_s: float | None = None) -> bool:
        """Wait until every build asked for so far has ended (or this closed); False if the
        wait timed out first."""
        with self._changed:
            return self._changed.wait_for(
                lambda: self._closed or not (self._queue or self._building), timeout_s)

    def ready(self, space_id: str) -> bool:
        rows = self._db.read(cypher.IS_READY, space=space_id)
        return bool(rows and rows[0]["ready"])

    def close(self, timeout_s: float = 10.0) -> None:
        """Stop: nothing more is built; a build under way stops at its next step."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(timeout_s)

    def _populated(self, index: str) -> bool:
        deadline = time.monotonic() + POPULATE_MAX_S
        while True:
            rows = self._db.read(cypher.INDEX_STATE, index=index)
            state = str(rows[0]["state"]) if rows else "MISSING"
            if state == "ONLINE":
                return True
            if state in ("FAILED", "MISSING"):
                raise RuntimeError(f"the vector index {index} is {state}")
            with self._changed:
                if self._changed.wait_for(lambda: self._closed, POLL_S):
                    return False
            if time.monotonic() > deadline:
                log.warning("vector index %s still populating after %.0f s; a later build "
                            "takes it over", index, POPULATE_MAX_S)
                return False

    def _run(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._closed or bool(self._queue))
                if self._closed:
                    return
                space_id = self._queue.popleft()
                self._building = True
            try:
                self.build(space_id)
            except MemspaceError as exc:
                log.warning("own vector index of space %s not built: %s", space_id, exc.message)
            except Exception:
                log.exception("own vector index of space %s not built", space_id)
            finally:
                with self._changed:
                    self._building = False
                    self._changed.notify_all()

"""How the vector cache (stores/vector_cache.py) reads a space from its store: from its
snapshot beside the data (stores/vector_snapshot.py) when the store still agrees with it, and
the rows past that in bounded batches.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from memspace.runtime.heap import release_freed_memory
from memspace.stores import vector_snapshot
from memspace.stores.space_vectors import Row, SpaceVectors, VectorSource, as_block, room_for
from memspace.stores.term_index import TermIndex

# Rows per read of a load: each read's rows (blobs, term strings) take ~3x what the entry keeps
# of them, for a moment, beside the cache's bytes. Loading a 34,126-memory space alone (128 MB
# budget) took the process 35 MB past its RSS after the load at 5,000, 14 MB at 2,000 and 12 MB
# at 1,000, in 2.3, 2.3 and 2.9 s: at 2,000 a budget plus the model and the runtime leave room
# for it. (At a million memories with a 512 MB budget, 10,000 against 5,000 had made no
# difference to the highest RSS sampled.)
LOAD_ROWS = 2_000


def read_into(entry: SpaceVectors, source: VectorSource, space_id: str,
              budget_bytes: int | None) -> int:
    """Append the rows past the entry's last, LOAD_ROWS at a time (rows as read take ~3x
    what the entry keeps of them: read whole, a space the budget can just hold would take
    the process ~3 budgets past it, for a moment), with room for the whole space made after
    the first batch. Stops early, returning -1, once the entry alone needs more than the
    budget: it will not be kept. Returns the rows read."""
    appended = 0
    while True:
        new = source.vectors_after(space_id, entry.last_seq, LOAD_ROWS)
        if new:
            entry.append(new)
        appended += len(new)
        if len(new) < LOAD_ROWS:  # the last of them (a refresh: its only read)
            return appended
        del new
        if appended == LOAD_ROWS:  # a load, not a refresh: room for the rest at once
            entry.reserve(entry.size + source.memory_count(space_id) - appended)
        release_freed_memory()
        if budget_bytes is not None and entry.nbytes() > budget_bytes:
            return -1


def restore(snapshot_dir: Path | None, entry: SpaceVectors, source: VectorSource,
            space_id: str) -> Sequence[Row] | None:
    """Fill a new entry from the space's snapshot, if the store still holds the snapshot's
    last row (vector and terms) at its sequence number; returns the rows past it (None: no
    snapshot used)."""
    if snapshot_dir is None:
        return None
    saved = vector_snapshot.load(snapshot_dir, space_id, room_for)
    if saved is None:
        return None
    last = int(saved.seqs[-1])
    rows = source.vectors_after(space_id, last - 1)
    terms = TermIndex.restore(saved.terms)
    if not rows or int(rows[0][0]) != last or \
            sorted((rows[0][3] or "").split()) != terms.last_terms():
        return None  # another store behind the same space id: read it all
    vector, present = as_block([rows[0][1]], saved.matrix.shape[1])
    if bool(present[0]) != bool(saved.has_vector[-1]) or not np.array_equal(
            vector[0], saved.matrix[-1]):
        return None
    entry.restore(saved, terms)
    return rows[1:]

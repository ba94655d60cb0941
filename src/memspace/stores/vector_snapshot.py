"""A space's cached vectors saved beside the data, so a restarted server need not re-read them.

A cold cache reads every vector of a space from the store: at 100,000 memories 1.2 s on SQLite
(bench/bench_stores.py data, busy 2 cores, after reading the blobs as one buffer) and ~9 s on
Neo4j (each vector decoded as 384 floats from bolt). Memories are append-only and numbered per
space, so the vectors up to a sequence number never change: a snapshot of that prefix stays
valid for ever, and the cache reads only the rows past it (and the inactive sequence numbers,
one indexed query) as it does for any refresh. What a snapshot cannot know is whether the store
it came from is the store now behind the cache (a wiped or restored database can reuse a
space id), so the cache checks that the store's row at the snapshot's last sequence number
holds the same vector before trusting it (stores/vector_cache.py).

Files: one `<space id>.npz` (uncompressed: seqs, matrix, categories) per space, written to a
temporary name and renamed, so a reader never sees half a file. Any unreadable file is ignored.
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

# Snapshot a space when a refresh read at least this many rows: a cold load or a bulk import,
# not the add of every request (writing 100,000 x 384 float32 takes ~0.3 s).
MIN_NEW_ROWS = 5_000
_SAFE_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")


def _path(directory: Path, space_id: str) -> Path | None:
    return directory / f"{space_id}.npz" if _SAFE_ID.match(space_id) else None


def load(directory: Path, space_id: str) -> tuple[np.ndarray, np.ndarray, list[str]] | None:
    """(seqs, matrix, categories) saved for a space, or None."""
    path = _path(directory, space_id)
    if path is None or not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            seqs = data["seqs"].astype(np.int64)
            matrix = data["matrix"].astype(np.float32, copy=False)
            categories = [str(c) for c in data["categories"]]
    except Exception as exc:  # a damaged cache file of any kind: read from the store instead
        log.warning("ignoring the vector snapshot %s (%s)", path, exc)
        return None
    if not (len(seqs) == matrix.shape[0] == len(categories)) or len(seqs) == 0:
        return None
    return seqs, matrix, categories


def save(directory: Path, space_id: str, seqs: np.ndarray, matrix: np.ndarray,
         categories: list[str]) -> None:
    """Write a space's snapshot atomically; a failure is logged, never raised (it is a cache)."""
    path = _path(directory, space_id)
    if path is None or len(seqs) == 0:
        return
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{space_id}.", suffix=".npz")
    except OSError as exc:
        log.warning("could not save the vector snapshot %s (%s)", path, exc)
        return
    try:
        with os.fdopen(fd, "wb") as out:
            np.savez(out, seqs=seqs, matrix=matrix, categories=np.asarray(categories, dtype=str))
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        log.warning("could not save the vector snapshot %s (%s)", path, exc)

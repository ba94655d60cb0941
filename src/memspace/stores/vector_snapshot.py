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

Files: one `<space id>.npz` per space (uncompressed: seqs, matrix, has_vector, categories,
and the space's term and keyword indexes as arrays: stores/term_index.py,
stores/keyword_index.py), written to a temporary name and
renamed, so a reader never sees half a file. Any unreadable file, or one of an older layout,
is ignored.
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memspace.stores.term_index import Exported

log = logging.getLogger(__name__)

# Snapshot a space when it was read whole from the store (a load, whatever its size), or when a
# refresh read at least this many rows (a bulk import), not after the add of every request
# (writing 100,000 x 384 float32 takes ~0.3 s).
MIN_NEW_ROWS = 5_000
_SAFE_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")
# Bytes of an array written at a time. np.savez copies a file-like target's arrays through
# 16 MiB buffers, two at once: saving a 34,126-memory space took a replica's RSS 18 MB past
# what its load's reads had (48 MB above the cache's bytes, against 30), in the middle of a
# load that the budget had just made room for.
WRITE_CHUNK = 1 << 20


def worth_saving(appended: int, whole: bool) -> bool:
    """Whether a fill that added `appended` rows (`whole`: from the space's first) is saved: a
    space read whole is, whatever its size, so that its next load reads only what is past it."""
    return appended >= MIN_NEW_ROWS or (whole and appended > 0)


def _path(directory: Path, space_id: str) -> Path | None:
    return directory / f"{space_id}.npz" if _SAFE_ID.match(space_id) else None


def discard(directory: Path, space_id: str) -> None:
    """Remove a space's snapshot, if any (its texts were rewritten in place)."""
    path = _path(directory, space_id)
    if path is not None:
        path.unlink(missing_ok=True)


@dataclass(frozen=True)
class Saved:
    """A space's cached rows: sequence numbers, vectors (zero rows where a memory has none),
    which rows have a vector, categories, the space's term index and its keyword index."""

    seqs: np.ndarray
    matrix: np.ndarray
    has_vector: np.ndarray
    categories: list[str]
    terms: Exported
    words: Exported
    # The arrays `matrix` is the first rows of, with room past them (load's `room`), or None.
    room: np.ndarray | None = None


def load(directory: Path, space_id: str,
         room: Callable[[int], int] | None = None) -> Saved | None:
    """What was saved for a space, or None (none, unreadable, or an older layout). With
    `room`, the matrix is read into arrays of room(rows) rows (`Saved.room`)."""
    path = _path(directory, space_id)
    if path is None or not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            matrix, with_room = (_read_with_room(data.zip, room) if room is not None
                                 else (data["matrix"].astype(np.float32, copy=False), None))
            saved = Saved(
                seqs=data["seqs"].astype(np.int64),
                matrix=matrix,
                has_vector=data["has_vector"].astype(bool),
                categories=[str(c) for c in data["categories"]],
                terms=_index(data, ""),
                words=_index(data, "words_"),
                room=with_room,
            )
    except Exception as exc:  # a damaged or older cache file: read from the store instead
        log.warning("ignoring the vector snapshot %s (%s)", path, exc)
        return None
    n = len(saved.seqs)
    if n == 0 or not (saved.matrix.shape[0] == len(saved.has_vector) == len(saved.categories)
                      == n) or not (_whole(saved.terms, n) and _whole(saved.words, n)):
        return None
    return saved


def _read_with_room(archive: zipfile.ZipFile,
                    room: Callable[[int], int]) -> tuple[np.ndarray, np.ndarray]:
    """(the saved matrix, the zeros of room(rows) rows it was read straight into): read, then
    copied into larger arrays, both copies would be resident at once."""
    with archive.open("matrix.npy") as member:
        version = np.lib.format.read_magic(member)
        header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                  else np.lib.format.read_array_header_2_0)
        shape, fortran, dtype = header(member)
        if len(shape) != 2 or fortran or dtype != np.dtype(np.float32):
            raise ValueError(f"a matrix of {shape} {dtype}, not rows of float32")
        whole = np.zeros((room(shape[0]), shape[1]), dtype=np.float32)
        raw = whole[: shape[0]].reshape(-1).view(np.uint8).data
        done = 0
        while done < len(raw):
            chunk = member.read(min(WRITE_CHUNK, len(raw) - done))
            if not chunk:
                raise ValueError("the matrix ends early")
            raw[done:done + len(chunk)] = chunk
            done += len(chunk)
    return whole[: shape[0]], whole


def _index(data: Any, prefix: str) -> Exported:
    return Exported(
        # the vocabulary as one UTF-8 text, a line per term (terms hold no spaces)
        terms=_lines(data[f"{prefix}vocabulary"]),
        offsets=data[f"{prefix}offsets"].astype(np.int64),
        postings=data[f"{prefix}postings"].astype(np.int32),
        df=data[f"{prefix}df"].astype(np.int32),
        lengths=data[f"{prefix}lengths"].astype(np.float32),
    )


def _whole(t: Exported, rows: int) -> bool:
    return (len(t.lengths) == rows and len(t.offsets) == len(t.terms) + 1 == len(t.df) + 1
            and int(t.offsets[-1]) == len(t.postings))


def _arrays(t: Exported, prefix: str) -> dict[str, np.ndarray]:
    vocabulary = np.frombuffer("\n".join(t.terms).encode("utf-8"), dtype=np.uint8)
    return {f"{prefix}vocabulary": vocabulary,
            f"{prefix}offsets": t.offsets, f"{prefix}postings": t.postings,
            f"{prefix}df": t.df, f"{prefix}lengths": t.lengths}


def save(directory: Path, space_id: str, saved: Saved) -> None:
    """Write a space's snapshot atomically; a failure is logged, never raised (it is a cache)."""
    path = _path(directory, space_id)
    if path is None or len(saved.seqs) == 0:
        return
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{space_id}.", suffix=".npz")
    except OSError as exc:
        log.warning("could not save the vector snapshot %s (%s)", path, exc)
        return
    try:
        with os.fdopen(fd, "wb") as out:
            arrays: dict[str, Any] = {
                "seqs": saved.seqs, "matrix": saved.matrix, "has_vector": saved.has_vector,
                "categories": np.asarray(saved.categories, dtype=str),
                **_arrays(saved.terms, ""), **_arrays(saved.words, "words_")}
            _write_npz(out, arrays)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        log.warning("could not save the vector snapshot %s (%s)", path, exc)


def _write_npz(out: Any, arrays: dict[str, np.ndarray]) -> None:
    """The arrays as np.savez lays them out (one uncompressed `<name>.npy` each: np.load reads
    it), each written from the array's own memory WRITE_CHUNK bytes at a time."""
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, array in arrays.items():
            whole = np.ascontiguousarray(array)
            with archive.open(f"{name}.npy", "w", force_zip64=True) as entry:
                np.lib.format.write_array_header_2_0(
                    entry, np.lib.format.header_data_from_array_1_0(whole))
                raw = whole.reshape(-1).view(np.uint8).data
                for start in range(0, len(raw), WRITE_CHUNK):
                    entry.write(raw[start:start + WRITE_CHUNK])


def _lines(raw: np.ndarray) -> list[str]:
    text = raw.tobytes().decode("utf-8")
    return text.split("\n") if text else []

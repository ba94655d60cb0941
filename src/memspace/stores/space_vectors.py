"""One space's rows as the vector cache (stores/vector_cache.py) holds them, and the exact
ranking over them: the int8 scan of the matrix (stores/int8_scan.py, calls coalesced), then the
best rows re-scored in float32; what a store tells the cache (`VectorSource`, `Row`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from memspace.stores import int8_scan, vector_snapshot
from memspace.stores.keyword_index import KeywordIndex
from memspace.stores.term_index import TermIndex

# Bytes a held row costs beyond its vectors, step and seq (measured, see nbytes).
ROW_OVERHEAD = 450


def room_for(rows: int) -> int:
    """Rows of arrays to allocate for `rows` rows: half as many again (at least 1,024 more),
    so the adds a held space takes are written in place. Growing copies the arrays, old and
    new resident at once: the first add to a 34,126-memory space loaded to its size took the
    process 65 MB past its RSS, the highest a replica's RSS reached under bench_scale. Rows
    never written take no pages (the arrays are mapped on their own: memspace/runtime/heap.py)."""
    return rows + max(1024, rows // 2)


class VectorSource(Protocol):
    """What a store tells the cache about one space."""

    def vector_version(self, space_id: str) -> int:
        """Changes whenever a memory of the space is written, superseded or forgotten."""

    def vectors_after(self, space_id: str, after_seq: int,
                      limit: int | None = None) -> Sequence[Row]:
        """(seq, float32 vector or its bytes or None, category, index terms, content) of the
        memories with seq > after_seq, by seq: every memory, with or without a vector; the
        first `limit` of them (None: all). Empty only when there is none past after_seq."""

    def inactive_seqs(self, space_id: str, upto_seq: int) -> Sequence[int]:
        """Sequence numbers of the space's inactive memories, up to `upto_seq`."""

    def memory_count(self, space_id: str) -> int:
        """How many memories the space holds, active or not (what a load would read), without
        reading them."""


# (seq, vector or its bytes or None, category, index terms, content) of one memory, as a store
# reads it.
Row = tuple[int, object, str, str, str]


@dataclass
class SpaceVectors:
    """One space's memories in row order: vectors (zero rows where a memory has none, e.g. a
    note waiting for extraction), sequence numbers, flags, categories, the term index (hybrid
    search) and the keyword index (keyword search)."""

    version: int = -1
    size: int = 0
    last_seq: int = 0
    seqs: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    matrix: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    # The matrix in int8, a step per row (stores/int8_scan.py): what a search scans first.
    codes: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int8))
    steps: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    has_vector: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    active: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    categories: list[str] = field(default_factory=list)
    terms: TermIndex = field(default_factory=TermIndex)
    keywords: KeywordIndex = field(default_factory=KeywordIndex)

    def append(self, rows: Sequence[Row], active: Sequence[bool] | None = None) -> None:
        """Add rows past the last one; `active` flags them (None: all active, the caller
        re-reads the inactive ones)."""
        block, present = as_block([r[1] for r in rows], self.matrix.shape[1])
        needed = self.size + len(rows)
        if self.matrix.shape[0] < needed or self.matrix.shape[1] != block.shape[1]:
            self._grow(room_for(needed), block.shape[1])
        self.matrix[self.size : needed] = block
        self.codes[self.size : needed], self.steps[self.size : needed] = int8_scan.quantise(block)
        self.seqs[self.size : needed] = [int(r[0]) for r in rows]
        self.has_vector = np.concatenate([self.has_vector[: self.size], present])
        flags = np.ones(len(rows), dtype=bool) if active is None else np.asarray(active, bool)
        self.active = np.concatenate([self.active[: self.size], flags])
        self.categories.extend(str(r[2]) for r in rows)
        self.terms.append([r[3] or "" for r in rows])
        self.keywords.append([r[4] or "" for r in rows])
        self.size = needed
        self.last_seq = int(rows[-1][0])

    def reserve(self, rows: int) -> None:
        """Room for `rows` rows in all and the adds after them, in one allocation (a load that
        knows the space's size: growing as it reads would copy the arrays each time)."""
        if self.matrix.shape[0] < rows and self.matrix.shape[1]:
            self._grow(room_for(rows), self.matrix.shape[1])

    def _grow(self, capacity: int, width: int) -> None:
        """New arrays of `capacity` rows and `width` columns, the rows held so far copied
        (re-quantised if the width changed). Capacity past the rows is zeros never touched:
        the system gives it no pages until rows are written there."""
        matrix = np.zeros((capacity, width), dtype=np.float32)
        ids = np.zeros(capacity, dtype=np.int64)
        if self.size:
            kept = min(self.matrix.shape[1], width)
            matrix[: self.size, :kept] = self.matrix[: self.size, :kept]
            ids[: self.size] = self.seqs[: self.size]
        codes = np.zeros(matrix.shape, dtype=np.int8)
        steps = np.zeros(capacity, dtype=np.float32)
        if self.size:
            codes[: self.size], steps[: self.size] = (
                (self.codes[: self.size], self.steps[: self.size])
                if self.matrix.shape[1] == width
                else int8_scan.quantise(matrix[: self.size]))
        self.matrix, self.seqs, self.codes, self.steps = matrix, ids, codes, steps

    def nbytes(self) -> int:
        """About what the entry keeps resident (stores/cache_budget.py): its rows of the
        arrays (spare capacity is zeros never touched, so the system has not given it pages),
        postings, and ~450 bytes a row of flags, category references and the objects behind
        them: with 60 there, a replica's RSS grew ~390 bytes a memory more than its estimate
        (spaces of 14,844 to 66,806 memories loaded at a million, docs/scaling.md)."""
        width = int(self.matrix.shape[1])
        per_row = 4 * width + width + 4 + 8 + ROW_OVERHEAD  # float32, int8, step, seq, the rest
        return per_row * self.size + self.terms.nbytes + self.keywords.nbytes

    def rows(self) -> SpaceRows:
        """Views of the rows held now: an append writes past them, or into new arrays, so
        they stay consistent once the cache's lock is released."""
        return SpaceRows(self.seqs[: self.size], self.matrix[: self.size],
                     self.codes[: self.size], self.steps[: self.size])

    def mask(self, category: str | None, include_inactive: bool) -> np.ndarray:
        mask = np.ones(self.size, dtype=bool) if include_inactive else self.active[: self.size].copy()
        if category is not None:
            mask &= np.fromiter((c == category for c in self.categories), bool, self.size)
        return mask


    def deactivate(self, inactive_seqs: Sequence[int]) -> None:
        """Every row active but those of `inactive_seqs` (unknown ones are passed over)."""
        inactive = np.asarray(inactive_seqs, dtype=np.int64)
        self.active = np.ones(self.size, dtype=bool)
        if inactive.size:
            positions = np.searchsorted(self.seqs[: self.size], inactive)
            known = positions < self.size
            positions = positions[known]
            exact = self.seqs[positions] == inactive[known]
            self.active[positions[exact]] = False

    def saved(self) -> vector_snapshot.Saved:
        """The rows as a snapshot saves them (stores/vector_snapshot.py)."""
        return vector_snapshot.Saved(
            self.seqs[: self.size], self.matrix[: self.size], self.has_vector[: self.size],
            self.categories, self.terms.export(), self.keywords.export())

    def restore(self, saved: vector_snapshot.Saved, terms: TermIndex) -> None:
        """Take a snapshot's rows as this entry's: its matrix as read, with the room the read
        left past them (no copy: 150 MB at 100,000 memories), the other arrays as large."""
        n = len(saved.seqs)
        self.matrix = saved.matrix if saved.room is None else saved.room
        capacity = self.matrix.shape[0]
        self.seqs = np.zeros(capacity, dtype=np.int64)
        self.seqs[:n] = saved.seqs
        self.codes = np.zeros(self.matrix.shape, dtype=np.int8)
        self.steps = np.zeros(capacity, dtype=np.float32)
        int8_scan.quantise(saved.matrix, (self.codes[:n], self.steps[:n]))
        self.has_vector = saved.has_vector
        self.categories = saved.categories
        self.active = np.ones(n, dtype=bool)
        self.terms = terms
        self.keywords = KeywordIndex.restore(saved.words)
        self.size, self.last_seq = n, int(saved.seqs[-1])


@dataclass(frozen=True)
class SpaceRows:
    seqs: np.ndarray
    matrix: np.ndarray
    codes: np.ndarray
    steps: np.ndarray


@dataclass(frozen=True)
class Hybrid:
    """(seq, score) lists of a hybrid search: the two rankings, then every memory of either
    scored by both (`cosines` leaves out memories without a vector)."""

    by_vector: list[tuple[int, float]]
    by_text: list[tuple[int, float]]
    cosines: list[tuple[int, float]]
    text_scores: list[tuple[int, float]]


Scan = tuple[np.ndarray, np.ndarray, np.ndarray]  # (int8 codes, steps, float32 query)


def run_scans(calls: list[Scan]) -> list[np.ndarray]:
    """The approximate scores of each call's query over its codes (stores/int8_scan.py); calls
    on the same rows of the same codes (one space) share one scan, their queries side by side."""
    same: dict[tuple[int, tuple[int, ...]], list[int]] = {}
    for n, (codes, _, _) in enumerate(calls):
        same.setdefault((codes.__array_interface__["data"][0], codes.shape), []).append(n)
    out: list[np.ndarray] = [np.empty(0)] * len(calls)
    for members in same.values():
        codes, steps, _ = calls[members[0]]
        scores = int8_scan.scan(codes, steps, np.stack([calls[n][2] for n in members]))
        for line, n in enumerate(members):
            out[n] = scores[line]
    return out


def best_of(seqs: np.ndarray, scores: np.ndarray, candidates: np.ndarray,
          limit: int) -> list[tuple[int, float]]:
    """(seq, score) of the `limit` best candidate rows, best first (ties: earlier row first)."""
    return scored_rows(seqs, scores, best_rows(scores, candidates, limit))


def best_rows(scores: np.ndarray, candidates: np.ndarray, limit: int) -> np.ndarray:
    """The `limit` best candidate rows, best first (ties: earlier row first)."""
    candidates = np.sort(top_rows(scores, candidates, limit))
    return candidates[np.argsort(-scores[candidates], kind="stable")]


def top_rows(scores: np.ndarray, candidates: np.ndarray, n: int) -> np.ndarray:
    """The `n` best candidate rows, in no particular order."""
    if candidates.size <= n:
        return candidates
    return candidates[np.argpartition(-scores[candidates], n - 1)[:n]]


def scored_rows(seqs: np.ndarray, scores: np.ndarray, rows: Sequence[int] | np.ndarray
            ) -> list[tuple[int, float]]:
    """(seq, score) of rows, from scores indexed by row."""
    return [(int(seqs[r]), float(scores[r])) for r in rows]


def paired_scores(seqs: np.ndarray, rows: np.ndarray, scores: np.ndarray) -> list[tuple[int, float]]:
    """(seq, score) of rows, from the scores of those rows in the same order."""
    return [(int(seqs[r]), float(score)) for r, score in zip(rows, scores, strict=True)]


def as_block(raws: Sequence[object], width: int) -> tuple[np.ndarray, np.ndarray]:
    """One float32 matrix from stored vectors, and which rows have one: a missing vector, or
    one of another size than the space's (`width`, 0 when none seen yet), is a zero row.
    Stored bytes (SQLite's blobs, Neo4j's `vector`) are joined and read at once: a frombuffer
    per row plus np.stack was a third of a cold 100k-row load (cProfile)."""
    if raws and all(isinstance(r, bytes | bytearray) for r in raws):
        sizes = {len(r) for r in raws}  # type: ignore[arg-type]
        if len(sizes) == 1 and (width == 0 or sizes == {4 * width}):
            joined = b"".join(raws)  # type: ignore[arg-type]
            block = np.frombuffer(joined, dtype=np.float32).reshape(len(raws), -1)
            return block, np.ones(len(raws), dtype=bool)
    vectors = [None if r is None else _as_vector(r) for r in raws]
    if width == 0:
        width = next((len(v) for v in vectors if v is not None), 0)
    block = np.zeros((len(raws), width), dtype=np.float32)
    present = np.zeros(len(raws), dtype=bool)
    for i, v in enumerate(vectors):
        if v is not None and len(v) == width:
            block[i], present[i] = v, True
    return block, present


def _as_vector(raw: object) -> np.ndarray:
    if isinstance(raw, bytes | bytearray | memoryview):
        return np.frombuffer(raw, dtype=np.float32)
    return np.asarray(raw, dtype=np.float32)

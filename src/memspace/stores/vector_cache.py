"""Exact in-space vector search over a per-space matrix kept in memory, for every store.

Memories are append-only (corrections and forgets only flip `active`) and each gets a sequence
number within its space, so the cache of a space grows by reading the rows past the last one
it saw into spare capacity (amortised O(1) per new row), and re-reads only the sequence numbers
of inactive rows when the space's version moved. The store stays the source of truth: every
search first asks it for the space's version (one indexed lookup), so a write by another
process or replica is seen by the next search.

Why hold spaces at all: a scan of 10,000 x 384 here is one exact pass over an int8 copy and a
float32 product over its best rows (stores/int8_scan.py; ~0.3 ms), where Neo4j 5.26's exact
Cypher scan took 190-270 ms; the stores' indexes serve the spaces not held (stores/neo4j/cold.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from memspace.runtime.coalesce import Coalescer
from memspace.runtime.heap import release_freed_memory
from memspace.stores import int8_scan, space_reads, vector_snapshot
from memspace.stores.cache_budget import MIN_ROW_BYTES, CacheBudget
from memspace.stores.space_vectors import (
    Hybrid,
    Row,
    Scan,
    SpaceRows,
    SpaceVectors,
    VectorSource,
    best_of,
    best_rows,
    paired_scores,
    run_scans,
    scored_rows,
    top_rows,
)


class VectorCache:
    """Per-space embedding matrices, refreshed incrementally from the `memories` table."""

    def __init__(self, snapshot_dir: Path | None = None, budget_mb: int | None = None) -> None:
        """`snapshot_dir`: where spaces' vectors are saved for the next start
        (stores/vector_snapshot.py); None keeps them in memory only. `budget_mb`: how much
        the held spaces may take (stores/cache_budget.py); None holds every space."""
        self._spaces: dict[str, SpaceVectors] = {}
        self.budget = CacheBudget(None if budget_mb is None else budget_mb * 2**20)
        self._lock = threading.Lock()
        self._snapshot_dir = snapshot_dir
        self._scans: Coalescer[Scan, np.ndarray] = Coalescer(run_scans)

    def forget_space(self, space_id: str) -> None:
        """Drop a space's rows here and its saved snapshot: the next search reads them again
        (after stored text was rewritten in place by `memspace scan --redact`)."""
        with self._lock:
            self._spaces.pop(space_id, None)
            self.budget.forget(space_id)
        if self._snapshot_dir is not None:
            vector_snapshot.discard(self._snapshot_dir, space_id)

    def top_k(
        self,
        source: VectorSource,
        space_id: str,
        query: np.ndarray,
        limit: int,
        category: str | None,
        include_inactive: bool,
        version: int | None = None,
    ) -> list[tuple[int, float]]:
        """(seq, cosine) of the `limit` nearest memories of the space, best first. With
        `version` the caller vouches for the store's version of the space (it checks it later
        in the same round trip as its record fetch) and the lookup is skipped."""
        with self._lock:
            entry = self._refresh(source, space_id, version)
            if entry.size == 0 or entry.matrix.shape[1] != query.shape[0]:
                return []
            rows = entry.rows()
            mask = entry.mask(category, include_inactive) & entry.has_vector[: entry.size]
        best, scores = self._nearest(rows, query, np.flatnonzero(mask), limit)
        return paired_scores(rows.seqs, best, scores)

    def _nearest(self, rows: SpaceRows, query: np.ndarray, candidates: np.ndarray,
                 limit: int) -> tuple[np.ndarray, np.ndarray]:
        """The `limit` candidate rows nearest `query`, best first, and their exact cosines:
        the int8 scan ranks every row (stores/int8_scan.py), the float32 rows decide among
        its best. Outside the lock, and shared with the searches of the same space waiting
        at that moment (coalesce.py): one scan reads the codes once for all of them."""
        approx = self._scans((rows.codes, rows.steps, query))
        pool = np.sort(top_rows(approx, candidates, int8_scan.depth(limit)))
        exact = rows.matrix[pool] @ query
        order = np.argsort(-exact, kind="stable")[:limit]  # ties: earlier row first
        return pool[order], exact[order]

    def text_top_k(
        self,
        source: VectorSource,
        space_id: str,
        terms: Sequence[str],
        limit: int,
        category: str | None,
        include_inactive: bool,
        version: int | None = None,
    ) -> list[tuple[int, float]]:
        """(seq, BM25 with the space's own statistics) of the `limit` best memories holding
        any of these index terms (stores/term_index.py), best first; `version` as for top_k."""
        return self._best_scored(source, space_id, limit, category, include_inactive, version,
                                 lambda entry: entry.terms.scores(terms) if terms else None)

    def keyword_top_k(
        self,
        source: VectorSource,
        space_id: str,
        typed: Sequence[str],
        limit: int,
        category: str | None,
        include_inactive: bool,
        version: int | None = None,
        exact: bool = False,
    ) -> list[tuple[int, float]]:
        """(seq, score) of the `limit` best memories whose content holds every typed word, as
        typed or (unless `exact`) within its typo budget (stores/keyword_index.py), best
        first; `version` as for top_k."""
        return self._best_scored(
            source, space_id, limit, category, include_inactive, version,
            lambda entry: entry.keywords.scores(typed, exact) if typed else None)

    def _best_scored(self, source: VectorSource, space_id: str, limit: int,
                     category: str | None, include_inactive: bool, version: int | None,
                     score: Callable[[SpaceVectors], np.ndarray | None],
                     ) -> list[tuple[int, float]]:
        """(seq, score) of the `limit` best memories of the filter scoring above 0 by `score`
        (a score per row, None when nothing can score), best first."""
        with self._lock:
            entry = self._refresh(source, space_id, version)
            scores = score(entry) if entry.size else None
            if scores is None:
                return []
            mask = entry.mask(category, include_inactive) & (scores > 0)
            return best_of(entry.seqs, scores, np.flatnonzero(mask), limit)

    def hybrid_top_k(
        self,
        source: VectorSource,
        space_id: str,
        query: np.ndarray,
        terms: Sequence[str],
        limit: int,
        category: str | None,
        include_inactive: bool,
        version: int | None = None,
    ) -> Hybrid:
        """`top_k` and `text_top_k` at once, each memory of either list also scored by the
        other (its cosine, its BM25: 0 when it holds none of the terms), from the same product
        and postings; `version` as for top_k."""
        with self._lock:
            entry = self._refresh(source, space_id, version)
            if entry.size == 0:
                return Hybrid([], [], [], [])
            seqs = entry.seqs[: entry.size]
            mask = entry.mask(category, include_inactive)
            bm25 = entry.terms.scores(terms) if terms else np.zeros(entry.size, np.float32)
            text_rows = best_rows(bm25, np.flatnonzero(mask & (bm25 > 0)), limit)
            if entry.matrix.shape[1] != query.shape[0]:
                by_text = scored_rows(seqs, bm25, text_rows)
                return Hybrid([], by_text, [], by_text)
            rows, has_vector = entry.rows(), entry.has_vector[: entry.size]
        # outside the lock, as in top_k
        vector_rows, cosines = self._nearest(rows, query, np.flatnonzero(mask & has_vector), limit)
        found = list(dict.fromkeys([*vector_rows.tolist(), *text_rows.tolist()]))
        with_vector = np.asarray([r for r in found if has_vector[r]], dtype=np.int64)
        return Hybrid(
            paired_scores(seqs, vector_rows, cosines),
            scored_rows(seqs, bm25, text_rows),
            paired_scores(seqs, with_vector, rows.matrix[with_vector] @ query),
            scored_rows(seqs, bm25, found),
        )

    def record_write(self, space_id: str, before: int, after: int, rows: Sequence[Row],
                     active: Sequence[bool]) -> None:
        """A write this process committed took the space from version `before` to `after` and
        added `rows` (flagged by `active`), superseding nothing. When the cache holds the space
        at exactly `before`, the rows are applied here and the next search needs no refresh
        from the store (on Neo4j three round trips and a second record fetch: half of a flat
        add's time with 16 writers). Otherwise the cache missed a write and refreshes as usual."""
        with self._lock:
            entry = self._spaces.get(space_id)
            if entry is None or entry.version != before or after != before + 1:
                return
            if rows:
                seqs = [int(r[0]) for r in rows]
                if seqs[0] <= entry.last_seq or seqs != sorted(seqs):
                    return  # not a plain append: let the store's view decide
                entry.append(rows, active)
            entry.version = after

    def stats(self) -> tuple[int, int, int]:
        """(spaces, memories, bytes of their matrices, spare capacity included) held now."""
        with self._lock:
            entries = list(self._spaces.values())
        return (len(entries), sum(e.size for e in entries),
                sum(e.matrix.nbytes + e.codes.nbytes + e.steps.nbytes + e.seqs.nbytes
                    for e in entries))

    def holds(self, space_id: str) -> bool:
        """Whether the space is loaded (a search of it needs no read of the whole space)."""
        return self.version_of(space_id) is not None

    def bounded_and_cold(self, space_id: str) -> bool:
        """Whether a budget is set and the space is not held: a hint-only read (similar on
        save) then answers nothing rather than load the space inside a write."""
        return self.budget.budget_bytes is not None and not self.holds(space_id)

    def would_admit(self, space_id: str) -> bool:
        """Whether a load could be admitted (CacheBudget.admits); the load checks its size."""
        with self._lock:
            return self.budget.admits(space_id, MIN_ROW_BYTES)

    def load(self, source: VectorSource, space_id: str) -> None:
        """Read the space in now (the background loader), unless it needs more than the whole
        budget or is not admitted (CacheBudget.admits). A space not held is read without the
        cache's lock, into an entry that joins the cache once read: searches never wait."""
        with self._lock:
            if self.budget.too_large(space_id):
                return
            if space_id in self._spaces:
                self._refresh(source, space_id)
                return
            count = source.memory_count(space_id)
            nbytes = count * self._bytes_per_row()
            if self.budget.never_fits(space_id, count, nbytes) or not self.budget.admits(space_id, nbytes):
                return  # too large, or it would push out spaces searched more often
            for victim in self.budget.make_room(nbytes):
                del self._spaces[victim]
        entry = SpaceVectors()
        self._fill(source, space_id, entry, source.vector_version(space_id),
                   space_reads.restore(self._snapshot_dir, entry, source, space_id))
        with self._lock:
            if space_id in self._spaces:  # a search read it meanwhile (no budget: inline)
                return
            self._spaces[space_id] = entry
            for victim in self.budget.used(space_id, entry.nbytes()):
                del self._spaces[victim]
        release_freed_memory()

    def _bytes_per_row(self) -> int:
        """What a held memory takes, on average over the spaces held (MIN_ROW_BYTES if none)."""
        rows = sum(e.size for e in self._spaces.values())
        return max(MIN_ROW_BYTES, self.budget.held_bytes // rows) if rows else MIN_ROW_BYTES

    def version_of(self, space_id: str) -> int | None:
        """The store version the cached vectors of a space reflect (None: not loaded yet)."""
        with self._lock:
            entry = self._spaces.get(space_id)
            return entry.version if entry is not None and entry.version >= 0 else None

    def _refresh(self, source: VectorSource, space_id: str,
                 version: int | None = None) -> SpaceVectors:
        entry = self._update(source, space_id, version)
        if dropped := self.budget.used(space_id, entry.nbytes()):
            for victim in dropped:
                del self._spaces[victim]
            release_freed_memory()
        return entry

    def _update(self, source: VectorSource, space_id: str,
                version: int | None = None) -> SpaceVectors:
        version = source.vector_version(space_id) if version is None else version
        entry = self._spaces.get(space_id)
        new: Sequence[Row] | None = None
        if entry is None:
            entry = self._spaces[space_id] = SpaceVectors()
            new = space_reads.restore(self._snapshot_dir, entry, source, space_id)
        if entry.version == version:
            return entry
        self._fill(source, space_id, entry, version, new)
        return entry

    def _fill(self, source: VectorSource, space_id: str, entry: SpaceVectors, version: int,
              new: Sequence[Row] | None) -> None:
        """Bring the entry to `version`: rows past its last (`new`: read from a snapshot)."""
        whole = new is None and entry.size == 0  # saved whatever its size (worth_saving)
        if new is None:
            appended = space_reads.read_into(entry, source, space_id, self.budget.budget_bytes)
        else:
            if new:
                entry.append(new)
            appended = len(new)
            del new
        if self._snapshot_dir is not None and vector_snapshot.worth_saving(appended, whole):
            vector_snapshot.save(self._snapshot_dir, space_id, entry.saved())
        if appended >= vector_snapshot.MIN_NEW_ROWS:
            # The rows as read (~3x the matrix) are garbage: without this, a load stays in RSS.
            release_freed_memory()
        entry.deactivate(source.inactive_seqs(space_id, entry.last_seq))
        entry.version = version

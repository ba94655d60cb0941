"""Exact in-space vector search for the embedded store, over a per-space matrix kept in memory.

Memories are append-only (corrections and forgets only flip `active`), so the cache of a space
grows by reading the rows past the last one it saw into spare capacity (amortised O(1) per new
row), and re-reads only the ids of inactive rows (an index-only query) when the space's version
moved. A scan of 10,000 x 384 float32 is one matrix-vector product (~2 ms on these machines),
so exact search costs less than an approximate index would save.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass, field

import numpy as np


@dataclass
class _SpaceVectors:
    version: int = -1
    size: int = 0
    last_rowid: int = 0
    rowids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    matrix: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    active: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    categories: list[str] = field(default_factory=list)

    def append(self, rowids: list[int], block: np.ndarray, categories: list[str]) -> None:
        needed = self.size + len(rowids)
        if self.matrix.shape[0] < needed:
            capacity = max(needed, 2 * self.matrix.shape[0], 1024)
            matrix = np.zeros((capacity, block.shape[1]), dtype=np.float32)
            ids = np.zeros(capacity, dtype=np.int64)
            if self.size:
                matrix[: self.size] = self.matrix[: self.size]
                ids[: self.size] = self.rowids[: self.size]
            self.matrix, self.rowids = matrix, ids
        self.matrix[self.size : needed] = block
        self.rowids[self.size : needed] = rowids
        self.categories.extend(categories)
        self.size = needed
        self.last_rowid = rowids[-1]


class VectorCache:
    """Per-space embedding matrices, refreshed incrementally from the `memories` table."""

    def __init__(self) -> None:
        self._spaces: dict[str, _SpaceVectors] = {}
        self._lock = threading.Lock()

    def top_k(
        self,
        conn: sqlite3.Connection,
        space_id: str,
        query: np.ndarray,
        limit: int,
        category: str | None,
        include_inactive: bool,
    ) -> list[tuple[int, float]]:
        """(rowid, cosine) of the `limit` nearest memories of the space, best first."""
        with self._lock:
            entry = self._refresh(conn, space_id)
            if entry.size == 0:
                return []
            scores = entry.matrix[: entry.size] @ query
            mask = np.ones(entry.size, dtype=bool) if include_inactive else entry.active.copy()
            if category is not None:
                mask &= np.fromiter((c == category for c in entry.categories), bool, entry.size)
            candidates = np.flatnonzero(mask)
            if candidates.size == 0:
                return []
            if candidates.size > limit:
                top = np.argpartition(-scores[candidates], limit - 1)[:limit]
                candidates = candidates[top]
            picked = candidates[np.argsort(-scores[candidates], kind="stable")]
            return [(int(entry.rowids[i]), float(scores[i])) for i in picked]

    def _refresh(self, conn: sqlite3.Connection, space_id: str) -> _SpaceVectors:
        row = conn.execute("SELECT version FROM spaces WHERE id = ?", (space_id,)).fetchone()
        version = int(row[0]) if row else 0
        entry = self._spaces.setdefault(space_id, _SpaceVectors())
        if entry.version == version:
            return entry
        new = conn.execute(
            "SELECT rowid, embedding, category FROM memories "
            "WHERE space_id = ? AND rowid > ? AND embedding IS NOT NULL ORDER BY rowid",
            (space_id, entry.last_rowid),
        ).fetchall()
        if new:
            block = np.frombuffer(b"".join(r[1] for r in new), dtype=np.float32).reshape(len(new), -1)
            entry.append([int(r[0]) for r in new], block, [r[2] for r in new])
        inactive = np.array(
            [r[0] for r in conn.execute(
                "SELECT rowid FROM memories WHERE space_id = ? AND active = 0 AND rowid <= ?",
                (space_id, entry.last_rowid),
            )],
            dtype=np.int64,
        )
        entry.active = np.ones(entry.size, dtype=bool)
        if inactive.size:
            positions = np.searchsorted(entry.rowids[: entry.size], inactive)
            known = positions < entry.size
            positions = positions[known]
            exact = entry.rowids[positions] == inactive[known]
            entry.active[positions[exact]] = False
        entry.version = version
        return entry

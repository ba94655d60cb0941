"""Exact in-space vector search for the embedded store, over a per-space matrix kept in memory.

Memories are append-only (corrections and forgets only flip `active`), so the cache of a space
grows by reading the rows past the last one it saw, and re-reads only the small `active` column
when the space's version moved. A scan of 10,000 x 384 float32 is one matrix-vector product
(~1 ms on these machines), so exact search costs less than an approximate index would save.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass, field

import numpy as np


@dataclass
class _SpaceVectors:
    version: int = -1
    last_rowid: int = 0
    rowids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    matrix: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    active: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    categories: list[str] = field(default_factory=list)


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
            if entry.matrix.shape[0] == 0:
                return []
            scores = entry.matrix @ query
            mask = np.ones(len(scores), dtype=bool) if include_inactive else entry.active.copy()
            if category is not None:
                mask &= np.fromiter((c == category for c in entry.categories), bool, len(scores))
            candidates = np.flatnonzero(mask)
            if candidates.size == 0:
                return []
            picked = candidates[np.argsort(-scores[candidates], kind="stable")[:limit]]
            return [(int(entry.rowids[i]), float(scores[i])) for i in picked]

    def _refresh(self, conn: sqlite3.Connection, space_id: str) -> _SpaceVectors:
        row = conn.execute("SELECT version FROM spaces WHERE id = ?", (space_id,)).fetchone()
        version = int(row[0]) if row else 0
        entry = self._spaces.setdefault(space_id, _SpaceVectors())
        if entry.version == version:
            return entry
        new = conn.execute(
            "SELECT rowid, embedding, active, category FROM memories "
            "WHERE space_id = ? AND rowid > ? AND embedding IS NOT NULL ORDER BY rowid",
            (space_id, entry.last_rowid),
        ).fetchall()
        if new:
            block = np.frombuffer(b"".join(r[1] for r in new), dtype=np.float32)
            block = block.reshape(len(new), -1)
            entry.matrix = block if entry.matrix.size == 0 else np.vstack([entry.matrix, block])
            entry.rowids = np.concatenate([entry.rowids, np.array([r[0] for r in new], np.int64)])
            entry.categories.extend(r[3] for r in new)
            entry.last_rowid = int(new[-1][0])
        flags = conn.execute(
            "SELECT active FROM memories WHERE space_id = ? AND rowid <= ? "
            "AND embedding IS NOT NULL ORDER BY rowid",
            (space_id, entry.last_rowid),
        ).fetchall()
        entry.active = np.fromiter((bool(f[0]) for f in flags), bool, len(flags))
        entry.version = version
        return entry

"""The first pass of the vector cache's search: every row scored from an int8 copy of the
matrix, then only the best `depth(k)` rows scored again in float32, exactly.

A search reads the whole matrix of its space. At 100,000 x 384 float32 that is 154 MB per query,
and the product is bound by memory bandwidth: 6.6 ms idle and ~10 ms inside a busy server (py-spy
of the MCP search at 100,000 memories on Neo4j: 37% of the service's time). An int8 copy is a
quarter of the bytes, and simsimd's int8 dot kernel (AVX2 / AVX-512 VNNI) scans it in 1.5 ms on
one core here. The GIL is released while it runs.

Each row is scaled by its own largest component (symmetric, `steps` = max|v| / 127), so any
model's vectors use the whole int8 range. The query is scaled the same way; its step only
rescales every score, so it is left out. The approximate score of a row is its integer dot times
its step. On e5-small-v2's vectors of bench/bench_service.py's 100,000 memories, 400 queries,
it differs from the cosine by at most 0.0024. The exact top 10 / 50 / 150 were always within the
approximate top 14 / 65 / 195.

So the answer is exact: the rows that the first pass ranks within `depth(k)` (10 x k, at least
500, several times the depth that was ever needed) are scored again against the float32 rows,
and those exact cosines decide. Scoring 1,500 rows again costs ~0.3 ms.
"""

from __future__ import annotations

import numpy as np
import simsimd

# Rows scored again, exactly, per result wanted, and at least this many.
RESCORE_FACTOR = 10
RESCORE_MIN = 500
# Rows quantised per pass (float32 temporaries of ~3 MB each, not of the whole matrix: a
# restored space of 34,126 rows is quantised at once).
QUANTISE_ROWS = 2_000


def depth(k: int) -> int:
    """How many rows of the approximate ranking are scored again for the best `k`."""
    return max(RESCORE_FACTOR * k, RESCORE_MIN)


def quantise(block: np.ndarray, out: tuple[np.ndarray, np.ndarray] | None = None
             ) -> tuple[np.ndarray, np.ndarray]:
    """(int8 codes, float32 step per row) of float32 rows, written into `out` if given (rows of
    arrays with room past them). A zero row gets a zero code and step."""
    codes, steps = out if out is not None else (np.empty(block.shape, dtype=np.int8),
                                                np.empty(block.shape[0], dtype=np.float32))
    for start in range(0, block.shape[0], QUANTISE_ROWS):
        rows = block[start : start + QUANTISE_ROWS]
        step = np.abs(rows).max(axis=1, initial=0.0) / 127.0
        scaled = rows / np.where(step > 0, step, 1.0)[:, None]
        codes[start : start + QUANTISE_ROWS] = np.rint(scaled, out=scaled)
        steps[start : start + QUANTISE_ROWS] = step
    return codes, steps


def scan(codes: np.ndarray, steps: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Approximate scores (queries x rows, float32) of int8 `codes` for float32 `queries`,
    proportional to the cosine for unit vectors (each query's own scale is left out)."""
    query_codes, _ = quantise(np.atleast_2d(queries).astype(np.float32, copy=False))
    if codes.shape[0] == 0:
        return np.zeros((query_codes.shape[0], 0), dtype=np.float32)
    dots = np.asarray(simsimd.cdist(query_codes, codes, metric="dot", out_dtype="float32"))
    dots *= steps
    return dots

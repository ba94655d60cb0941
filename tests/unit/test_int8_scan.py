"""The vector cache's int8 first pass (stores/int8_scan.py): close to the cosine, and the answer
exact once the best rows are scored again in float32, on vectors as crowded as a sentence
model's (every pair's cosine between ~0.7 and ~0.9)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memspace.stores import int8_scan
from memspace.stores.vector_cache import VectorCache

SPACE = "s1"
DIMS = 384


def crowded(n: int, seed: int) -> np.ndarray:
    """Unit rows around one shared direction, like sentence embeddings of one space."""
    rng = np.random.default_rng(seed)
    rows = rng.standard_normal(DIMS).astype(np.float32) * 1.6 + rng.standard_normal(
        (n, DIMS)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


class Rows:
    """A store holding `matrix` as one space (seq = row + 1), some rows inactive, some 'ops'."""

    def __init__(self, matrix: np.ndarray, inactive: Sequence[int] = ()) -> None:
        self.matrix = matrix
        self.inactive = sorted(inactive)

    def vector_version(self, space_id: str) -> int:
        return 1

    def vectors_after(self, space_id: str, after_seq: int,
                      limit: int | None = None) -> list[tuple[int, object, str, str, str]]:
        return [(i + 1, self.matrix[i].tobytes(), "ops" if i % 3 == 0 else "general", "", "")
                for i in range(after_seq, len(self.matrix))][:limit]

    def memory_count(self, space_id: str) -> int:
        return len(self.vectors_after(space_id, 0))

    def inactive_seqs(self, space_id: str, upto_seq: int) -> list[int]:
        return [s for s in self.inactive if s <= upto_seq]


def test_codes_hold_each_row_to_half_a_step() -> None:
    rows = crowded(200, seed=1)
    rows[7] = 0.0  # a memory without a vector
    codes, steps = int8_scan.quantise(rows)
    assert codes.dtype == np.int8 and np.abs(codes.astype(np.int32)).max() == 127
    assert steps[7] == 0.0 and not codes[7].any()
    error = np.abs(codes * steps[:, None] - rows)
    assert (error <= steps[:, None] / 2 + 1e-7).all()


def test_scan_scores_are_the_dot_products_up_to_the_query_scale() -> None:
    rows = crowded(1_000, seed=2)
    query = crowded(1, seed=3)[0]
    codes, steps = int8_scan.quantise(rows)
    [approx] = int8_scan.scan(codes, steps, query)
    query_step = np.abs(query).max() / 127
    np.testing.assert_allclose(approx * query_step, rows @ query, atol=0.01)
    assert np.corrcoef(approx, rows @ query)[0, 1] > 0.999


def test_the_cache_answers_exactly_where_the_int8_order_alone_would_not() -> None:
    matrix = crowded(20_000, seed=4)
    inactive = list(range(2, 20_000, 11))
    source = Rows(matrix, [s + 1 for s in inactive])
    cache = VectorCache()
    codes, steps = int8_scan.quantise(matrix)
    allowed = np.ones(len(matrix), dtype=bool)
    allowed[inactive] = False
    ops = np.arange(len(matrix)) % 3 == 0
    reordered = 0
    for query in crowded(30, seed=5):
        exact = matrix @ query
        for limit, category in ((10, None), (50, None), (150, None), (20, "ops")):
            keep = allowed & (ops if category else True)
            rows = np.flatnonzero(keep)
            best = rows[np.argsort(-exact[rows], kind="stable")[:limit]]
            hits = cache.top_k(source, SPACE, query, limit, category, False)
            assert [s for s, _ in hits] == [int(r) + 1 for r in best]
            np.testing.assert_allclose([c for _, c in hits], exact[best], rtol=1e-5)
            [approx] = int8_scan.scan(codes, steps, query)
            by_codes = rows[np.argsort(-approx[rows], kind="stable")[:limit]]
            reordered += not np.array_equal(by_codes, best)
    assert reordered  # the int8 order alone differs: the float32 pass is what makes it exact


def test_a_hybrid_search_scores_every_memory_it_found_with_its_exact_cosine() -> None:
    matrix = crowded(5_000, seed=6)
    source = Rows(matrix)
    cache = VectorCache()
    query = crowded(1, seed=7)[0]
    hits = cache.hybrid_top_k(source, SPACE, query, [], 25, None, False)
    exact = matrix @ query
    assert [s for s, _ in hits.by_vector] == [int(r) + 1 for r in np.argsort(-exact)[:25]]
    for seq, cosine in hits.cosines:
        assert abs(cosine - exact[seq - 1]) < 1e-5

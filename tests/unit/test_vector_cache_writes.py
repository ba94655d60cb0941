"""A write this process committed reaches the vector cache directly (no refresh from the store),
but only when the cache held the space at exactly the version before it: a write it missed in
between makes it read the store as before."""

from __future__ import annotations

import numpy as np

from memspace.stores.vector_cache import VectorCache
from tests.unit.test_vector_snapshot import SPACE, Source


def loaded(n: int = 30) -> tuple[VectorCache, Source]:
    source = Source(seed=3, n=n)
    cache = VectorCache()
    cache.top_k(source, SPACE, source.rows[1][0], 5, None, False)  # loads the space
    return cache, source


def write(source: Source, vector: np.ndarray, active: bool = True,
          category: str = "general") -> tuple[int, int, tuple[int, object, str, str]]:
    """What a store's write does: one row, version + 1; returns (before, after, row)."""
    before = source.version
    seq = source.add(vector, category, terms=f"fresh{category}")
    if not active:
        source.inactive.add(seq)
    return before, source.version, (seq, source.rows[seq][0].tolist(), category, f"fresh{category}",
                                    f"fresh{category}")


def test_a_recorded_write_is_searchable_without_reading_the_store() -> None:
    cache, source = loaded()
    reads, version_reads = len(source.reads), source.version_reads
    before, after, row = write(source, np.arange(8, dtype=np.float32) + 1)
    cache.record_write(SPACE, before, after, [row], [True])
    query = source.rows[row[0]][0]
    hits = cache.top_k(source, SPACE, query, 5, None, False, version=after)
    assert hits[0][0] == row[0] and abs(hits[0][1] - 1.0) < 1e-5
    assert [s for s, _ in hits] == source.exact(query, 5)
    found = cache.text_top_k(source, SPACE, ["freshgeneral"], 5, None, False, version=after)
    assert [s for s, _ in found] == [row[0]]  # its terms are indexed too
    assert (len(source.reads), source.version_reads) == (reads, version_reads)
    assert cache.version_of(SPACE) == after


def test_an_inactive_row_is_recorded_inactive() -> None:
    cache, source = loaded()
    vector = np.ones(8, dtype=np.float32)
    before, after, row = write(source, vector, active=False, category="ops")
    cache.record_write(SPACE, before, after, [row], [False])
    query = source.rows[row[0]][0]
    live = [s for s, _ in cache.top_k(source, SPACE, query, 40, None, False, version=after)]
    assert row[0] not in live and live == source.exact(query, 40)
    every = [s for s, _ in cache.top_k(source, SPACE, query, 1, "ops", True, version=after)]
    assert every == [row[0]]


def test_a_write_the_cache_missed_makes_it_read_the_store() -> None:
    cache, source = loaded()
    missed = source.add(np.full(8, 2.0, dtype=np.float32))  # another process's write
    before, after, row = write(source, np.arange(8, dtype=np.float32) - 3)
    cache.record_write(SPACE, before, after, [row], [True])
    assert cache.version_of(SPACE) == before - 1  # not applied over the gap
    query = source.rows[missed][0]
    assert top_seqs(cache, source, query) == source.exact(query, 5)
    assert cache.version_of(SPACE) == after


def test_an_unloaded_space_is_left_to_its_first_search() -> None:
    source = Source(seed=4, n=10)
    cache = VectorCache()
    before, after, row = write(source, np.ones(8, dtype=np.float32))
    cache.record_write(SPACE, before, after, [row], [True])
    assert cache.version_of(SPACE) is None
    query = source.rows[row[0]][0]
    assert top_seqs(cache, source, query) == source.exact(query, 5)


def top_seqs(cache: VectorCache, source: Source, query: np.ndarray) -> list[int]:
    return [s for s, _ in cache.top_k(source, SPACE, query, 5, None, False)]


def test_waiting_scans_of_one_matrix_are_one_scan_with_each_callers_scores() -> None:
    from memspace.stores import int8_scan
    from memspace.stores.space_vectors import run_scans

    rng = np.random.default_rng(3)
    space_a = int8_scan.quantise(rng.standard_normal((50, 8)).astype(np.float32))
    space_b = int8_scan.quantise(rng.standard_normal((30, 8)).astype(np.float32))
    queries = [rng.standard_normal(8).astype(np.float32) for _ in range(4)]
    calls = [(space_a[0][:50], space_a[1][:50], queries[0]), (*space_b, queries[1]),
             (space_a[0][:50], space_a[1][:50], queries[2]),
             (space_a[0][:40], space_a[1][:40], queries[3])]  # fewer rows: a scan of its own
    for (codes, steps, query), scores in zip(calls, run_scans(calls), strict=True):
        assert scores.shape == (codes.shape[0],)
        np.testing.assert_array_equal(scores, int8_scan.scan(codes, steps, query)[0])

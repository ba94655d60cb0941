"""The vector cache restarts from its snapshot, reads only what is past it, and ignores a
snapshot the store behind it does not match; scoring held rows needs no version lookup."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from memspace.stores import vector_snapshot
from memspace.stores.space_vectors import SpaceVectors
from memspace.stores.vector_cache import VectorCache

SPACE = "0f3c9a"


class Source:
    """An in-memory store: seq -> (vector or None, category, terms), with a version and
    inactive seqs; a row's content is its terms."""

    def __init__(self, seed: int, n: int) -> None:
        rng = np.random.default_rng(seed)
        self.rows: dict[int, tuple[np.ndarray, str]] = {}
        self.terms: dict[int, str] = {}
        self.vectorless: dict[int, str] = {}  # seq -> category of rows without a vector
        self.inactive: set[int] = set()
        self.version = 0
        self.version_reads = 0
        self.reads: list[int] = []  # the `after_seq` of every vectors_after call
        for i in range(n):
            self.add(rng.normal(size=8).astype(np.float32), terms=f"word{i % 7} row{i}")

    def _next(self) -> int:
        return max([*self.rows, *self.vectorless], default=0) + 1

    def add(self, vector: np.ndarray, category: str = "general", terms: str = "") -> int:
        seq = self._next()
        self.rows[seq] = (vector / np.linalg.norm(vector), category)
        self.terms[seq] = terms
        self.version += 1
        return seq

    def add_vectorless(self, terms: str, category: str = "general") -> int:
        seq = self._next()
        self.vectorless[seq] = category
        self.terms[seq] = terms
        self.version += 1
        return seq

    def vector_version(self, space_id: str) -> int:
        self.version_reads += 1
        return self.version

    def vectors_after(self, space_id: str, after_seq: int,
                      limit: int | None = None) -> Sequence[tuple[int, object, str, str, str]]:
        self.reads.append(after_seq)
        # a row's content: its terms, as words
        rows: list[tuple[int, object, str, str, str]] = [
            (s, v.tobytes(), c, self.terms[s], self.terms[s]) for s, (v, c) in self.rows.items()]
        rows += [(s, None, c, self.terms[s], self.terms[s]) for s, c in self.vectorless.items()]
        return sorted((r for r in rows if r[0] > after_seq), key=lambda r: r[0])[:limit]

    def inactive_seqs(self, space_id: str, upto_seq: int) -> Sequence[int]:
        return sorted(s for s in self.inactive if s <= upto_seq)

    def memory_count(self, space_id: str) -> int:
        return len(self.rows) + len(self.vectorless)

    def exact(self, query: np.ndarray, k: int) -> list[int]:
        live = [s for s in self.rows if s not in self.inactive]
        return sorted(live, key=lambda s: -float(self.rows[s][0] @ query))[:k]


def top(cache: VectorCache, source: Source, query: np.ndarray, k: int = 5) -> list[int]:
    return [seq for seq, _ in cache.top_k(source, SPACE, query, k, None, False)]


@pytest.fixture(autouse=True)
def snapshot_every_load(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_snapshot, "MIN_NEW_ROWS", 10)


def test_a_restarted_cache_reads_only_the_rows_past_its_snapshot(tmp_path: Path) -> None:
    source = Source(seed=1, n=40)
    query = source.rows[7][0]
    assert top(VectorCache(tmp_path), source, query)[0] == 7
    assert (tmp_path / f"{SPACE}.npz").is_file()
    # while the server was down: one more memory, one forgotten
    newest = source.add(query + 0.01)
    source.inactive.add(7)
    source.version += 1
    source.reads.clear()
    restarted = VectorCache(tmp_path)
    assert top(restarted, source, query) == source.exact(query, 5)
    assert top(restarted, source, query)[0] == newest
    assert source.reads == [40 - 1]  # from the snapshot's last row on, not from the start


def test_a_snapshot_from_another_store_is_ignored(tmp_path: Path) -> None:
    VectorCache(tmp_path).top_k(Source(seed=1, n=40), SPACE, np.ones(8, np.float32), 1, None,
                                False)
    other = Source(seed=2, n=40)  # same space id, other vectors (a wiped or restored store)
    query = other.rows[3][0]
    other.reads.clear()
    assert top(VectorCache(tmp_path), other, query) == other.exact(query, 5)
    assert other.reads[-1] == 0  # read in full


def test_an_unreadable_snapshot_is_ignored(tmp_path: Path) -> None:
    (tmp_path / f"{SPACE}.npz").write_bytes(b"not a snapshot")
    source = Source(seed=3, n=20)
    query = source.rows[5][0]
    assert top(VectorCache(tmp_path), source, query) == source.exact(query, 5)


def text(cache: VectorCache, source: Source, terms: list[str], k: int = 5) -> list[int]:
    return [seq for seq, _ in cache.text_top_k(source, SPACE, terms, k, None, False)]


def test_the_term_index_comes_back_with_the_snapshot(tmp_path: Path) -> None:
    source = Source(seed=5, n=40)
    fresh = VectorCache(tmp_path)
    before = text(fresh, source, ["word3", "row10"], 10)
    assert before[0] == 11 and set(before[1:]) <= {4, 11, 18, 25, 32, 39}  # row10 is seq 11
    source.reads.clear()
    restarted = VectorCache(tmp_path)
    assert text(restarted, source, ["word3", "row10"], 10) == before
    assert source.reads == [40 - 1]


def test_a_memory_without_a_vector_is_found_by_its_terms_only(tmp_path: Path) -> None:
    source = Source(seed=6, n=12)
    pending = source.add_vectorless("pending note kafka")
    cache = VectorCache(tmp_path)
    assert text(cache, source, ["kafka"]) == [pending]
    query = source.rows[2][0]
    assert pending not in top(cache, source, query, 13)
    hybrid = cache.hybrid_top_k(source, SPACE, query, ["kafka"], 13, None, False)
    assert [seq for seq, _ in hybrid.by_text] == [pending]
    assert pending not in {seq for seq, _ in hybrid.cosines}  # no vector, no cosine
    assert dict(hybrid.text_scores)[pending] > 0
    # a vector-less first row, then vectors: the matrix takes their width
    other = Source(seed=7, n=0)
    first = other.add_vectorless("only words")
    second = other.add(np.ones(8, dtype=np.float32), terms="words and a vector")
    late = VectorCache()
    assert top(late, other, other.rows[second][0]) == [second]
    assert text(late, other, ["words"]) == [first, second]


def test_a_snapshot_written_in_small_chunks_reads_back_exactly(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Arrays larger than a write chunk, empty ones and text ones come back as they were."""
    monkeypatch.setattr(vector_snapshot, "WRITE_CHUNK", 100)
    rng = np.random.default_rng(3)
    matrix = rng.normal(size=(57, 8)).astype(np.float32)  # 1,824 bytes: 19 chunks
    empty = vector_snapshot.Exported(
        terms=[], offsets=np.zeros(1, dtype=np.int64), postings=np.zeros(0, dtype=np.int32),
        df=np.zeros(0, dtype=np.int32), lengths=np.zeros(57, dtype=np.float32))
    terms = vector_snapshot.Exported(
        terms=["kiwi", "été"], offsets=np.array([0, 2, 3], dtype=np.int64),
        postings=np.array([0, 56, 9], dtype=np.int32), df=np.array([2, 1], dtype=np.int32),
        lengths=rng.random(57).astype(np.float32))
    saved = vector_snapshot.Saved(
        seqs=np.arange(1, 58, dtype=np.int64), matrix=matrix,
        has_vector=np.arange(57) % 5 != 0, categories=["general", "décision"] * 28 + ["x"],
        terms=terms, words=empty)
    vector_snapshot.save(tmp_path, SPACE, saved)
    back = vector_snapshot.load(tmp_path, SPACE)
    assert back is not None and back.room is None
    roomy = vector_snapshot.load(tmp_path, SPACE, room=lambda rows: rows + 10)
    assert roomy is not None and roomy.room is not None
    assert np.array_equal(roomy.matrix, matrix) and roomy.room.shape == (67, 8)
    assert np.shares_memory(roomy.matrix, roomy.room) and not roomy.room[57:].any()
    assert np.array_equal(back.seqs, saved.seqs) and back.seqs.dtype == np.int64
    assert np.array_equal(back.matrix, matrix) and back.matrix.dtype == np.float32
    assert np.array_equal(back.has_vector, saved.has_vector)
    assert list(back.categories) == saved.categories
    assert back.terms.terms == ["kiwi", "été"]
    assert np.array_equal(back.terms.postings, terms.postings)
    assert np.array_equal(back.terms.lengths, terms.lengths)
    assert back.words.terms == [] and len(back.words.postings) == 0


def test_adds_to_a_loaded_or_restored_space_are_written_in_place(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Growing a held space's arrays holds the old and the new at once, each as large as the
    space: a load, or a snapshot and the rows past it, leave room for the adds after them."""
    copies: list[int] = []
    grow = SpaceVectors._grow

    def counted(self: SpaceVectors, capacity: int, width: int) -> None:
        if self.size:
            copies.append(self.size)
        grow(self, capacity, width)

    monkeypatch.setattr(SpaceVectors, "_grow", counted)
    source = Source(seed=8, n=1_500)
    cache = VectorCache(tmp_path)
    assert top(cache, source, source.rows[9][0])[0] == 9
    rng = np.random.default_rng(9)
    for _ in range(3):
        newest = source.add(rng.normal(size=8).astype(np.float32))
        assert top(cache, source, source.rows[newest][0])[0] == newest
    restarted = VectorCache(tmp_path)  # from the snapshot, with rows past it
    newest = source.add(rng.normal(size=8).astype(np.float32))
    assert top(restarted, source, source.rows[newest][0])[0] == newest
    assert copies == []


def test_a_small_space_read_whole_is_saved_and_restored_past_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_snapshot, "MIN_NEW_ROWS", 5_000)  # as served: far above 30 rows
    source = Source(seed=4, n=30)
    query = source.rows[11][0]
    cache = VectorCache(tmp_path)
    assert top(cache, source, query)[0] == 11
    assert (tmp_path / f"{SPACE}.npz").is_file()  # a load of the whole space, however small
    newest = source.add(query + 0.01)
    source.reads.clear()
    top(cache, source, query)  # a refresh of a held space adds one row: not saved again
    saved = vector_snapshot.load(tmp_path, SPACE)
    assert saved is not None and int(saved.seqs[-1]) == 30
    source.reads.clear()
    restarted = VectorCache(tmp_path)
    assert top(restarted, source, query)[:2] == [11, newest] == source.exact(query, 2)
    assert source.reads == [30 - 1]  # from the snapshot's last row on, not from the start

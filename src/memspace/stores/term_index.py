"""BM25 over one space's index terms, with that space's own statistics, kept in memory.

Both stores used to rank full text with their engine's BM25 (FTS5, Lucene), whose statistics
span every space of the database: how often a word occurs in one team's space changed the
scores in another's, and a space's results moved with what else was stored. On LoCoMo (ten
conversations, one space each, bench/recall_locomo.py) the space's own statistics lifted R@10
from 0.780 to 0.790 (held-out conversations 0.767 to 0.784). Kept here, beside the space's
vectors (stores/vector_cache.py), the ranking is also the same on both stores by construction,
and needs no engine round trip.

The terms are the ones each store already keeps per memory (domain.text.index_terms: stemmed,
stop words out, the turn before included). Scoring is Okapi BM25 with the usual k1 = 1.2,
b = 0.75 (FTS5's and Lucene's defaults) and Lucene's always-positive idf; every memory of the
space counts in the statistics, active or not, as in the engines' indexes.

Size: postings are int32 row numbers (a term repeated in a memory is listed again), so 100,000
memories of ~15 terms take ~6 MB, plus the vocabulary. Rows are indexed in bulk with numpy (a
cold load of 100,000 memories), and an index can be exported to arrays and restored from them
(the snapshot beside the data, stores/vector_snapshot.py).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, pairwise

import numpy as np

K1 = 1.2
B = 0.75


@dataclass(frozen=True)
class Exported:
    """A TermIndex as flat arrays: term i's postings are postings[offsets[i]:offsets[i + 1]]."""

    terms: list[str]
    offsets: np.ndarray  # int64, len(terms) + 1
    postings: np.ndarray  # int32 rows
    df: np.ndarray  # int32, per term
    lengths: np.ndarray  # float32, per row


class TermIndex:
    """Postings of one space's memories, by row (the order the cache appends them in)."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._terms: list[str] = []  # term id -> term, in the order first indexed
        self._postings: list[array[int]] = []  # term id -> rows holding it (repeats = tf)
        self._df = array("i")  # term id -> rows holding it at least once
        self._lengths = array("f")  # row -> number of terms
        self._total = 0

    @property
    def rows(self) -> int:
        return len(self._lengths)

    def append(self, documents: Sequence[str]) -> None:
        """Index the next rows; each document is its memory's terms, space-separated."""
        if not documents:
            return
        # C-level passes (map, chain, dict.fromkeys): a generator calling setdefault per term
        # was two thirds of indexing 100,000 memories (cProfile).
        split = list(map(str.split, documents))
        lengths = np.fromiter(map(len, split), dtype=np.int64, count=len(split))
        tokens = list(chain.from_iterable(split))
        ids = self._ids
        for term in dict.fromkeys(tokens):
            if term not in ids:
                ids[term] = len(ids)
                self._terms.append(term)
        tids = np.fromiter(map(ids.__getitem__, tokens), dtype=np.int64, count=len(tokens))
        for _ in range(len(ids) - len(self._postings)):
            self._postings.append(array("i"))
            self._df.append(0)
        first = len(self._lengths)
        rows = np.repeat(np.arange(first, first + len(split), dtype=np.int64), lengths)
        self._lengths.extend(lengths.astype(np.float32).tolist())
        self._total += int(lengths.sum())
        if tids.size == 0:
            return
        order = np.argsort(tids, kind="stable")  # by term, rows ascending within a term
        tids, rows = tids[order], rows[order].astype(np.int32)
        starts = np.flatnonzero(np.r_[True, tids[1:] != tids[:-1]])
        ends = np.r_[starts[1:], tids.size]
        # distinct rows per term: a row change (or a new term) starts a new row
        new_row = np.r_[True, (tids[1:] != tids[:-1]) | (rows[1:] != rows[:-1])]
        distinct = np.add.reduceat(new_row.astype(np.int64), starts)
        for start, end, count in zip(starts.tolist(), ends.tolist(), distinct.tolist(),
                                     strict=True):
            tid = int(tids[start])
            self._postings[tid].frombytes(rows[start:end].tobytes())
            self._df[tid] += count

    def scores(self, terms: Sequence[str]) -> np.ndarray:
        """BM25 of every row for these query terms (0 where none occurs), float32."""
        scores = np.zeros(len(self._lengths), dtype=np.float32)
        for term in dict.fromkeys(terms):
            rows, partial = self.term_scores(term)
            scores[rows] += partial
        return scores

    def term_scores(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """The rows holding `term` (each once, ascending) and its BM25 part in each."""
        tid = self._ids.get(term)
        n = len(self._lengths)
        if tid is None or n == 0 or self._df[tid] == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        df = self._df[tid]
        rows = np.frombuffer(self._postings[tid], dtype=np.int32)
        idf = np.log1p((n - df + 0.5) / (df + 0.5))
        if len(rows) == df:  # each row holds the term once: the common case
            tf: np.ndarray | float = 1.0
            unique = rows
        else:
            unique, counts = np.unique(rows, return_counts=True)
            tf = counts.astype(np.float32)
        lengths = np.frombuffer(self._lengths, dtype=np.float32)[unique]
        norm = K1 * (1 - B + B * lengths / (self._total / n if self._total else 1.0))
        return unique, (idf * tf * (K1 + 1) / (tf + norm)).astype(np.float32)

    @property
    def nbytes(self) -> int:
        """About what the index keeps: 4 bytes a posting and a row, ~100 a distinct term."""
        return 4 * (self._total + len(self._lengths)) + 100 * len(self._terms)

    @property
    def vocabulary_size(self) -> int:
        return len(self._terms)

    def holds(self, term: str) -> bool:
        return term in self._ids

    def vocabulary(self, start: int = 0) -> list[str]:
        """The terms indexed, in the order first seen, from the `start`-th on (the vocabulary
        only grows: a caller that saw n terms reads what came after with start=n)."""
        return self._terms[start:]

    def last_terms(self) -> list[str]:
        """The last row's terms, sorted (a snapshot's check against the store). Rows are
        appended in order, so they end the postings of the terms they hold."""
        last = len(self._lengths) - 1
        found = []
        for term, tid in self._ids.items():
            postings = self._postings[tid]
            end = len(postings)
            while end and postings[end - 1] == last:
                found.append(term)
                end -= 1
        return sorted(found)

    def export(self) -> Exported:
        sizes = np.fromiter((len(p) for p in self._postings), dtype=np.int64,
                            count=len(self._postings))
        offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        joined = b"".join(p.tobytes() for p in self._postings)
        return Exported(
            terms=list(self._terms),
            offsets=offsets,
            postings=np.frombuffer(joined, dtype=np.int32).copy(),
            df=np.frombuffer(self._df, dtype=np.int32).copy(),
            lengths=np.frombuffer(self._lengths, dtype=np.float32).copy(),
        )

    @classmethod
    def restore(cls, saved: Exported) -> TermIndex:
        index = cls()
        index._terms = list(saved.terms)
        index._ids = {term: i for i, term in enumerate(index._terms)}
        bounds = saved.offsets.tolist()
        index._postings = [array("i", saved.postings[a:b].tobytes())
                           for a, b in pairwise(bounds)]
        index._df = array("i", saved.df.astype(np.int32).tobytes())
        index._lengths = array("f", saved.lengths.astype(np.float32).tobytes())
        index._total = int(saved.lengths.sum())
        return index

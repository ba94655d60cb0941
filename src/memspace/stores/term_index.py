"""BM25 over one space's index terms, with that space's own statistics, kept in memory.

Both stores used to rank full text with their engine's BM25 (FTS5, Lucene), whose statistics
span every space of the database: how often a word occurs in one team's space changed the
scores in another's, and a space's results moved with what else was stored. On LoCoMo (ten
conversations, one space each, bench/recall_locomo.py) per-space statistics gave R@10
0.792 against 0.775 for database-wide ones, in the experiment that compared the two. Kept here,
beside the space's vectors (stores/vector_cache.py), the ranking is also the same on both
stores by construction, and needs no engine round trip.

The terms are the ones each store already keeps per memory (domain.text.index_terms: stemmed,
stop words out, the turn before included). Scoring is Okapi BM25 with the usual k1 = 1.2,
b = 0.75 (FTS5's and Lucene's defaults) and Lucene's always-positive idf; every memory of the
space counts in the statistics, active or not, as in the engines' indexes.

Size: postings are int32 row numbers (a term repeated in a memory is listed again), so 100,000
memories of ~15 terms take ~6 MB, plus the vocabulary.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Sequence

import numpy as np

K1 = 1.2
B = 0.75


class TermIndex:
    """Postings of one space's memories, by row (the order the cache appends them in)."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._postings: list[array[int]] = []  # term id -> rows holding it (repeats = tf)
        self._df = array("i")  # term id -> rows holding it at least once
        self._lengths = array("f")  # row -> number of terms
        self._total = 0

    @property
    def rows(self) -> int:
        return len(self._lengths)

    def append(self, documents: Sequence[str]) -> None:
        """Index the next rows; each document is its memory's terms, space-separated."""
        for text in documents:
            row = len(self._lengths)
            terms = text.split()
            self._lengths.append(len(terms))
            self._total += len(terms)
            for term, count in Counter(terms).items():
                tid = self._ids.get(term)
                if tid is None:
                    tid = self._ids[term] = len(self._postings)
                    self._postings.append(array("i"))
                    self._df.append(0)
                self._df[tid] += 1
                postings = self._postings[tid]
                for _ in range(count):
                    postings.append(row)

    def documents(self) -> list[str]:
        """Each row's terms (sorted, space-separated): what `append` needs to rebuild this
        index, e.g. from a snapshot (stores/vector_snapshot.py)."""
        rows: list[list[str]] = [[] for _ in range(len(self._lengths))]
        for term, tid in self._ids.items():
            for row in self._postings[tid]:
                rows[row].append(term)
        return [" ".join(sorted(r)) for r in rows]

    def scores(self, terms: Sequence[str]) -> np.ndarray:
        """BM25 of every row for these query terms (0 where none occurs), float32."""
        n = len(self._lengths)
        scores = np.zeros(n, dtype=np.float32)
        wanted = [self._ids[t] for t in dict.fromkeys(terms) if t in self._ids]
        if not wanted or n == 0:
            return scores
        lengths = np.frombuffer(self._lengths, dtype=np.float32)
        norm = K1 * (1 - B + B * lengths / (self._total / n if self._total else 1.0))
        for tid in wanted:
            df = self._df[tid]
            idf = np.log1p((n - df + 0.5) / (df + 0.5))
            rows = np.frombuffer(self._postings[tid], dtype=np.int32)
            if len(rows) == df:  # each row holds the term once: the common case
                tf: np.ndarray | float = 1.0
                unique = rows
            else:
                unique, counts = np.unique(rows, return_counts=True)
                tf = counts.astype(np.float32)
            scores[unique] += (idf * tf * (K1 + 1) / (tf + norm[unique])).astype(np.float32)
        return scores

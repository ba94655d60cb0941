"""Typo-tolerant keyword search over one space's words, kept in memory beside its vectors.

A keyword finds the memories whose content holds every one of its words, each word either as
typed or within its typo budget (domain.text.max_edits and the symmetric `tolerated` rule: a
budget from the shorter word, so `plan` never finds `plant`). Stop words count: a keyword is
what someone typed, not a question.

Ranking is BM25 over the content's words with the space's own statistics (stores/term_index.py
does the arithmetic). A word matched through a typo scores as the stored word it matched,
scaled by 1 - edits / length of the shorter word (Lucene's FuzzyQuery scales its variants
that way); when several stored words match one typed word, the best of them counts, so a
memory holding both `services` and `service` is not counted twice for `services`.

Why in process, for both stores:
- On Neo4j the full-text index was the price of every add: a memory's create cost 1.0 ms with
  the label's range indexes and 3.6-4.0 ms with the full-text index beside them (p50 of 80
  single creates on a 100,000-memory store), because a full-text index read by queries must be
  brought up to date inside each commit. Its keyword query, fuzzy terms expanded over the whole
  database's term dictionary, was 5.1 ms p50 / 10.6 ms p95 of a keyword search
  (bench_service.py, 100,000 memories). The index stays, for ad-hoc Cypher, and is now
  updated after the commit (schema.py).
- On SQLite the typo variants came from a scan of the whole database's vocabulary and FTS5
  ranked them with statistics of every space. Both stores now find and rank the same memories.

Variants of a typed word are looked up once per space and remembered (the vocabulary only
grows, so a remembered answer is brought up to date by looking at the words added since);
the first lookup compares the word only with stored words of a length that could match.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from memspace.domain.text import max_edits, osa_distance, tolerated, word_tokens
from memspace.stores.term_index import Exported, TermIndex

# Typed words whose variants a space remembers (least recently used forgotten first).
REMEMBERED_WORDS = 2_048
# No typo budget below this length (domain.text: four letters tolerate no edit), so no stored
# word shorter than this is ever a variant.
_SHORTEST_VARIANT = 5


class KeywordIndex:
    """One space's content words (repeats counted), by row, and the typo variants looked up."""

    def __init__(self, words: TermIndex | None = None) -> None:
        self._words = TermIndex() if words is None else words
        self._by_length: dict[int, list[str]] = {}  # the vocabulary, by word length
        self._bucketed = 0  # how much of the vocabulary _by_length holds
        # typed word -> (vocabulary size when looked up, its variants: stored word -> weight)
        self._variants: OrderedDict[str, tuple[int, dict[str, float]]] = OrderedDict()

    @property
    def nbytes(self) -> int:
        """About what the index keeps (its words' postings and vocabulary)."""
        return self._words.nbytes

    @property
    def rows(self) -> int:
        return self._words.rows

    def append(self, contents: Sequence[str]) -> None:
        """Index the next rows, one memory's content each."""
        self._words.append([" ".join(word_tokens(content)) for content in contents])

    def scores(self, typed: Sequence[str], exact: bool = False) -> np.ndarray:
        """Every row's score for these typed words (domain.text.words of a keyword): 0 for a
        row missing any of them, else the sum of each word's best match, float32. `exact`:
        each word only as typed, no typo variants (the prompt-recall hook's strict search)."""
        n = self._words.rows
        total = np.zeros(n, dtype=np.float32)
        held = np.ones(n, dtype=bool)  # rows holding every word looked at so far
        for word in dict.fromkeys(typed):
            best = np.zeros(n, dtype=np.float32)
            for variant, weight in ({word: 1.0} if exact else self._variants_of(word)).items():
                rows, partial = self._words.term_scores(variant)
                np.maximum.at(best, rows, partial * np.float32(weight))
            held &= best > 0
            if not held.any():
                return np.zeros(n, dtype=np.float32)  # no row holds them all
            total += best
        total[~held] = 0
        return total

    def export(self) -> Exported:
        return self._words.export()

    @classmethod
    def restore(cls, saved: Exported) -> KeywordIndex:
        return cls(TermIndex.restore(saved))

    def _variants_of(self, word: str) -> dict[str, float]:
        size = self._words.vocabulary_size
        known = self._variants.get(word)
        if known is None:
            variants = _matches(word, self._candidates(word))
        else:
            self._variants.move_to_end(word)
            seen, variants = known
            if seen == size:
                return variants
            variants = {**variants, **_matches(word, self._words.vocabulary(seen))}
        self._variants[word] = (size, variants)
        if len(self._variants) > REMEMBERED_WORDS:
            self._variants.popitem(last=False)
        return variants

    def _candidates(self, word: str) -> list[str]:
        """Stored words whose length could let them match `word`, plus `word` itself."""
        fresh = self._words.vocabulary(self._bucketed)
        for stored in fresh:
            self._by_length.setdefault(len(stored), []).append(stored)
        self._bucketed += len(fresh)
        budget = max_edits(word)
        if budget == 0:
            return [word] if self._words.holds(word) else []
        low, high = max(_SHORTEST_VARIANT, len(word) - budget), len(word) + budget
        return [word] + [stored for length in range(low, high + 1)
                         for stored in self._by_length.get(length, ())]


def _matches(word: str, stored: list[str]) -> dict[str, float]:
    """The stored words `word` matches under the typo rule, each with its weight."""
    budget = max_edits(word)
    if budget == 0:
        return {word: 1.0} if word in stored else {}
    # Damerau-Levenshtein never exceeds the OSA distance `tolerated` applies: a superset first.
    near = process.extract(word, stored, scorer=DamerauLevenshtein.distance,
                           score_cutoff=budget, limit=None)
    return {candidate: 1.0 - osa_distance(word, candidate) / min(len(word), len(candidate))
            for candidate, _, _ in near if tolerated(word, candidate)}
